import GRDB

/// When and how far a large insert into an (almost) empty store may load without the sample table's indexes.
///
/// Filling the unique uuid index row by row is the largest part of an import's cost in SQLite: derived uuids are
/// random, so every insert lands on another page of the index. Building an index once, after the rows are in, sorts
/// them instead (`CREATE INDEX`), which costs a fraction of that. ``SampleInserter`` therefore, when given a
/// `BulkLoad` and the store holds at most ``maxStoredSamples`` samples:
/// 1. reads the uuids already stored into an in-memory set, and drops the sample table's full indexes (in the write
///    transaction: if the transaction rolls back, they are back as they were; a partial index stays);
/// 2. de-duplicates every insert against that set, exactly as the unique index would (same first copy kept, the
///    same duplicates counted, the same gap-free change sequence);
/// 3. builds the indexes again (with the same SQL) when the set reaches ``capacity`` uuids or the transaction ends,
///    and goes on inserting one row at a time against the unique index after that.
///
/// The transaction itself goes through a rollback journal when no other connection has the store open, so its pages
/// are written once (`BulkJournal`), and checks no foreign key row by row (its type ids are its own).
///
/// So the store a bulk load leaves is the store the one-row-at-a-time path leaves, and memory stays bounded: the set
/// holds at most ``capacity`` uuids (16 bytes a slot, at most half full). See `Planning/import.md`.
public struct BulkLoad: Sendable, Hashable {
    /// The bulk path is taken only when the store holds at most this many samples (rebuilding the indexes over many
    /// stored rows would cost more than it saves).
    public var maxStoredSamples: Int
    /// The most uuids the in-memory set holds; past it, the indexes are built and the rest is inserted as usual.
    public var capacity: Int

    /// Creates a policy.
    public init(maxStoredSamples: Int, capacity: Int) {
        self.maxStoredSamples = maxStoredSamples
        self.capacity = capacity
    }

    /// Whether a store holding `stored` samples is loaded in bulk: at most ``maxStoredSamples``, and fewer than the
    /// set's ``capacity``.
    public func admits(storedSamples stored: Int) -> Bool {
        stored <= maxStoredSamples && stored < capacity
    }

    /// The samples stored, counted no further than `policy` needs to decide (a store of millions is not counted
    /// to its end).
    static func storedSamples(in db: Database, for policy: BulkLoad) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT 1 FROM sample LIMIT ?)",
                         arguments: [min(policy.maxStoredSamples, policy.capacity) + 1]) ?? 0
    }

    /// The import's policy: stores of up to 65,536 samples; up to 2^19 = 524,288 uuids in memory (a table of at most
    /// 16 MB, 8 MB more while it last grows). 2^20 let a 1.1 M-record import peak at 140 MB (main: 106 MB); a larger
    /// export loads its first 524,288 samples in bulk and the rest one row at a time.
    public static let standard = BulkLoad(maxStoredSamples: 65_536, capacity: 1 << 19)
}
