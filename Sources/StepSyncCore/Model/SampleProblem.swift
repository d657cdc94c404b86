/// Why a sample cannot be stored or sent: the one vocabulary of ``SampleValidation``, shared by the importer (a
/// skipped record, counted by ``reason``), the store, the sync engine (a sample rejected before sending) and the
/// sink (a 400 naming ``field``).
public struct SampleProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem; its raw value is the stable key of `import --json`'s `skipped` and of the sink's errors.
    public enum Reason: String, CaseIterable, Hashable, Sendable {
        /// An instant outside ``Instants`` (before year 1 or after year 9999).
        case instantOutOfRange = "instant_out_of_range"
        /// `endDate` before `startDate`.
        case endBeforeStart = "end_before_start"
        /// A value that is NaN or infinite.
        case valueNotFinite = "value_not_finite"
        /// A negative value of a cumulative type (steps, distance, energy, flights…).
        case negativeValue = "negative_value"
        /// A value over the type's limit (a step count over 1,000,000; a category code that is not a whole
        /// number in 0…1,000,000).
        case valueOutOfRange = "value_out_of_range"
        /// A text field longer than ``SampleValidation/maxFieldBytes`` (or `details` longer than
        /// ``SampleValidation/maxDetailsBytes``).
        case fieldTooLong = "field_too_long"
        /// A type identifier that is empty, too long or not made of ASCII letters, digits, `_` and `.`.
        case invalidType = "invalid_type"
        /// A UTC offset beyond ±18 hours.
        case invalidOffset = "invalid_offset"
        /// A text field holding U+0000 (NUL), which PostgreSQL's `text` cannot store and no Health field carries.
        case nulCharacter = "nul_character"
        /// A series part (a route's or an ECG's) whose `details` are not a valid part of it: a member out of range,
        /// arrays of different lengths, a point count that is not the sample's value (``SeriesValidation``).
        case invalidDetails = "invalid_details"
    }

    /// What is wrong.
    public let reason: Reason
    /// The field at fault, as the wire names it (`startDate`, `endDate`, `value`, `sourceName`, `type`, …).
    public let field: String
    /// A short explanation (never more than a short prefix of the offending value).
    public let detail: String

    /// Creates a problem.
    public init(_ reason: Reason, field: String, detail: String) {
        self.reason = reason
        self.field = field
        self.detail = detail
    }

    /// `field "endDate" is before startDate`.
    public var description: String { "field \"\(field)\" \(detail)" }
}
