/// A storage could not do what was asked. The HTTP layer answers ``unavailable(_:retryAfterSeconds:)`` with 503 and
/// `Retry-After`, ``invalidCursor(_:)`` with 400, ``tooManyTypes(limit:)`` with 422.
public struct SampleStorageError: Error, CustomStringConvertible, Sendable {
    private enum Code: Sendable { case unavailable, invalidCursor, tooManyTypes }

    private let code: Code
    /// What happened, for people.
    public let message: String
    /// For ``unavailable(_:retryAfterSeconds:)``: when to try again.
    public let retryAfterSeconds: Int?

    private init(_ code: Code, _ message: String, retryAfterSeconds: Int? = nil) {
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// The storage cannot write (or read) now — disk full, I/O error, database unreachable; nothing of the request
    /// was acknowledged. The storage resumes by itself once it can write again.
    public static func unavailable(_ message: String, retryAfterSeconds: Int) -> SampleStorageError {
        SampleStorageError(.unavailable, message, retryAfterSeconds: retryAfterSeconds)
    }

    /// A page cursor this storage did not give.
    public static func invalidCursor(_ cursor: String) -> SampleStorageError {
        SampleStorageError(.invalidCursor, "cursor \"\(cursor.prefix(64))\" is not one this sink gave; start again without it")
    }

    /// A batch that would bring its client past `limit` distinct sample types (`serve --max-types`); nothing of it
    /// was stored. Answered 422.
    public static func tooManyTypes(limit: Int) -> SampleStorageError {
        var error = SampleStorageError(.tooManyTypes, """
            this request would bring the samples past the limit of \(limit) distinct types (--max-types); \
            nothing of it was stored
            """)
        error.typeLimit = limit
        return error
    }

    /// For ``tooManyTypes(limit:)``: the limit.
    public private(set) var typeLimit: Int?

    /// Whether this is ``unavailable(_:retryAfterSeconds:)``.
    public var isUnavailable: Bool { code == .unavailable }

    public var description: String { message }
}
