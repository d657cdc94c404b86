import GRDB
import StepSyncCore

extension StepStore {
    /// Daily step totals that count a walk recorded by two devices once (``DailyStepTotals``), for `stepsync stats
    /// --daily`: the same function the sink answers `GET /steps/daily` with.
    ///
    /// One read transaction, two queries: a bound on the step samples' durations (``durationBound(of:)``, which
    /// bounds how far before the first day a sample overlapping it can start), then the step samples starting in
    /// `[first day − bound, last day)`, in start order from the `(type_id, start_ms, …)` index, streamed row by row
    /// into the sweep. Memory is bounded by the samples that overlap one another and by the number of days, not by
    /// the history.
    ///
    /// - Throws: a GRDB error when the store cannot be read; ``DailyStepsError`` if it holds an invalid step sample.
    public func dailyStepTotals(_ request: DailyStepsRequest) throws -> DailyStepsResult {
        var totals = DailyStepTotals(request: request)
        let span = totals.span
        return try dbWriter.read { db in
            guard let typeId = try Self.typeId(of: .stepCount, in: db, create: false) else { return try totals.finish() }
            let lookBack = try Self.durationBound(db, typeId: typeId)
            let rows = try Row.fetchCursor(db, sql: """
                SELECT start_ms, end_ms, value, device_name FROM sample INDEXED BY sample_type_start
                WHERE type_id = ? AND start_ms >= ? AND start_ms < ? AND end_ms >= ?
                ORDER BY start_ms
                """, arguments: [typeId, span.start - lookBack, span.end, span.start])
            while let row = try rows.next() {
                try totals.add(DailyStepTotals.Sample(startMs: row[0], endMs: row[1], value: row[2], deviceName: row[3]))
            }
            return try totals.finish()
        }
    }

    /// Samples longer than this are kept in the partial index `sample_long_duration` (migration v4).
    static let longSampleMs: Int64 = 3_600_000

    /// Migration v4: the partial index of samples longer than an hour (registered by `StepStore.migrator`).
    static func registerLongSampleIndexMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4: index of samples longer than an hour") { db in
            // Bounds the look-back of daily step totals (a sample overlapping the first day may start before it):
            // MAX(end_ms - start_ms) of one type read from this index in microseconds, where reading the table took
            // 0.4–1.5 s on a decade. Samples over an hour are rare (39 of 624k in the realistic decade), so the index
            // costs next to nothing to keep. The condition must stay `end_ms - start_ms > 3600000`: SQLite uses a
            // partial index only for queries repeating its condition (``durationBound(_:typeId:)``).
            try db.execute(sql: """
                CREATE INDEX sample_long_duration ON sample(type_id, end_ms - start_ms)
                WHERE end_ms - start_ms > 3600000
                """)
        }
    }

    /// An upper bound of the duration (ms) of every sample of `type`: the longest sample over an hour, else one hour.
    ///
    /// Read from the partial index of samples longer than an hour (a few in any history) in microseconds; the exact
    /// maximum would read every row of the type (1.5 s on a decade).
    public func durationBound(of type: SampleType) throws -> Int64 {
        try dbWriter.read { db in
            guard let typeId = try Self.typeId(of: type, in: db, create: false) else { return Self.longSampleMs }
            return try Self.durationBound(db, typeId: typeId)
        }
    }

    static func durationBound(_ db: Database, typeId: Int64) throws -> Int64 {
        // The condition repeats the index's word for word, as SQLite needs to use a partial index.
        let longest = try Int64.fetchOne(db, sql: """
            SELECT MAX(end_ms - start_ms) FROM sample INDEXED BY sample_long_duration
            WHERE type_id = ? AND end_ms - start_ms > 3600000
            """, arguments: [typeId])
        return max(longest ?? 0, longSampleMs)
    }
}
