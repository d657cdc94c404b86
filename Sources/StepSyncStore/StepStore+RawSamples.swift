import Foundation
import GRDB
import GRDBSQLite
import StepSyncCore

extension StepStore {
    /// One page of the samples of `type` whose start lies in `range`, in `(start, uuid)` order, after `cursor`.
    ///
    /// Paging is by key (no OFFSET), so every page costs the same whatever its position, and a range of any size is
    /// read with memory bounded by `limit`.
    public func samplePage(
        of type: SampleType,
        in range: TimeRange,
        after cursor: SampleCursor? = nil,
        limit: Int
    ) throws -> [HealthSample] {
        try dbWriter.read { db in try Self.samplePage(db, of: type, in: range, after: cursor, limit: limit) }
    }

    /// Calls `body` with each page of the samples of `type` in `range`, in `(start, uuid)` order.
    public func forEachSamplePage(
        of type: SampleType,
        in range: TimeRange,
        pageSize: Int = 5_000,
        _ body: ([HealthSample]) throws -> Void
    ) throws {
        var cursor: SampleCursor?
        while true {
            let page = try samplePage(of: type, in: range, after: cursor, limit: pageSize)
            if page.isEmpty { return }
            try body(page)
            guard page.count == pageSize, let last = page.last else { return }
            cursor = SampleCursor(startMs: last.startMs, uuid: last.uuid)
        }
    }

    static func samplePage(
        _ db: Database,
        of type: SampleType,
        in range: TimeRange,
        after cursor: SampleCursor?,
        limit: Int,
        seqAfter: Int64? = nil,
        seqThrough: Int64? = nil
    ) throws -> [HealthSample] {
        guard let typeId = try typeId(of: type, in: db, create: false) else { return [] }
        // A sequence window (a delta interval) scans the rowid range of what changed; a plain range uses the index.
        // Every value is a bound argument, so the few shapes of this query are prepared once per connection
        // (`cachedStatement`) however many intervals are read.
        let (statement, arguments) = try samplePageStatement(db, typeId: typeId, in: range, after: cursor, limit: limit,
                                                             seqAfter: seqAfter, seqThrough: seqThrough)
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        var page: [HealthSample] = []
        page.reserveCapacity(min(limit, 256))  // grows as needed: most intervals hold far fewer than `limit`
        // The columns are read with the SQLite C API from the row the cursor stepped to (GRDB steps, resets and
        // reports errors): no `Row` subscripts and their generic decoding per column, and the text columns —
        // the same source, unit and device for long runs of samples — become `String`s only when their bytes
        // differ from the previous row's (`TextColumn`). Figures in `Planning/sync.md`.
        let s = statement.sqliteStatement
        var unit = TextColumn(), name = TextColumn(), bundle = TextColumn()
        var version = TextColumn(), device = TextColumn(), model = TextColumn()
        while let row = try rows.next() {
            let uuid = SampleRowReader.uuid(s, row: row)
            page.append(HealthSample(
                uuid: uuid,
                type: type,
                startMs: sqlite3_column_int64(s, 1),
                endMs: sqlite3_column_int64(s, 2),
                utcOffsetSeconds: sqlite3_column_type(s, 3) == SQLITE_NULL
                    ? nil : Int32(truncatingIfNeeded: sqlite3_column_int64(s, 3)),
                value: sqlite3_column_double(s, 4),
                unit: unit.string(s, 5) ?? "",
                sourceName: name.string(s, 6) ?? "",
                sourceBundleId: bundle.string(s, 7) ?? "",
                sourceVersion: version.string(s, 8),
                deviceName: device.string(s, 9),
                deviceModel: model.string(s, 10),
                details: sqlite3_column_type(s, 11) == SQLITE_NULL ? nil : TextColumn.text(s, 11)))
        }
        return page
    }
}

/// One text column of a page's rows: the previous row's bytes and `String`, reused while the bytes repeat.
private struct TextColumn {
    private var bytes: [UInt8] = []
    private var value: String?
    private var isNull = true
    private var started = false

    /// The column's text in the current row of `s` (`nil` for NULL).
    @inline(__always)
    mutating func string(_ s: SQLiteStatement, _ column: CInt) -> String? {
        if sqlite3_column_type(s, column) == SQLITE_NULL {
            started = true
            isNull = true
            value = nil
            return nil
        }
        let text = sqlite3_column_text(s, column)
        let count = Int(sqlite3_column_bytes(s, column))
        let raw = UnsafeRawBufferPointer(start: text, count: count)
        if started, !isNull, count == bytes.count,
           count == 0 || bytes.withUnsafeBytes({ memcmp($0.baseAddress!, raw.baseAddress!, count) }) == 0 {
            return value
        }
        started = true
        isNull = false
        bytes = Array(raw)
        let string = String(decoding: raw, as: UTF8.self)
        value = string
        return string
    }

    /// The column's text in the current row of `s` (not NULL), as a new `String`.
    static func text(_ s: SQLiteStatement, _ column: CInt) -> String {
        let text = sqlite3_column_text(s, column)
        return String(decoding: UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(s, column))),
                      as: UTF8.self)
    }
}
