/// What and where a storage is, for `/health` and a dashboard. Never holds a secret (a database URL is shown
/// without its password).
public struct StorageDescription: Hashable, Sendable {
    /// `jsonl` or `postgresql`.
    public var kind: String
    /// The data directory, or the database URL without credentials.
    public var location: String

    /// Creates a description.
    public init(kind: String, location: String) {
        self.kind = kind
        self.location = location
    }
}
