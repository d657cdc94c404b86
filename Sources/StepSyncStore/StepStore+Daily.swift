import GRDB
import StepSyncCore

extension StepStore {
    /// Daily step totals that count a walk recorded by two devices once (``DailyStepTotals``), for `stepsync stats
    /// --daily`: the same function the sink answers `GET /steps/daily` with.
    ///
    /// One read transaction, two queries: the longest step sample's duration (which bounds how far before the first
    /// day a sample overlapping it can start), then the step samples starting in `[first day − longest, last day)`,
    /// in start order from the `(type_id, start_ms, …)` index, streamed row by row into the sweep. Memory is bounded
    /// by the samples that overlap one another and by the number of days, not by the history.
    ///
    /// - Throws: a GRDB error when the store cannot be read; ``DailyStepsError`` if it holds an invalid step sample.
    public func dailyStepTotals(_ request: DailyStepsRequest) throws -> DailyStepsResult {
        var totals = DailyStepTotals(request: request)
        let span = totals.span
        return try dbWriter.read { db in
            guard let typeId = try Self.typeId(of: .stepCount, in: db, create: false),
                  let longest = try Self.longestDuration(db, typeId: typeId)
            else { return try totals.finish() }
            let rows = try Row.fetchCursor(db, sql: """
                SELECT start_ms, end_ms, value, device_name FROM sample INDEXED BY sample_type_start
                WHERE type_id = ? AND start_ms >= ? AND start_ms < ? AND end_ms >= ?
                ORDER BY start_ms
                """, arguments: [typeId, span.start - longest, span.end, span.start])
            while let row = try rows.next() {
                try totals.add(DailyStepTotals.Sample(startMs: row[0], endMs: row[1], value: row[2], deviceName: row[3]))
            }
            return try totals.finish()
        }
    }

    /// The longest duration (ms) of a sample of `type`, or `nil` when the store holds none.
    public func longestDuration(of type: SampleType) throws -> Int64? {
        try dbWriter.read { db in
            guard let typeId = try Self.typeId(of: type, in: db, create: false) else { return nil }
            return try Self.longestDuration(db, typeId: typeId)
        }
    }

    static func longestDuration(_ db: Database, typeId: Int64) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT MAX(end_ms - start_ms) FROM sample WHERE type_id = ?", arguments: [typeId])
    }
}
