/// Ends the run when an oracle found broken promises; libFuzzer then saves the input in `Fuzz/Crashes/<target>/`.
func fuzzFail(_ problems: [String]) {
    guard !problems.isEmpty else { return }
    fatalError("oracle: " + problems.joined(separator: "\n  "))
}
