/// The client a request speaks for, as its credentials established; every ``SampleStorage`` call is scoped to one.
///
/// The JSONL sink knows a single client (``single``), whatever token it is given; the PostgreSQL sink one per token
/// (`stepsync clients add`).
public struct ClientIdentity: Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier of the client within its storage (a name or a database key).
    public let id: String
    /// The client's name for logs (PostgreSQL's `clients.name`), when the storage knows one; not part of the
    /// identity (two values with one ``id`` are equal).
    public let name: String?

    /// Wraps an identifier, with the client's name when known.
    public init(_ id: String, name: String? = nil) {
        self.id = id
        self.name = name
    }

    public static func == (a: ClientIdentity, b: ClientIdentity) -> Bool { a.id == b.id }

    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// The one implicit client of a single-user sink.
    public static let single = ClientIdentity("default")

    public var description: String { id }
}
