/// A storage could not do what was asked. The HTTP layer answers ``unavailable(_:retryAfterSeconds:)`` with 503 and
/// `Retry-After`, ``invalidCursor(_:)``, ``tooManyTypes(limit:stored:new:)`` and ``invalidType(_:)`` with 400.
public struct SampleStorageError: Error, CustomStringConvertible, Sendable {
    private enum Code: Sendable { case unavailable, invalidCursor, tooManyTypes, invalidType }

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

    /// The request would bring the sink (JSONL) or its client (PostgreSQL) past its limit of distinct sample types;
    /// nothing of it was stored.
    public static func tooManyTypes(limit: Int, stored: Int, new: Int) -> SampleStorageError {
        SampleStorageError(.tooManyTypes, """
            this sink stores at most \(limit) sample types (--max-types); it holds \(stored) and the request adds \(new) \
            more; nothing of it was stored
            """)
    }

    /// A sample type this storage cannot hold (`message` names it); nothing of the request was stored.
    public static func invalidType(_ message: String) -> SampleStorageError {
        SampleStorageError(.invalidType, message)
    }

    /// Whether this is ``invalidType(_:)``.
    public var isInvalidType: Bool { code == .invalidType }

    /// Whether this is ``tooManyTypes(limit:stored:new:)``.
    public var isTooManyTypes: Bool { code == .tooManyTypes }

    /// Whether this is ``unavailable(_:retryAfterSeconds:)``.
    public var isUnavailable: Bool { code == .unavailable }

    public var description: String { message }
}
