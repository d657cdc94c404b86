/// Why a daily step totals request (or the samples fed to ``DailyStepTotals``) cannot be answered, with a message a
/// user can act on: `from: "2024-13-01" is not a date YYYY-MM-DD`.
///
/// Messages name the parameter at fault and never echo more than the first 64 characters of what was given. The sink
/// answers them with 400 and the CLI prints them; ``parameter`` is `nil` for problems of the samples themselves.
public struct DailyStepsError: Error, Hashable, Sendable, CustomStringConvertible {
    private let code: ErrorKind
    /// The request parameter at fault (`from`, `to`, `tz`, `priority`, or the CLI's `--from`, …), when there is one.
    public let parameter: String?
    /// What is wrong, without the parameter's name.
    public let detail: String

    private init(_ code: ErrorKind, parameter: String?, detail: String) {
        self.code = code
        self.parameter = parameter
        self.detail = detail
    }

    /// A stable machine-readable name of the problem (`invalid_date`, `invalid_tz`, …).
    public var kind: String { code.rawValue }

    /// `parameter: detail`, or the detail alone.
    public var description: String { parameter.map { "\($0): \(detail)" } ?? detail }

    /// At most 64 characters (Unicode scalars: ``InputExcerpt``) of user input, quoted, for messages.
    static func quoted(_ text: some StringProtocol) -> String {
        "\"\(InputExcerpt.of(text))\""
    }

    /// A date parameter that is not a date `YYYY-MM-DD` in years 0001…9999.
    static func invalidDate(_ text: String, parameter: String) -> DailyStepsError {
        DailyStepsError(.invalidDate, parameter: parameter,
                        detail: "\(quoted(text)) is not a date YYYY-MM-DD (years 0001…9999), such as 2025-05-11")
    }

    /// `to` before `from`, or a span over ``DailyStepsRequest/maxDays`` days.
    static func invalidSpan(_ detail: String, parameter: String) -> DailyStepsError {
        DailyStepsError(.invalidSpan, parameter: parameter, detail: detail)
    }

    /// A time zone that is not an IANA name `TimeZone` knows.
    static func invalidTimeZone(_ text: String, parameter: String) -> DailyStepsError {
        DailyStepsError(.invalidTimeZone, parameter: parameter,
                        detail: "\(quoted(text)) is not an IANA time zone name such as Europe/Berlin or America/New_York (names are case-sensitive)")
    }

    /// A priority list that is empty, has an empty or over-long name, a repeated name, or too many names.
    static func invalidPriority(_ detail: String, parameter: String) -> DailyStepsError {
        DailyStepsError(.invalidPriority, parameter: parameter, detail: detail)
    }

    /// A sample that ``SampleValidation`` refuses (the store and the sink never hold one).
    static func invalidSample(_ problem: SampleProblem) -> DailyStepsError {
        DailyStepsError(.invalidSample, parameter: nil, detail: "a step sample is invalid: \(problem)")
    }

    /// A sample that starts before the one fed before it.
    static func samplesOutOfOrder(startMs: Int64, previousStartMs: Int64) -> DailyStepsError {
        DailyStepsError(.samplesOutOfOrder, parameter: nil, detail:
            "step samples must come in start order: \(ISO8601Millis.format(startMs)) came after \(ISO8601Millis.format(previousStartMs))")
    }

    /// A day whose total does not fit the exact accumulator (over 9.2 × 10¹² steps).
    static func totalTooLarge(_ date: CivilDate) -> DailyStepsError {
        DailyStepsError(.totalTooLarge, parameter: nil, detail: "the step total of \(date) is too large to add up exactly")
    }
}
