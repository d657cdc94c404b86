import Foundation
import GRDB
import GRDBSQLite
import StepSyncCore

/// How many samples an insert added, and how many it skipped because their uuid was already stored.
public struct InsertSummary: Hashable, Sendable {
    /// Samples written.
    public var inserted: Int
    /// Samples skipped: their uuid was already in the store.
    public var duplicates: Int
    /// The sum of the values of the inserted step-count samples.
    public var insertedSteps: Double

    /// Creates a summary.
    public init(inserted: Int = 0, duplicates: Int = 0, insertedSteps: Double = 0) {
        self.inserted = inserted
        self.duplicates = duplicates
        self.insertedSteps = insertedSteps
    }
}

/// SQLite copies a parameter bound with this destructor (the C macro, which Swift does not import).
private var SQLITE_TRANSIENT: sqlite3_destructor_type {
    unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}

/// Inserts samples inside a single write transaction (see ``StepStore/insertSamples(_:)``).
///
/// It holds prepared statements and a cache of type ids, and assigns each new sample the next change sequence, in
/// the order the samples are given. A sample whose uuid is already stored (or was given earlier in the transaction)
/// is skipped and counted as a duplicate; it takes no sequence number.
///
/// Bulk imports send hundreds of thousands of samples through ``insert(contentsOf:)``, which writes
/// ``rowsPerStatement`` samples with one multi-row `INSERT OR IGNORE … RETURNING seq` (SQLite's per-statement cost —
/// VDBE start, three cursors opened and closed, halt, reset — paid once per 32 rows, not per row). It binds with the
/// SQLite C API (no argument arrays; the uuids' 16 bytes from a buffer bound without a copy) and keeps a text
/// parameter bound while the same row position of the next statement repeats it: a run of samples of one source,
/// unit and device binds those strings once per position. See `Planning/import.md` for the figures.
public struct SampleInserter {
    /// Rows written by one multi-row statement (measured best: `Planning/import.md`).
    public static let rowsPerStatement = 32
    /// Bound parameters per row.
    private static let columns: CInt = 14
    /// Text parameters per row (unit, source name, bundle id, version, device name, device model).
    private static let textColumns = 6

    private let db: Database
    /// One row: ``insert(_:)`` and the rest of a batch after its whole statements.
    private let statement: Statement
    /// ``rowsPerStatement`` rows, `RETURNING seq`: prepared on first use.
    private var multiStatement: Statement?
    /// Moves a row to another seq (closing the gap a duplicate leaves in a multi-row statement); prepared on first use.
    private var moveStatement: Statement?
    /// The uuids bound (without a copy) to the statements: one 16-byte slot per row of the multi-row statement, then
    /// one for the single-row statement.
    private let uuids = UUIDSlots(count: SampleInserter.rowsPerStatement + 1)
    private var typeIds: [SampleType: TypeInfo] = [:]
    /// The last type inserted and its id, so a run of one type looks the dictionary up once.
    private var lastType: (type: SampleType, info: TypeInfo)?
    /// The text parameters bound now in the single-row statement; `.none` when not bound yet.
    private var boundText: [BoundText] = Array(repeating: .none, count: SampleInserter.textColumns)
    /// The same for the multi-row statement, row after row.
    private var multiBoundText: [BoundText] = Array(repeating: .none, count: SampleInserter.textColumns * SampleInserter.rowsPerStatement)
    /// The type of each row of the multi-row statement being written.
    private var rowInfos: [TypeInfo] = []
    /// Whether each row of the multi-row statement was inserted (its seq came back).
    private var rowInserted: [Bool] = Array(repeating: false, count: SampleInserter.rowsPerStatement)
    private var seq: Int64
    /// What this transaction adds to the hourly rollup, written by ``finish()``.
    private var hours: [HourKey: (sum: Double, count: Int)] = [:]
    /// The hour each type (by ``TypeInfo/slot``) is adding to now: a type's samples come in time order, so a run
    /// of samples of one type in one hour is summed here and reaches `hours` (a hash) once, when the hour changes.
    private var hourRuns: [HourRun] = []
    /// What this inserter has done so far.
    public private(set) var summary = InsertSummary()

    /// A type's id in the store, its kind, and its index in ``hourRuns``.
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

    /// The samples of one type inserted in one hour, not yet added to `hours`.
    private struct HourRun {
        var hour: Int64
        var sum: Double
        var count: Int
    }

    /// A text parameter's current binding.
    private enum BoundText: Equatable {
        case none
        case null
        case text(String)
    }

    /// Fixed 16-byte slots that outlive the statements they are bound to (`SQLITE_STATIC`).
    private final class UUIDSlots {
        let base: UnsafeMutableRawPointer
        init(count: Int) { base = UnsafeMutableRawPointer.allocate(byteCount: 16 * count, alignment: 16) }
        deinit { base.deallocate() }
        subscript(slot: Int) -> UnsafeMutableRawPointer { base + 16 * slot }
    }

    /// The columns, in the order every row binds them.
    private static let columnList = """
        seq, uuid, type_id, start_ms, end_ms, utc_offset, value, unit,
            source_name, source_bundle_id, source_version, device_name, device_model, details
        """

    init(db: Database) throws {
        self.db = db
        self.seq = try StepStore.currentSequence(db)
        self.statement = try db.makeStatement(sql: """
            INSERT OR IGNORE INTO sample (\(Self.columnList))
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
        // The type identifier itself was checked once, when the type was first met in this transaction.
        if let problem = SampleValidation.problem(of: sample, kind: info.kind, typeChecked: true) {
            throw StoreError.invalidSample("uuid \(sample.uuid) (\(sample.type.shortName)): \(problem)")
        }
        let s = statement.sqliteStatement
        Self.bindRow(sample, seq: seq + 1, typeId: info.id, to: s, first: 1, uuidSlot: uuids[Self.rowsPerStatement],
                     bound: &boundText, at: 0)
        let code = sqlite3_step(s)
        sqlite3_reset(s)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
        }
        if sqlite3_changes(db.sqliteConnection) == 1 {
            seq += 1
            record(sample, info)
            return true
        } else {
            summary.duplicates += 1
            return false
        }
    }

    /// Inserts `samples` in their order, skipping those whose uuid is already stored or given earlier: the same
    /// rows, sequence numbers, rollup and counts as ``insert(_:)`` called on each in turn, and the same error at the
    /// same sample (the samples before it inserted), in ``rowsPerStatement``-row statements.
    ///
    /// - Throws: as ``insert(_:)``.
    public mutating func insert(contentsOf samples: [HealthSample]) throws {
        var start = samples.startIndex
        while samples.endIndex - start >= Self.rowsPerStatement {
            try insertStatement(of: samples, from: start)
            start += Self.rowsPerStatement
        }
        while start < samples.endIndex {
            try insert(samples[start])
            start += 1
        }
    }

    /// Inserts `samples[first ..< first + rowsPerStatement]` with the multi-row statement.
    ///
    /// Row `r` is bound to seq `seq + 1 + r`; `RETURNING seq` says which rows were inserted. When a row was a
    /// duplicate, the rows inserted after it are moved down (`UPDATE … SET seq`) so the sequence stays gap-free and
    /// in the samples' order, as one-at-a-time inserts would leave it. A re-import (every row a duplicate) and a
    /// fresh import (none) move nothing.
    private mutating func insertStatement(of samples: [HealthSample], from first: Int) throws {
        let n = Self.rowsPerStatement
        // Types and validation first, so a statement never writes a sample that a check after it would refuse. On
        // any problem, insert one at a time: that inserts the samples before the bad one and throws at it, exactly.
        rowInfos.removeAll(keepingCapacity: true)
        for r in 0..<n {
            let sample = samples[first + r]
            guard let info = try? typeInfo(of: sample.type),
                  SampleValidation.problem(of: sample, kind: info.kind, typeChecked: true) == nil
            else {
                for index in first..<(first + n) { try insert(samples[index]) }
                return
            }
            rowInfos.append(info)
        }
        let statement = try multiRowStatement()
        let s = statement.sqliteStatement
        let base = seq
        for r in 0..<n {
            Self.bindRow(samples[first + r], seq: base + 1 + Int64(r), typeId: rowInfos[r].id, to: s,
                         first: CInt(r) * Self.columns + 1, uuidSlot: uuids[r], bound: &multiBoundText,
                         at: r * Self.textColumns)
        }
        for r in 0..<n { rowInserted[r] = false }
        var inserted = 0
        var code = sqlite3_step(s)
        while code == SQLITE_ROW {
            let r = Int(sqlite3_column_int64(s, 0) - base - 1)
            rowInserted[r] = true
            inserted += 1
            code = sqlite3_step(s)
        }
        sqlite3_reset(s)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
        }
        if inserted == n {
            for r in 0..<n { record(samples[first + r], rowInfos[r]) }
            seq = base + Int64(n)
            return
        }
        var next = base
        for r in 0..<n where rowInserted[r] {
            next += 1
            let bound = base + 1 + Int64(r)
            if bound != next { try moveRow(from: bound, to: next) }
            record(samples[first + r], rowInfos[r])
        }
        summary.duplicates += n - inserted
        seq = next
    }

    /// The multi-row statement, prepared on first use.
    private mutating func multiRowStatement() throws -> Statement {
        if let multiStatement { return multiStatement }
        let row = "(" + Array(repeating: "?", count: Int(Self.columns)).joined(separator: ", ") + ")"
        let made = try db.makeStatement(sql: """
            INSERT OR IGNORE INTO sample (\(Self.columnList))
            VALUES \(Array(repeating: row, count: Self.rowsPerStatement).joined(separator: ", "))
            RETURNING seq
            """)
        multiStatement = made
        return made
    }

    /// Gives the row at seq `from` the seq `to` (free: below every seq this transaction has bound since).
    private mutating func moveRow(from: Int64, to: Int64) throws {
        if moveStatement == nil {
            moveStatement = try db.makeStatement(sql: "UPDATE sample SET seq = ?2 WHERE seq = ?1")
        }
        let statement = moveStatement!
        let s = statement.sqliteStatement
        sqlite3_bind_int64(s, 1, from)
        sqlite3_bind_int64(s, 2, to)
        let code = sqlite3_step(s)
        sqlite3_reset(s)
        guard code == SQLITE_DONE, sqlite3_changes(db.sqliteConnection) == 1 else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code == SQLITE_DONE ? SQLITE_INTERNAL : code),
                                message: "moving sample seq \(from) to \(to): \(db.lastErrorMessage ?? "no row")",
                                sql: statement.sql)
        }
    }

    /// Counts an inserted sample and adds it to its type's hour run.
    @inline(__always)
    private mutating func record(_ sample: HealthSample, _ info: TypeInfo) {
        let hour = StepStore.hour(of: sample.startMs)
        if hourRuns[info.slot].hour == hour {
            hourRuns[info.slot].sum += sample.value
            hourRuns[info.slot].count += 1
        } else {
            flushHourRun(of: info)
            hourRuns[info.slot] = HourRun(hour: hour, sum: sample.value, count: 1)
        }
        summary.inserted += 1
        insertedBySlot[info.slot] += 1
        if info.isStepCount { summary.insertedSteps += sample.value }
    }

    /// Binds one row's 14 parameters, from parameter `first`; `bound[at ..< at + 6]` are the row's text bindings.
    @inline(__always)
    private static func bindRow(
        _ sample: HealthSample, seq: Int64, typeId: Int64, to s: SQLiteStatement, first p: CInt,
        uuidSlot: UnsafeMutableRawPointer, bound: inout [BoundText], at t: Int
    ) {
        sqlite3_bind_int64(s, p, seq)
        withUnsafeBytes(of: sample.uuid.uuid) { uuidSlot.copyMemory(from: $0.baseAddress!, byteCount: 16) }
        sqlite3_bind_blob(s, p + 1, uuidSlot, 16, nil)  // SQLITE_STATIC: the slot outlives the step
        sqlite3_bind_int64(s, p + 2, typeId)
        sqlite3_bind_int64(s, p + 3, sample.startMs)
        sqlite3_bind_int64(s, p + 4, sample.endMs)
        if let offset = sample.utcOffsetSeconds { sqlite3_bind_int64(s, p + 5, Int64(offset)) } else { sqlite3_bind_null(s, p + 5) }
        sqlite3_bind_double(s, p + 6, sample.value)
        bindText(s, p + 7, sample.unit, &bound[t])
        bindText(s, p + 8, sample.sourceName, &bound[t + 1])
        bindText(s, p + 9, sample.sourceBundleId, &bound[t + 2])
        bindText(s, p + 10, sample.sourceVersion, &bound[t + 3])
        bindText(s, p + 11, sample.deviceName, &bound[t + 4])
        bindText(s, p + 12, sample.deviceModel, &bound[t + 5])
        if let details = sample.details {
            bind(details, to: s, at: p + 13)
        } else {
            sqlite3_bind_null(s, p + 13)
        }
    }

    /// Binds text parameter `index` to `text`, unless `bound` says it is bound to that already.
    @inline(__always)
    private static func bindText(_ s: SQLiteStatement, _ index: CInt, _ text: String?, _ bound: inout BoundText) {
        if let text {
            if case .text(let current) = bound, current == text { return }
            bind(text, to: s, at: index)
            bound = .text(text)
        } else {
            if case .null = bound { return }
            sqlite3_bind_null(s, index)
            bound = .null
        }
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
        let info = TypeInfo(id: try StepStore.typeId(of: type, in: db, create: true)!, kind: type.kind, slot: hourRuns.count,
                            isStepCount: type == .stepCount)
        hourRuns.append(HourRun(hour: .min, sum: 0, count: 0))
        insertedBySlot.append(0)
        typeIds[type] = info
        lastType = (type, info)
        return info
    }

    /// Adds the open hour run of a type to `hours`.
    private mutating func flushHourRun(of info: TypeInfo) {
        let run = hourRuns[info.slot]
        guard run.count > 0 else { return }
        let key = HourKey(typeId: info.id, hour: run.hour)
        hours[key, default: (0, 0)].sum += run.sum
        hours[key, default: (0, 0)].count += run.count
    }

    /// Writes the advanced change sequence and the hourly rollup back; called once at the end of the transaction.
    mutating func finish() throws -> InsertSummary {
        sqlite3_clear_bindings(statement.sqliteStatement)
        if let multiStatement { sqlite3_clear_bindings(multiStatement.sqliteStatement) }
        for info in typeIds.values { flushHourRun(of: info) }
        hourRuns.removeAll()
        try db.execute(sql: "UPDATE store_state SET change_seq = ? WHERE id = 1", arguments: [seq])
        // A decade adds hundreds of thousands of rollup rows (261k for the 500k-record benchmark export), after the
        // last sample, on the writer: one prepared statement bound with the C API, in key order (appends to the
        // table's b-tree instead of random inserts). Through GRDB's arguments in hash order this was 5.7 % of an
        // import's CPU (`perf`, 2026-11-24). The statement is `StepStore.addToRollup`'s.
        let upsert = try db.makeStatement(sql: """
            INSERT INTO sample_hour (type_id, hour, sum, count) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (type_id, hour) DO UPDATE SET sum = sum + excluded.sum, count = count + excluded.count
            """)
        let s = upsert.sqliteStatement
        for (key, totals) in hours.sorted(by: { ($0.key.typeId, $0.key.hour) < ($1.key.typeId, $1.key.hour) }) {
            sqlite3_bind_int64(s, 1, key.typeId)
            sqlite3_bind_int64(s, 2, key.hour)
            sqlite3_bind_double(s, 3, totals.sum)
            sqlite3_bind_int64(s, 4, Int64(totals.count))
            let code = sqlite3_step(s)
            sqlite3_reset(s)
            guard code == SQLITE_DONE else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: upsert.sql)
            }
        }
        return summary
    }

    /// A row of the hourly rollup.
    private struct HourKey: Hashable {
        var typeId: Int64
        var hour: Int64
    }
}

extension StepStore {
    /// Runs `body` in one write transaction with a ``SampleInserter``: everything it inserts commits together, or,
    /// if `body` throws, nothing does. This is how an import stays all-or-nothing.
    public func insertSamples<T>(_ body: (inout SampleInserter) throws -> T) throws -> (T, InsertSummary) {
        try dbWriter.writeWithoutTransaction { db in
            var result: (T, InsertSummary)?
            try db.inTransaction(.immediate) {
                var inserter = try SampleInserter(db: db)
                let value = try body(&inserter)
                result = (value, try inserter.finish())
                return .commit
            }
            return result!
        }
    }

    /// Inserts `samples` in one transaction, skipping those whose uuid is already stored.
    @discardableResult
    public func insert(_ samples: some Sequence<HealthSample>) throws -> InsertSummary {
        try insertSamples { inserter in
            // In batches, so the multi-row statement does the work and memory stays bounded for any sequence.
            var batch: [HealthSample] = []
            batch.reserveCapacity(1024)
            for sample in samples {
                batch.append(sample)
                if batch.count == 1024 {
                    try inserter.insert(contentsOf: batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            try inserter.insert(contentsOf: batch)
        }.1
    }

    /// The id of a sample type, optionally creating it. `nil` when it is unknown and `create` is false.
    static func typeId(of type: SampleType, in db: Database, create: Bool) throws -> Int64? {
        let select = try db.cachedStatement(sql: "SELECT id FROM sample_type WHERE identifier = ?")
        if let id = try Int64.fetchOne(select, arguments: [type.rawValue]) {
            return id
        }
        guard create else { return nil }
        try db.execute(sql: "INSERT INTO sample_type (identifier) VALUES (?)", arguments: [type.rawValue])
        return db.lastInsertedRowID
    }
}
