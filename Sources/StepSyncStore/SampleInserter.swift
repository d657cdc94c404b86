import Foundation
import GRDB
import GRDBSQLite
import StepSyncCore

/// SQLite copies a parameter bound with this destructor (the C macro, which Swift does not import).
private var SQLITE_TRANSIENT: sqlite3_destructor_type {
    unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}

/// Inserts samples one at a time inside a single write transaction (see ``StepStore/insertSamples(_:)``).
///
/// It holds one prepared statement and a cache of type ids, and assigns each new sample the next change sequence.
/// A sample whose uuid is already stored is skipped and counted as a duplicate.
///
/// Bulk imports send hundreds of thousands of samples through ``insert(_:)``, so it binds the statement's
/// parameters with the SQLite C API (no argument arrays, the uuid's 16 bytes from the stack) and keeps a text
/// parameter bound while the next sample repeats it: a run of samples of one source, unit and device binds those
/// strings once. See `Planning/import.md` for the figures.
public struct SampleInserter {
    private let db: Database
    private let statement: Statement
    private var typeIds: [SampleType: TypeInfo] = [:]
    /// The last type inserted and its id, so a run of one type looks the dictionary up once.
    private var lastType: (type: SampleType, info: TypeInfo)?
    /// The text parameters (8…13) bound now, by parameter index − 8; `.none` when not bound yet.
    private var boundText: [BoundText] = Array(repeating: .none, count: 6)
    private var seq: Int64
    /// What this transaction adds to the hourly rollup, by ``TypeInfo/slot``, in ascending hours: a type's samples
    /// come in time order, so each adds to its type's last hour or opens the next one (an array append, no hash).
    /// Written by ``finish()``.
    private var hourTotals: [[HourRun]] = []
    /// Samples that came before their type's last hour (out of time order), summed by key.
    private var earlierHours: [HourKey: HourRun] = [:]
    /// What this inserter has done so far.
    public private(set) var summary = InsertSummary()
    /// The uuids of the store's tombstones (samples deleted earlier), read once when the inserter starts; empty for a
    /// store where nothing was ever deleted, so the check costs nothing there.
    private let deletedUUIDs: Set<UUID>
    /// What to do with a sample in ``deletedUUIDs``.
    private let deletedSamples: DeletedSamples
    /// Drops a restored sample's tombstones (prepared only when restoring).
    private let forgetTombstone: Statement?

    /// A type's id in the store, its kind, and its index in ``hourTotals``.
    private struct TypeInfo {
        var id: Int64
        var kind: SampleKind
        var slot: Int
        var isStepCount: Bool
    }

    /// Samples inserted by this inserter, by ``TypeInfo/slot``.
    private var insertedBySlot: [Int] = []

    /// Samples inserted by this inserter so far, by type (an array bump per insert, not a hash).
    public var insertedByType: [SampleType: Int] {
        var counts: [SampleType: Int] = [:]
        for (type, info) in typeIds where insertedBySlot[info.slot] > 0 { counts[type] = insertedBySlot[info.slot] }
        return counts
    }

    /// The samples of one type inserted in one hour.
    private struct HourRun {
        var hour: Int64
        var sum: Double = 0
        var count: Int = 0

        mutating func add(_ sum: Double, count: Int) {
            self.sum += sum
            self.count += count
        }
    }

    /// A text parameter's current binding.
    private enum BoundText: Equatable {
        case none
        case null
        case text(String)
    }

    /// While a bulk load is on (see ``BulkLoad``): the uuids stored and inserted so far, and the sample table's
    /// indexes to build again.
    private var bulk: BulkState?

    /// A bulk load in progress.
    private struct BulkState {
        let uuids: UUIDSet
        let capacity: Int
        /// `(name, CREATE INDEX …)` of every index dropped, the unique uuid index first.
        let indexes: [(name: String, sql: String)]
    }

    /// Whether a bulk load is on (the sample table's indexes are dropped until it ends).
    public var isBulkLoading: Bool { bulk != nil }

    /// Whether this transaction writes through a rollback journal instead of the write-ahead log: a bulk load that
    /// had the store to itself (see `BulkJournal`).
    public let writesThroughRollbackJournal: Bool

    init(db: Database, bulkLoad: BulkLoad? = nil, rollbackJournal: Bool = false,
         deletedSamples: DeletedSamples = .remember) throws {
        self.db = db
        self.writesThroughRollbackJournal = rollbackJournal
        self.seq = try StepStore.currentSequence(db)
        self.deletedSamples = deletedSamples
        var deleted = Set<UUID>()
        let tombstones = try UUID.fetchCursor(db, sql: "SELECT uuid FROM tombstone")
        while let uuid = try tombstones.next() { deleted.insert(uuid) }
        self.deletedUUIDs = deleted
        self.forgetTombstone = deletedSamples == .restore && !deleted.isEmpty
            ? try db.makeStatement(sql: "DELETE FROM tombstone WHERE uuid = ?") : nil
        if let bulkLoad {
            bulk = try Self.beginBulkLoad(bulkLoad, in: db)
        }
        self.statement = try db.makeStatement(sql: """
            INSERT OR IGNORE INTO sample (seq, uuid, type_id, start_ms, end_ms, utc_offset, value, unit,
                source_name, source_bundle_id, source_version, device_name, device_model, details)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
    }

    /// Inserts `sample` unless its uuid is already stored. Returns whether it was inserted.
    ///
    /// - Throws: ``StoreError/invalidSample(_:)`` naming the sample and its ``SampleProblem`` when it fails
    ///   ``SampleValidation`` (the store never holds a sample the sink would refuse), or `DatabaseError` when SQLite
    ///   fails.
    @discardableResult
    public mutating func insert(_ sample: HealthSample) throws -> Bool {
        let info = try typeInfo(of: sample.type)
        let typeId = info.id
        // The type identifier itself was checked once, when the type was first met in this transaction.
        if let problem = SampleValidation.problem(of: sample, kind: info.kind, typeChecked: true) {
            throw StoreError.invalidSample("uuid \(sample.uuid) (\(sample.type.shortName)): \(problem)")
        }
        let wasDeleted = !deletedUUIDs.isEmpty && deletedUUIDs.contains(sample.uuid)
        if wasDeleted, deletedSamples == .remember {
            summary.previouslyDeleted += 1
            return false
        }
        if let bulk {
            guard bulk.uuids.insert(sample.uuid) else {
                // Exactly what the unique index would have refused.
                summary.duplicates += 1
                return false
            }
        }
        seq += 1
        let s = statement.sqliteStatement
        sqlite3_bind_int64(s, 1, seq)
        withUnsafeBytes(of: sample.uuid.uuid) { _ = sqlite3_bind_blob(s, 2, $0.baseAddress, 16, SQLITE_TRANSIENT) }
        sqlite3_bind_int64(s, 3, typeId)
        sqlite3_bind_int64(s, 4, sample.startMs)
        sqlite3_bind_int64(s, 5, sample.endMs)
        if let offset = sample.utcOffsetSeconds { sqlite3_bind_int64(s, 6, Int64(offset)) } else { sqlite3_bind_null(s, 6) }
        sqlite3_bind_double(s, 7, sample.value)
        bindText(8, sample.unit)
        bindText(9, sample.sourceName)
        bindText(10, sample.sourceBundleId)
        bindText(11, sample.sourceVersion)
        bindText(12, sample.deviceName)
        bindText(13, sample.deviceModel)
        if let details = sample.details {
            Self.bind(details, to: s, at: 14)
        } else {
            sqlite3_bind_null(s, 14)
        }
        let code = sqlite3_step(s)
        sqlite3_reset(s)
        guard code == SQLITE_DONE else {
            seq -= 1
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
        }
        if sqlite3_changes(db.sqliteConnection) == 1 {
            if wasDeleted, let forgetTombstone {
                try forgetTombstone.execute(arguments: [sample.uuid])
                summary.restored += 1
            }
            try addToRollup(sample, info: info)
            summary.inserted += 1
            insertedBySlot[info.slot] += 1
            if info.isStepCount { summary.insertedSteps += sample.value }
            if let bulk, bulk.uuids.count >= bulk.capacity { try endBulkLoad() }
            return true
        } else {
            seq -= 1
            summary.duplicates += 1
            return false
        }
    }

    /// Inserts `samples` in order, as ``insert(_:)`` one after another would; returns how many were inserted.
    ///
    /// During a bulk load it warms the in-memory uuid set's slots for each run of 64 samples before inserting them
    /// (``UUIDSet/warm(_:)``), so their cache misses overlap instead of each insert waiting on its own.
    @discardableResult
    public mutating func insert(contentsOf samples: [HealthSample]) throws -> Int {
        var inserted = 0
        // Read through the buffer: each sample is lent to `insert(_:)`, not copied (a retain and a release of each
        // of its strings).
        try samples.withUnsafeBufferPointer { samples in
            var start = 0
            while start < samples.count {
                let end = Swift.min(start + 64, samples.count)
                if let bulk { bulk.uuids.warm(UnsafeBufferPointer(rebasing: samples[start..<end]).lazy.map(\.uuid)) }
                for index in start..<end where try insert(samples[index]) { inserted += 1 }
                start = end
            }
        }
        return inserted
    }

    // MARK: - Bulk load

    /// Starts a bulk load when the store holds at most `policy.maxStoredSamples` samples: reads the stored uuids into
    /// a set and drops the sample table's indexes (inside the write transaction). `nil` when the store is too large.
    private static func beginBulkLoad(_ policy: BulkLoad, in db: Database) throws -> BulkState? {
        let stored = try BulkLoad.storedSamples(in: db, for: policy)
        guard policy.admits(storedSamples: stored) else { return nil }
        let uuids = UUIDSet(expected: max(stored, 1 << 14))
        let select = try db.makeStatement(sql: "SELECT uuid FROM sample")
        let s = select.sqliteStatement
        while true {
            let code = sqlite3_step(s)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: select.sql)
            }
            guard sqlite3_column_bytes(s, 0) == 16, let bytes = sqlite3_column_blob(s, 0) else { continue }
            var uuid = UUID().uuid
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: 16)) }
            _ = uuids.insert(UUID(uuid: uuid))
        }
        sqlite3_reset(s)
        var indexes: [(name: String, sql: String)] = []
        // A partial index (`sample_long_duration`: the few samples longer than an hour) stays: filling it row by row
        // costs next to nothing, and building it again would scan the whole table for them (≈ 50 ms of the import's
        // end for 500k samples).
        for row in try Row.fetchAll(db, sql: """
            SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sample' AND sql IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM pragma_index_list('sample') AS l WHERE l.name = sqlite_master.name AND l.partial)
            ORDER BY name
            """) {
            indexes.append((row["name"], row["sql"]))
        }
        // The unique index first: if a duplicate ever slipped through, building it fails and the import rolls back.
        indexes.sort { ($0.sql.uppercased().hasPrefix("CREATE UNIQUE") ? 0 : 1) < ($1.sql.uppercased().hasPrefix("CREATE UNIQUE") ? 0 : 1) }
        for index in indexes {
            try db.execute(sql: "DROP INDEX \(index.name.quotedDatabaseIdentifier)")
        }
        return BulkState(uuids: uuids, capacity: policy.capacity, indexes: indexes)
    }

    /// Ends the bulk load: frees the uuid set and builds the dropped indexes again, each by one scan and one sort.
    /// From here on, inserts are de-duplicated by the unique index.
    ///
    /// The sorts are most of the end of an import (the reader has finished; one core would idle), so SQLite may sort
    /// on two threads (`PRAGMA threads = 2`): it does so only when the sort spills to temporary files, which
    /// `temp_store = MEMORY` forbids and a large cache makes rare, so for the builds the temporary store is a file and
    /// the page cache 4 MiB (sorted runs of 4 MiB, sorted on a worker thread while the table is scanned, then merged);
    /// both are set back afterwards. This also keeps the sort's memory to a few runs instead of the whole index.
    /// Measured: `Planning/import.md`.
    private mutating func endBulkLoad() throws {
        guard let indexes = bulk?.indexes else { return }
        bulk = nil
        let cache = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -32768
        // temp_store cannot change once the connection's temporary database is open; then the sorts just stay on
        // one thread.
        let tempFile = (try? db.execute(sql: "PRAGMA temp_store = FILE")) != nil
        try db.execute(sql: "PRAGMA threads = 2")
        try db.execute(sql: "PRAGMA cache_size = -4096")
        for index in indexes {
            try db.execute(sql: index.sql)
        }
        try db.execute(sql: "PRAGMA cache_size = \(cache)")
        try db.execute(sql: "PRAGMA threads = 0")
        if tempFile { try? db.execute(sql: "PRAGMA temp_store = MEMORY") }
    }

    /// Binds text parameter `index` (8…13) to `text`, unless it is bound to that already.
    @inline(__always)
    private mutating func bindText(_ index: CInt, _ text: String?) {
        let wanted: BoundText = text.map { .text($0) } ?? .null
        let slot = Int(index) - 8
        guard boundText[slot] != wanted else { return }
        let s = statement.sqliteStatement
        if let text {
            Self.bind(text, to: s, at: index)
        } else {
            sqlite3_bind_null(s, index)
        }
        boundText[slot] = wanted
    }

    /// Binds `text` (copied by SQLite) to parameter `index` of `s`.
    @inline(__always)
    private static func bind(_ text: String, to s: SQLiteStatement, at index: CInt) {
        var text = text
        text.withUTF8 { utf8 in
            // An empty buffer may have no address, which SQLite would bind as NULL: bind "" explicitly.
            if let base = utf8.baseAddress, !utf8.isEmpty {
                _ = sqlite3_bind_text(s, index, base, CInt(utf8.count), SQLITE_TRANSIENT)
            } else {
                _ = sqlite3_bind_text(s, index, "", 0, SQLITE_TRANSIENT)
            }
        }
    }

    /// The type's id (created on first use), kind and run slot, cached for the transaction. A type is checked
    /// (``SampleValidation/typeProblem(_:)``) here, once, before it is cached.
    private mutating func typeInfo(of type: SampleType) throws -> TypeInfo {
        if let lastType, lastType.type == type { return lastType.info }
        if let info = typeIds[type] {
            lastType = (type, info)
            return info
        }
        if let problem = SampleValidation.typeProblem(type) {
            throw StoreError.invalidSample("type: \(problem)")
        }
        let info = TypeInfo(id: try StepStore.typeId(of: type, in: db, create: true)!, kind: type.kind, slot: hourTotals.count,
                            isStepCount: type == .stepCount)
        hourTotals.append([])
        insertedBySlot.append(0)
        typeIds[type] = info
        lastType = (type, info)
        return info
    }

    /// Adds an inserted sample to its type's hour.
    @inline(__always)
    private mutating func addToRollup(_ sample: HealthSample, info: TypeInfo) throws {
        let hour = StepStore.hour(of: sample.startMs)
        let slot = info.slot
        let last = hourTotals[slot].count - 1
        if last >= 0, hourTotals[slot][last].hour == hour {
            hourTotals[slot][last].add(sample.value, count: 1)
        } else if last < 0 || hourTotals[slot][last].hour < hour {
            if last >= Self.rollupRunsHeld { try writeCompletedHours(of: info) }
            hourTotals[slot].append(HourRun(hour: hour, sum: sample.value, count: 1))
        } else {
            earlierHours[HourKey(typeId: info.id, hour: hour), default: HourRun(hour: hour)].add(sample.value, count: 1)
        }
    }

    /// Rollup rows written by one statement.
    static let rollupRowsPerStatement = 64

    /// The hours a type's rollup holds in memory before the completed ones are written (inside the transaction).
    ///
    /// A type's samples come in time order, so an hour is complete once a later one has opened; writing them while
    /// the export is still being read moves ≈ 0.1 s of a 500k-record import's end (261k rows) into the reading, where
    /// the writer has slack, and bounds the rollup's memory. A late sample for a written hour goes to
    /// ``earlierHours`` as before and is added onto the row by the upsert at the end.
    public static let rollupRunsHeld = 4096

    /// Rollup hours written before the transaction's end (by ``writeCompletedHours(of:)``).
    private(set) var hoursWrittenEarly = 0

    /// Writes every held hour of `info`'s type but the last (which may still grow), and forgets them.
    private mutating func writeCompletedHours(of info: TypeInfo) throws {
        let runs = hourTotals[info.slot]
        guard runs.count > 1 else { return }
        try writeRollup(runs[..<(runs.count - 1)], typeId: info.id)
        hourTotals[info.slot].removeFirst(runs.count - 1)
        hoursWrittenEarly += runs.count - 1
    }

    /// The rollup's upserts: `rollupRowsPerStatement` rows, and one row (prepared once per transaction).
    private var rollupStatements: (wide: Statement, one: Statement)?

    /// Upserts `runs` (distinct hours in ascending order) into the rollup: in key order (appends to the table's
    /// b-tree, not random inserts), 64 rows a statement bound with the C API (SQLite's cost per statement paid once
    /// for 64 rows; numbers only, so no text is copied). The conflict clause is `StepStore.addToRollup`'s: a row
    /// already there (an earlier transaction's, or this one's written earlier) is added to.
    private mutating func writeRollup(_ runs: ArraySlice<HourRun>, typeId: Int64) throws {
        let width = Self.rollupRowsPerStatement
        if rollupStatements == nil {
            let conflict = StepStore.rollupUpsertConflict
            rollupStatements = (
                wide: try db.makeStatement(sql: "INSERT INTO sample_hour (type_id, hour, sum, count) VALUES "
                    + Array(repeating: "(?, ?, ?, ?)", count: width).joined(separator: ", ") + " " + conflict),
                one: try db.makeStatement(sql: "INSERT INTO sample_hour (type_id, hour, sum, count) VALUES (?, ?, ?, ?) " + conflict))
        }
        let (wide, one) = rollupStatements!
        var start = runs.startIndex
        while start < runs.endIndex {
            let statement = runs.endIndex - start >= width ? wide : one
            let rows = statement === wide ? width : 1
            let s = statement.sqliteStatement
            for r in 0..<rows {
                let run = runs[start + r]
                let p = CInt(r * 4)
                sqlite3_bind_int64(s, p + 1, typeId)
                sqlite3_bind_int64(s, p + 2, run.hour)
                sqlite3_bind_double(s, p + 3, run.sum)
                sqlite3_bind_int64(s, p + 4, Int64(run.count))
            }
            let code = sqlite3_step(s)
            sqlite3_reset(s)
            guard code == SQLITE_DONE else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
            }
            start += rows
        }
    }

    /// Writes the advanced change sequence and the hourly rollup back; called once at the end of the transaction.
    mutating func finish() throws -> InsertSummary {
        sqlite3_clear_bindings(statement.sqliteStatement)
        try endBulkLoad()
        try db.execute(sql: "UPDATE store_state SET change_seq = ? WHERE id = 1", arguments: [seq])
        // A decade adds hundreds of thousands of rollup rows (261k for the 500k-record benchmark export); all but
        // the last `rollupRunsHeld` hours of each type were written while the samples came. Figures:
        // Planning/import.md.
        for info in typeIds.values.sorted(by: { $0.id < $1.id }) {
            var runs = hourTotals[info.slot]
            let earlier = earlierHours.filter { $0.key.typeId == info.id }
            if !earlier.isEmpty {
                // Out-of-order hours: merge them in, still one row per hour, in key order.
                var byHour: [Int64: HourRun] = [:]
                for run in runs + earlier.values {
                    byHour[run.hour, default: HourRun(hour: run.hour)].add(run.sum, count: run.count)
                }
                runs = byHour.values.sorted { $0.hour < $1.hour }
            }
            try writeRollup(runs[...], typeId: info.id)
        }
        hourTotals.removeAll()
        earlierHours.removeAll()
        return summary
    }

    /// A row of the hourly rollup.
    private struct HourKey: Hashable {
        var typeId: Int64
        var hour: Int64
    }
}
