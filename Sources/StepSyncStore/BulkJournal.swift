import GRDB

/// A bulk load's journal: a rollback journal instead of the write-ahead log, for the one transaction of a bulk load
/// into an empty or small store, when no other connection has the store open.
///
/// In WAL mode every page of the transaction is written twice: into the log (as the page cache spills and at
/// commit), then into the database by the checkpoint, which also reads it back. For a 500k-record import that is
/// ≈ 100 MB written twice and read once, on the writer, after the reader has finished (`Planning/import.md`). A
/// rollback journal only keeps the pages the transaction *changes* that existed before it; pages it appends past the
/// file's old end are never journaled — rolling back truncates the file. A bulk load (at most
/// ``BulkLoad/maxStoredSamples`` stored samples) appends nearly everything, so its pages are written once, straight
/// into the database.
///
/// Atomicity and durability are SQLite's for its rollback journal with `synchronous = FULL`: the journal is synced
/// before the database is written, and a process killed mid-import leaves a hot journal that the next connection to
/// open the store rolls back (`BulkJournalTests`). The store is put back into WAL mode when the transaction ends,
/// committed or not; should that fail, the next `StepStore` to open it does so (a `DatabasePool` sets WAL).
///
/// Leaving WAL mode needs the only connection to the store; when another one has it open (a sync or a dashboard
/// reading it), SQLite refuses at once (the busy timeout is lifted for the attempt) and the load runs in WAL mode
/// as before.
struct BulkJournal {
    /// Switches `db` to a rollback journal when the store holds at most `policy.maxStoredSamples` samples and no
    /// other connection has it open; `nil` (still WAL) otherwise.
    static func enter(_ db: Database, policy: BulkLoad) throws -> BulkJournal? {
        let stored = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT 1 FROM sample LIMIT ?)",
                                      arguments: [policy.maxStoredSamples + 1]) ?? 0
        guard stored <= policy.maxStoredSamples,
              try String.fetchOne(db, sql: "PRAGMA journal_mode")?.lowercased() == "wal"
        else { return nil }
        let timeout = try Int.fetchOne(db, sql: "PRAGMA busy_timeout") ?? 0
        try db.execute(sql: "PRAGMA busy_timeout = 0")
        defer { try? db.execute(sql: "PRAGMA busy_timeout = \(timeout)") }
        guard let mode = try? String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE"), mode.lowercased() == "delete"
        else { return nil }
        return BulkJournal()
    }

    /// Puts the store back into WAL mode (outside any transaction). A failure is left to the next opening.
    func leave(_ db: Database) {
        _ = try? String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
    }
}
