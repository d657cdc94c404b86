/// The client a request speaks for, as its credentials established; every ``SampleStorage`` call is scoped to one.
///
/// The JSONL sink knows a single client (``single``), whatever token it is given; the PostgreSQL sink one per token
/// (`stepsync clients add`).
public struct ClientIdentity: Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier of the client within its storage (a name or a database key).
    public let id: String

    /// Wraps an identifier.
    public init(_ id: String) { self.id = id }

    /// The one implicit client of a single-user sink.
    public static let single = ClientIdentity("default")

    public var description: String { id }
}
