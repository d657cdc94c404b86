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
/// Atomicity and durability are SQLite's for its rollback journal with `synchronous = EXTRA` for the transaction:
/// the journal is synced before the database is written, and the directory after the journal is deleted at commit
/// (with FULL a power loss just after the commit could bring the journal back and undo the import). A process killed
/// mid-import leaves a hot journal that the next connection to open the store rolls back (`ImportCrashTests`). The
/// store is put back into WAL mode when the transaction ends, committed or not; should that fail, the next
/// `StepStore` to open it does so (a `DatabasePool` sets WAL; `BulkJournalTests`).
///
/// Leaving WAL mode needs the only connection to the store; when another one has it open (a sync or a dashboard
/// reading it), SQLite refuses at once (the busy timeout is lifted for the attempt) and the load runs in WAL mode
/// as before. For the transaction the connection also takes the file's lock for itself (`BEGIN EXCLUSIVE` under
/// `locking_mode = EXCLUSIVE`, from the transaction's start to its end): without it every spill of the page cache, and the commit,
/// waited for any reader that had come since (the `sqlite3` shell, another process's brief read), up to the busy
/// timeout each, and a long reader made the commit fail. With it, a process that opens the store meanwhile waits
/// (up to the 10 s busy timeout) and is told why if the load takes longer.
struct BulkJournal {
    /// The writer's `synchronous` setting before the load, put back by ``leave(_:)``.
    let synchronous: Int
    /// Switches `db` to a rollback journal when `policy` admits the store for a bulk load and no other connection
    /// has it open; `nil` (still WAL) otherwise.
    static func enter(_ db: Database, policy: BulkLoad) throws -> BulkJournal? {
        guard policy.admits(storedSamples: try BulkLoad.storedSamples(in: db, for: policy)),
              try String.fetchOne(db, sql: "PRAGMA journal_mode")?.lowercased() == "wal"
        else { return nil }
        let timeout = try Int.fetchOne(db, sql: "PRAGMA busy_timeout") ?? 0
        try db.execute(sql: "PRAGMA busy_timeout = 0")
        defer { try? db.execute(sql: "PRAGMA busy_timeout = \(timeout)") }
        guard let mode = try? String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE"), mode.lowercased() == "delete"
        else { return nil }
        let synchronous = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? 2
        try db.execute(sql: "PRAGMA synchronous = EXTRA")
        _ = try String.fetchOne(db, sql: "PRAGMA locking_mode = EXCLUSIVE")
        return BulkJournal(synchronous: synchronous)
    }

    /// Gives the file's lock back and puts the store back into WAL mode and the writer's `synchronous` as it was
    /// (outside any transaction). A failure to return to WAL is tried once more, then left to the next opening
    /// (which sets WAL).
    func leave(_ db: Database) {
        // The lock is released at the next access of the file: the journal-mode change below.
        _ = try? String.fetchOne(db, sql: "PRAGMA locking_mode = NORMAL")
        try? db.execute(sql: "PRAGMA synchronous = \(synchronous)")
        for _ in 0..<2 {
            if (try? String.fetchOne(db, sql: "PRAGMA journal_mode = WAL"))?.lowercased() == "wal" { return }
        }
    }
}
