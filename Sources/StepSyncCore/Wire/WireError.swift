/// Why a request body (or a stored line) is not valid wire JSON; the whole request is rejected.
///
/// The description names the problem, the field and the sample's index in `samples`, so a client can find it:
/// `sample 3: field "count": -2 is negative`.
public struct WireError: Error, CustomStringConvertible, Sendable, Equatable {
    private enum Code: String, Sendable {
        case malformedJSON = "malformed_json"
        case missingField = "missing_field"
        case wrongType = "wrong_type"
        case invalidUUID = "invalid_uuid"
        case invalidDate = "invalid_date"
        case endBeforeStart = "end_before_start"
        case invalidCount = "invalid_count"
    }

    private let code: Code
    /// The index of the offending sample in `samples`, when the problem is inside one.
    public let sampleIndex: Int?
    /// The offending field (`uuid`, `startDate`, …, or `samples`), when known.
    public let field: String?
    /// Details: the offending value or the parser's message.
    public let detail: String

    private init(_ code: Code, index: Int?, field: String?, detail: String) {
        self.code = code
        self.sampleIndex = index
        self.field = field
        self.detail = detail
    }

    /// A short machine-readable name of the problem (`malformed_json`, `invalid_uuid`, …).
    public var kind: String { code.rawValue }

    /// The body is not JSON, or not the expected shape at all.
    public static func malformedJSON(_ detail: String, index: Int? = nil) -> WireError {
        WireError(.malformedJSON, index: index, field: nil, detail: detail)
    }
    /// A required field is absent.
    public static func missingField(_ field: String, index: Int?) -> WireError {
        WireError(.missingField, index: index, field: field, detail: "is missing")
    }
    /// A field has the wrong JSON type.
    public static func wrongType(_ field: String, index: Int?, expected: String) -> WireError {
        WireError(.wrongType, index: index, field: field, detail: "must be \(expected)")
    }
    /// `uuid` is not a UUID.
    public static func invalidUUID(_ value: String, index: Int?) -> WireError {
        WireError(.invalidUUID, index: index, field: "uuid", detail: "\"\(InputExcerpt.of(value))\" is not a UUID")
    }
    /// A date is not ISO-8601.
    public static func invalidDate(_ field: String, _ value: String, index: Int?) -> WireError {
        WireError(.invalidDate, index: index, field: field,
                  detail: "\"\(InputExcerpt.of(value))\" is not an ISO-8601 date such as 2025-05-11T16:27:22.000Z")
    }
    /// `endDate` is before `startDate`.
    public static func endBeforeStart(index: Int?) -> WireError {
        WireError(.endBeforeStart, index: index, field: "endDate", detail: "is before startDate")
    }
    /// `count` is negative or over ``WireSample/maximumCount``.
    public static func invalidCount(_ value: Double, index: Int?) -> WireError {
        WireError(.invalidCount, index: index, field: "count",
                  detail: value < 0 ? "\(value) is negative" : "\(value) is over the limit of 1000000")
    }

    public var description: String {
        var text = ""
        if let sampleIndex { text += "sample \(sampleIndex): " }
        if let field { text += "field \"\(field)\" " }
        if code == .malformedJSON { text += "malformed JSON: " }
        return text + detail
    }
}
