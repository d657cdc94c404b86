import Foundation
import GRDB
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
        let windowed = seqAfter != nil || seqThrough != nil
        let window = windowed ? "seq > ? AND seq <= ? AND " : ""
        let byRowid = (seqAfter ?? 0) > 0
        let columns = """
            SELECT uuid, start_ms, end_ms, utc_offset, value, unit, source_name, source_bundle_id,
                   source_version, device_name, device_model, details
            FROM sample \(byRowid ? "NOT INDEXED" : "INDEXED BY sample_type_start")
            """
        var arguments: StatementArguments = windowed ? [seqAfter ?? 0, seqThrough ?? .max] : []
        let statement: Statement
        if let cursor {
            statement = try db.cachedStatement(sql: """
                \(columns)
                WHERE \(window)type_id = ? AND start_ms < ? AND (start_ms, uuid) > (?, ?) AND start_ms >= ?
                ORDER BY start_ms, uuid LIMIT ?
                """)
            arguments += [typeId, range.end, cursor.startMs, cursor.uuid, range.start, limit]
        } else {
            statement = try db.cachedStatement(sql: """
                \(columns)
                WHERE \(window)type_id = ? AND start_ms >= ? AND start_ms < ?
                ORDER BY start_ms, uuid LIMIT ?
                """)
            arguments += [typeId, range.start, range.end, limit]
        }
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        var page: [HealthSample] = []
        page.reserveCapacity(min(limit, 256))  // grows as needed: most intervals hold far fewer than `limit`
        while let row = try rows.next() {
            page.append(HealthSample(
                uuid: row[0],
                type: type,
                startMs: row[1],
                endMs: row[2],
                utcOffsetSeconds: (row[3] as Int64?).map { Int32(truncatingIfNeeded: $0) },
                value: row[4],
                unit: row[5],
                sourceName: row[6],
                sourceBundleId: row[7],
                sourceVersion: row[8],
                deviceName: row[9],
                deviceModel: row[10],
                details: row[11]))
        }
        return page
    }
}
