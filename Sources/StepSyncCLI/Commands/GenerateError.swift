import StepSyncCore

/// `stepsync generate` did not do what was asked, and says why instead of reporting an empty success.
struct GenerateError: Error, CustomStringConvertible {
    private enum Code {
        case nothingAppended
    }

    private let code: Code
    let description: String

    /// `--append-days` generated days that hold no new sample (the store is as it was).
    static func nothingAppended(days: ClosedRange<CivilDate>, duplicates: Int) -> GenerateError {
        let what = duplicates > 0
            ? "already holds all \(duplicates) samples of \(days.lowerBound) … \(days.upperBound)"
            : "got no samples from \(days.lowerBound) … \(days.upperBound): on those days the history records none of the types asked for"
        return GenerateError(code: .nothingAppended,
                             description: "--append-days added nothing: the store \(what). Ask for more days, or other --types.")
    }
}
