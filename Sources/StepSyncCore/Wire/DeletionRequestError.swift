/// Why a deletions body (``DeletionRequest``) is refused, with the field at fault: `uuids[2]: "abc" is not a UUID`.
/// Messages quote at most 64 Unicode scalars of a value (``InputExcerpt``). The sink answers them with 400.
public struct DeletionRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    private let code: ErrorKind
    /// The body field at fault (`type`, `uuids`), or `nil` for malformed JSON.
    public let field: String?
    /// What is wrong, for people.
    public let message: String

    private init(_ code: ErrorKind, field: String?, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    /// A stable machine-readable name of the problem (`malformed_json`, `invalid_uuid`, …).
    public var kind: String { code.rawValue }

    public var description: String { message }

    /// Not a JSON object; `typed` when the body must name its type.
    static func malformedJSON(typed: Bool) -> DeletionRequestError {
        DeletionRequestError(.malformedJSON, field: nil, "malformed JSON: expected "
            + (typed ? #"{"type":"<type>","uuids":["<UUID>",…]}"# : #"{"uuids":["<UUID>",…]}"#))
    }

    /// `type` or `uuids` absent, or not a string (`type`) or an array (`uuids`).
    static func badField(_ field: String, missing: Bool) -> DeletionRequestError {
        let shape = field == "type" ? "must be a string" : "must be an array of strings"
        return DeletionRequestError(missing ? .missingField : .wrongType, field: field,
                                    "field \"\(field)\" \(missing ? "is missing" : shape)")
    }

    /// A `type` that ``SampleValidation`` refuses.
    static func invalidType(_ problem: SampleProblem) -> DeletionRequestError {
        DeletionRequestError(.invalidType, field: "type", "type \(problem.detail)")
    }

    /// An item of `uuids` that is not a UUID string; `shown` is its quoted excerpt or its JSON type.
    static func invalidUUID(index: Int, shown: String) -> DeletionRequestError {
        DeletionRequestError(.invalidUUID, field: "uuids", "uuids[\(index)]: \(shown) is not a UUID")
    }
}
