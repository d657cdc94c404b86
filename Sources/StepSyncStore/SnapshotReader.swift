import GRDB
import GRDBSQLite
import StepSyncCore

/// The statistics queries of one layering snapshot (``StoreLayeringSnapshot``): two statements prepared once and
/// stepped with the SQLite C API, and the rows of the last read of each kept to answer a finer query inside it.
///
/// The layering engine refines where a cut must land: a 28-day bucket into days, a day into hours (both from the
/// hourly rollup), an hour into minutes and a minute into milliseconds (both from the samples). Each refinement
/// asks about a range the query before it has just read, so it is answered from the rows kept here, without
/// SQLite; only a query outside the kept span runs a statement. At most ``keptRows`` rows of each kind are kept
/// (a read holding more is streamed and not kept), so memory stays bounded whatever the history.
///
/// Answers equal those of ``StepStore/statistics(_:typeId:in:bucketMs:)`` bucket for bucket: the same rows, summed
/// in the same order. See `Planning/layering.md` for the figures.
///
/// Only valid inside the read transaction that created it.
final class SnapshotReader {
    /// The most rows of each kind kept after a read, by default (≈ 1 MB of samples).
    static let defaultKeptRows = 1 << 16

    /// The most rows of each kind kept after a read.
    let keptRows: Int

    private let db: Database
    /// `SELECT start_ms, value` of one type in a time range, in start order (index only).
    private let scan: Statement
    /// `SELECT hour, sum, count` of one type's rollup in an hour range, in hour order.
    private let rollup: Statement

    /// The samples of `typeId` starting in `span`, all of them, in start order.
    private var samples = KeptRows<Double>()
    /// The rollup rows of `typeId` for the hours in `span`, all of them, in hour order.
    private var hours = KeptRows<HourTotal>()

    /// Statements run so far (queries answered from kept rows are not counted).
    private(set) var statementsRun = 0

    init(db: Database, keptRows: Int = SnapshotReader.defaultKeptRows) throws {
        self.db = db
        self.keptRows = keptRows
        scan = try db.makeStatement(sql: """
            SELECT start_ms, value FROM sample INDEXED BY sample_type_start
            WHERE type_id = ? AND start_ms >= ? AND start_ms < ? ORDER BY start_ms
            """)
        rollup = try db.makeStatement(sql: """
            SELECT hour, sum, count FROM sample_hour WHERE type_id = ? AND hour >= ? AND hour < ? ORDER BY hour
            """)
    }

    /// The non-empty buckets of `range` on a grid of `bucketMs` aligned on `range.start` (the rule of
    /// ``StatisticsSource``): whole hours aligned on hours from the rollup, anything else from the samples.
    func statistics(typeId: Int64, in range: TimeRange, bucketMs: Int64) throws -> [StatisticsBucket] {
        var grid = BucketGrid(start: range.start, bucketMs: bucketMs)
        let rollupMs = StepStore.rollupMs
        if range.start % rollupMs == 0 && bucketMs % rollupMs == 0 {
            let wholeEnd = LayeringEngine.floorMultiple(range.end, of: rollupMs)
            if wholeEnd > range.start {
                try readHours(typeId: typeId, from: range.start / rollupMs, to: wholeEnd / rollupMs) { hour, sum, count in
                    grid.add(at: hour * rollupMs, sum: sum, count: count)
                }
            }
            if wholeEnd < range.end {
                // The tail after the last whole hour, from the samples, summed first, into the bucket holding it
                // (as `StepStore.rollupStatistics` does).
                var tailSum = 0.0, tailCount = 0
                try readSamples(typeId: typeId, from: max(wholeEnd, range.start), to: range.end) { _, value in
                    tailSum += value
                    tailCount += 1
                }
                if tailCount > 0 { grid.add(at: max(wholeEnd, range.start), sum: tailSum, count: tailCount) }
            }
        } else {
            try readSamples(typeId: typeId, from: range.start, to: range.end) { start, value in
                grid.add(at: start, sum: value, count: 1)
            }
        }
        return grid.finish()
    }

    // MARK: - Reading rows

    /// Calls `body` with each sample (start, value) of `typeId` starting in `[from, to)`, in start order.
    private func readSamples(typeId: Int64, from: Int64, to: Int64, _ body: (Int64, Double) -> Void) throws {
        guard from < to else { return }
        if samples.replay(typeId: typeId, from: from, to: to, body) { return }
        var kept = KeptRows<Double>(typeId: typeId, from: from, to: to)
        try run(scan, typeId, from, to) { s in
            let start = sqlite3_column_int64(s, 0), value = sqlite3_column_double(s, 1)
            body(start, value)
            kept.append(start, value, limit: keptRows)
        }
        if kept.complete { samples = kept }
    }

    /// Calls `body` with each rollup row (hour, sum, count) of `typeId` for the hours in `[from, to)`, in order.
    private func readHours(typeId: Int64, from: Int64, to: Int64, _ body: (Int64, Double, Int) -> Void) throws {
        if hours.replay(typeId: typeId, from: from, to: to, { body($0, $1.sum, $1.count) }) { return }
        var kept = KeptRows<HourTotal>(typeId: typeId, from: from, to: to)
        try run(rollup, typeId, from, to) { s in
            let hour = sqlite3_column_int64(s, 0), sum = sqlite3_column_double(s, 1)
            let count = Int(sqlite3_column_int64(s, 2))
            body(hour, sum, count)
            kept.append(hour, HourTotal(sum: sum, count: count), limit: keptRows)
        }
        if kept.complete { hours = kept }
    }

    /// Binds three integers to `statement` and calls `row` for each row it returns.
    private func run(_ statement: Statement, _ a: Int64, _ b: Int64, _ c: Int64,
                     row: (OpaquePointer) -> Void) throws {
        statementsRun += 1
        let s = statement.sqliteStatement
        sqlite3_reset(s)
        sqlite3_bind_int64(s, 1, a)
        sqlite3_bind_int64(s, 2, b)
        sqlite3_bind_int64(s, 3, c)
        while true {
            let code = sqlite3_step(s)
            if code == SQLITE_ROW {
                row(s)
            } else if code == SQLITE_DONE {
                break
            } else {
                sqlite3_reset(s)
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage,
                                    sql: statement.sql)
            }
        }
        sqlite3_reset(s)
    }
}

/// The index of the first element of the ascending `sorted` that is not less than `key` (`sorted.count` if none).
private func lowerBound(of key: Int64, in sorted: [Int64]) -> Int {
    var low = 0, high = sorted.count
    while low < high {
        let middle = (low + high) / 2
        if sorted[middle] < key { low = middle + 1 } else { high = middle }
    }
    return low
}

/// Rows kept from the last read of one kind: every row of `typeId` at an instant in `[from, to)`, in time order
/// (samples by start, rollup rows by hour).
private struct KeptRows<Row> {
    var typeId: Int64 = -1
    var from: Int64 = 0
    var to: Int64 = 0
    var instants: [Int64] = []
    var rows: [Row] = []
    /// False once a read held more rows than it may keep: the rows are dropped and the read is not kept.
    var complete = true

    /// Calls `body` with each kept row in `[from, to)` and returns true if the kept span covers that range;
    /// otherwise returns false and calls nothing.
    func replay(typeId: Int64, from: Int64, to: Int64, _ body: (Int64, Row) -> Void) -> Bool {
        guard self.typeId == typeId, self.from <= from, to <= self.to else { return false }
        var index = lowerBound(of: from, in: instants)
        while index < instants.count, instants[index] < to {
            body(instants[index], rows[index])
            index += 1
        }
        return true
    }

    /// Keeps a row read at `instant`, unless the read has held more than `limit` rows.
    mutating func append(_ instant: Int64, _ row: Row, limit: Int) {
        guard complete else { return }
        if instants.count < limit {
            instants.append(instant)
            rows.append(row)
        } else {
            complete = false
            instants = []
            rows = []
        }
    }
}

/// The sum and count of one rollup row.
private struct HourTotal {
    var sum: Double
    var count: Int
}

/// Sums rows arriving in time order into the non-empty buckets of a grid.
private struct BucketGrid {
    let start: Int64
    let bucketMs: Int64
    private var buckets: [StatisticsBucket] = []
    private var current = Int64.min
    private var sum = 0.0
    private var count = 0

    init(start: Int64, bucketMs: Int64) {
        self.start = start
        self.bucketMs = bucketMs
    }

    /// Adds a row at `instant` (≥ `start`, not before the previous row's bucket).
    mutating func add(at instant: Int64, sum value: Double, count n: Int) {
        let index = (instant - start) / bucketMs
        if index != current {
            flush()
            current = index
        }
        sum += value
        count += n
    }

    private mutating func flush() {
        if count > 0 { buckets.append(StatisticsBucket(start: start + current * bucketMs, sum: sum, count: count)) }
        sum = 0
        count = 0
    }

    mutating func finish() -> [StatisticsBucket] {
        flush()
        return buckets
    }
}
