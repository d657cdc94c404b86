import Foundation

/// Why a body is not the sink answer the sync expected (``SinkAnswer/init(bytes:)``): what was expected, what was
/// wrong with it, and how the body began — enough to tell a proxy's error page from a sink of another version.
public struct SinkAnswerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What the body should have been: `the acknowledgement of POST /steps`.
    public let expected: String
    /// What is wrong with it: `not JSON`, `the field "saved" is missing`, …
    public let problem: String
    /// The start of the body (``SinkHealthAnswer/excerpt(_:limit:)``), `(empty body)` for none.
    public let excerpt: String

    /// Describes `body`, which failed to decode with `error`, as an answer of kind `expected`.
    public init(expected: String, body: some Collection<UInt8>, error: any Error) {
        self.expected = expected
        self.problem = Self.problem(of: error)
        self.excerpt = SinkHealthAnswer.excerpt(body, limit: 160)
    }

    /// `the answer is not the acknowledgement of POST /steps (the field "saved" is missing): "<html>…"`; when it
    /// names a page of another server, check that `--server` is the sink's base URL.
    public var description: String { "the answer is not \(expected) (\(problem)): \(excerpt)" }

    /// A `DecodingError` as a short phrase naming the field at fault.
    private static func problem(of error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error).prefix(120).description }
        func path(_ context: DecodingError.Context, _ key: CodingKey? = nil) -> String {
            var keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            if let key { keys.append(key.stringValue) }
            return keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "the field \"\(path(context, key))\" is missing"
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            guard !context.codingPath.isEmpty else { return "not a JSON object" }
            return "the field \"\(path(context))\" is not \(describe(type))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not JSON" : "the field \"\(path(context))\" is invalid"
        @unknown default: return "not readable"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int64.Type: return "an integer"
        case is Double.Type: return "a number"
        case is String.Type: return "a string"
        default: return "of the right type"
        }
    }
}
