/// Why a request body (or a stored line) is not valid wire JSON, or holds a sample ``SampleValidation`` refuses;
/// the whole request is rejected.
///
/// The description names the problem, the field and the sample's index in `samples`, so a client can find it:
/// `sample 3: field "count" -2.0 is negative for a cumulative type`. It never quotes more than 64 characters of the
/// offending input.
public struct WireError: Error, CustomStringConvertible, Sendable, Equatable {
    private enum Code: Equatable, Sendable {
        case malformedJSON
        case missingField
        case wrongType
        case invalidUUID
        case invalidDate
        case invalidText
        case invalidSample(SampleProblem.Reason)
    }

    private let code: Code
    /// The index of the offending sample in `samples`, when the problem is inside one.
    public let sampleIndex: Int?
    /// The offending field (`uuid`, `startDate`, …, or `samples`), when known.
    public let field: String?
    /// Details: the problem, with at most a short prefix of the offending value.
    public let detail: String
    /// For `invalid_text`: the byte offset of the bad sequence or escape in the input (to locate it in `details`).
    let textOffset: Int?

    private init(_ code: Code, index: Int?, field: String?, detail: String, textOffset: Int? = nil) {
        self.code = code
        self.sampleIndex = index
        self.field = field
        self.detail = detail
        self.textOffset = textOffset
    }

    /// A short machine-readable name of the problem: `malformed_json`, `missing_field`, `wrong_type`,
    /// `invalid_uuid`, `invalid_date`, `invalid_text`, or a ``SampleProblem/Reason`` raw value (`instant_out_of_range`,
    /// `end_before_start`, `negative_value`, `value_out_of_range`, `field_too_long`, `invalid_type`, …).
    public var kind: String {
        switch code {
        case .malformedJSON: "malformed_json"
        case .missingField: "missing_field"
        case .wrongType: "wrong_type"
        case .invalidUUID: "invalid_uuid"
        case .invalidDate: "invalid_date"
        case .invalidText: "invalid_text"
        case .invalidSample(let reason): reason.rawValue
        }
    }

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
    /// A string (a value, a key, or one anywhere inside `details` or an unknown field) that is not valid UTF-8 or
    /// holds an unpaired UTF-16 surrogate escape; `field` is filled in by ``naming(_:)`` where the parser knows it.
    static func invalidText(_ detail: String, index: Int?, offset: Int) -> WireError {
        WireError(.invalidText, index: index, field: nil, detail: detail, textOffset: offset)
    }

    /// This error with `field` as its field, when it is an ``invalidText(_:index:offset:)`` that names none yet.
    func naming(_ field: @autoclosure () -> String) -> WireError {
        guard code == .invalidText, self.field == nil else { return self }
        return WireError(code, index: sampleIndex, field: field(), detail: detail, textOffset: textOffset)
    }

    /// This `invalid_text` error with where it is inside the field added to its detail (`, in metadata.note[1]`).
    func locating(_ path: String) -> WireError {
        guard code == .invalidText, !path.isEmpty else { return self }
        return WireError(code, index: sampleIndex, field: field, detail: detail + ", in " + path, textOffset: textOffset)
    }

    /// A sample that parsed but that ``SampleValidation`` refuses (an instant out of range, end before start, a
    /// negative or absurd value, a field over its size limit, …).
    public static func invalidSample(_ problem: SampleProblem, index: Int?) -> WireError {
        WireError(.invalidSample(problem.reason), index: index, field: problem.field, detail: problem.detail)
    }

    public var description: String {
        var text = ""
        if let sampleIndex { text += "sample \(sampleIndex): " }
        if let field { text += "field \"\(field)\" " }
        if code == .malformedJSON { text += "malformed JSON: " }
        return text + detail
    }
}
