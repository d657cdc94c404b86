/// A storage's connection pool now, for `GET /metrics` (the PostgreSQL storage reports one; the JSONL storage has
/// no pool).
public struct StoragePoolFigures: Hashable, Sendable {
    /// Connections leased by requests now.
    public var inUse: Int
    /// Requests waiting for a connection now.
    public var waiting: Int
    /// The pool's largest number of connections.
    public var maximum: Int

    /// Creates figures.
    public init(inUse: Int, waiting: Int, maximum: Int) {
        self.inUse = inUse
        self.waiting = waiting
        self.maximum = maximum
    }
}
