import Foundation
import GRDB
import StepSyncCore

/// The sample store (`health.sqlite`): stepsync's stand-in for HealthKit, and the ledger of sync intervals.
///
/// One façade over a GRDB `DatabasePool` (WAL, so the sync engine reads samples while it records progress), with
/// intent-named methods grouped by feature in `StepStore+*.swift`:
/// - samples: ``insertSamples(_:)``, ``insert(_:)``, ``samplePage(of:in:after:limit:)``;
/// - statistics (the only queries the layering engine may make): ``statistics(of:in:bucketMs:)``,
///   ``total(of:in:)``, ``bounds(of:)``;
/// - the interval ledger: ``intervals(of:status:)``, ``appendIntervals(_:)``, ``markSynced(_:atMs:)``, ….
///
/// `StepStore` is a value: copies share the same pool, and every method is safe to call from any task.
public struct StepStore: Sendable {
    /// The pool every method goes through.
    let dbWriter: DatabasePool

    /// The path of the database file.
    public let path: String

    /// Opens (creating if needed) the store at `path` and brings its schema up to date.
    ///
    /// - Throws: ``StoreError`` naming the file when it cannot be created, opened or migrated.
    public init(path: String) throws {
        self.path = path
        var configuration = Configuration()
        configuration.label = "stepsync.store"
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // 8 KiB pages for a new store (a no-op on an existing one, whose pages keep their size): half the
            // pages, so half the reads and writes of a bulk import's spills, index builds and commit (its writer
            // −5 to −9 % CPU, `Planning/import.md`); caches are sized in KiB, so memory is unchanged.
            try db.execute(sql: "PRAGMA page_size = 8192")
            // Page cache: 32 MiB for the one writer (bulk inserts into the uuid index); 8 MiB for each reader, which
            // only streams pages that the OS caches anyway — at 64 MiB each, the pool's readers alone held up to
            // 5 × 64 MiB of a decade's pages (the demo's peak grew from 107 to 210 MB after generating), and at 8 MiB
            // each the sync's readers (one per concurrent task, plus the checks') still filled 8 MiB apiece with pages
            // read once; 2 MiB keeps the b-tree's inner pages, which are all a reader reads twice. The writer's
            // 64 MiB made a 500k-record import peak at 143 MB; 16, 32 and 64 MiB inserted its rows in the same CPU
            // time (the OS caches the pages a smaller cache gives back): see Planning/import.md.
            try db.execute(sql: db.configuration.readonly ? "PRAGMA cache_size = -2048" : "PRAGMA cache_size = -32768")
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        do {
            dbWriter = try DatabasePool(path: path, configuration: configuration)
            // WAL + FULL: a committed interval mark survives power loss, at one fsync per commit (≈ 700 commits/s
            // measured here); bulk inserts are one transaction each, so they pay it once. Set here, on the one
            // writer, not in `prepareDatabase`: GRDB's pool sets `synchronous = NORMAL` when it turns WAL on, after
            // `prepareDatabase` (readers write nothing, so it does not matter to them).
            try dbWriter.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try Self.migrator.migrate(dbWriter)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            throw StoreError.cannotOpen(path: path, reason: "\(error.message ?? "database is locked"): another stepsync "
                + "(an import's first load, which locks the store until it commits) is writing it; run this again when it ends")
        } catch let error as DatabaseError {
            throw StoreError.cannotOpen(path: path, reason: error.message ?? "\(error)")
        }
    }

    /// Opens the store `health.sqlite` of a data directory that already holds one, creating nothing when it does not
    /// (read-only commands: `stats`, `status`, `chunks`).
    ///
    /// - Throws: ``StoreError/noStore(path:)`` naming the directory when it or its store does not exist.
    public init(existingDataDirectory dataDirectory: DataDirectory) throws {
        guard FileManager.default.fileExists(atPath: dataDirectory.storePath) else {
            throw StoreError.noStore(path: dataDirectory.path)
        }
        try self.init(path: dataDirectory.storePath)
    }

    /// Opens the store `health.sqlite` of a data directory, creating the directory if needed.
    public init(dataDirectory: DataDirectory) throws {
        try dataDirectory.create()
        try self.init(path: dataDirectory.storePath)
    }

    /// The change sequence (anchor): it grows with every sample inserted and every sample deleted.
    public func changeSequence() throws -> Int64 {
        try dbWriter.read { db in try Self.currentSequence(db) }
    }

    static func currentSequence(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT change_seq FROM store_state WHERE id = 1") ?? 0
    }
}
