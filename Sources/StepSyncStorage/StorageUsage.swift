/// What a storage occupies, for the dashboard: its files and their sizes (JSONL), or the database's size.
public struct StorageUsage: Hashable, Sendable {
    /// One file (or table) and its size.
    public struct Item: Hashable, Sendable {
        /// The file's path (JSONL) or the relation's name (PostgreSQL).
        public var name: String
        /// Its size in bytes.
        public var bytes: Int64

        /// Creates an item.
        public init(name: String, bytes: Int64) {
            self.name = name
            self.bytes = bytes
        }
    }

    /// The files or relations, largest role first (the step counts' file first for JSONL).
    public var items: [Item]

    /// Creates a usage report.
    public init(items: [Item]) {
        self.items = items
    }

    /// The sum of the items' sizes.
    public var totalBytes: Int64 { items.reduce(0) { $0 + $1.bytes } }
}
