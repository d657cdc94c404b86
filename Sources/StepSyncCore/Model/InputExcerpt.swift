/// What an error message may quote of bad input: its first 64 characters, counted as Unicode scalars, and `…` when
/// there was more.
///
/// Counting `Character`s is not enough: one character is a base with *any* number of combining marks, so
/// `String.prefix(64)` of `"Z"` followed by 100,000 accents is the whole input (found by the fuzz oracles; see
/// `Planning/fuzzing.md`).
public enum InputExcerpt {
    /// The most Unicode scalars quoted.
    public static let maxScalars = 64

    /// The first ``maxScalars`` Unicode scalars of `text`, with `…` appended when `text` is longer.
    public static func of(_ text: some StringProtocol) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard scalars.count < maxScalars else { return String(scalars) + "…" }
            scalars.append(scalar)
        }
        return String(scalars)
    }
}
