/// One replay of a fuzz target, shared by the core's and the importer's replay tests: the target's corpus, its
/// crashes and a seeded slice of mutations of the corpus (``FuzzCorpus``), each run through the target's oracle (the
/// fuzzer's own checks) and then through the test's own counting.
public struct FuzzReplay: Sendable {
    /// How many corpus files the target has (a test checks none went missing).
    public let corpusCount: Int
    /// How many inputs ran: the corpus, the crashes and the mutations.
    public let inputCount: Int
    /// Every promise an input broke, as `<input name>: <problem>`; empty when every input kept them all.
    public let problems: [String]

    /// Reads the inputs of `target`, adds `count` mutations seeded by `seed`, and runs every one through `oracle`,
    /// then through `each` (which counts what the parsers accepted, so a test sees both sides were reached).
    ///
    /// - Throws: when the target's folders cannot be read, or what `each` throws.
    public init(_ target: String, mutations count: Int, seed: UInt64,
                oracle: (UnsafeRawBufferPointer) -> [String],
                each: (FuzzCorpus.Input) throws -> Void = { _ in }) throws {
        let inputs = try FuzzCorpus(target)
        let all = inputs.all + inputs.mutations(count, seed: seed)
        var problems: [String] = []
        for input in all {
            problems += input.bytes.withUnsafeBytes(oracle).map { "\(input.name): \($0)" }
            try each(input)
        }
        corpusCount = inputs.corpus.count
        inputCount = all.count
        self.problems = problems
    }
}
