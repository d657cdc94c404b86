import GRDB
import StepSyncCore

/// The hourly rollup (`sample_hour`): each type's sum and count of samples per UTC hour, by start.
///
/// Every insert and deletion updates it in its own transaction, so it always equals the samples. Statistics whose
/// buckets are whole hours aligned on hours (the layering engine's coarse layers, over the whole history) read it:
/// ≈ 53,000 rows for the realistic decade instead of 624,756 samples. See `Planning/layering.md`.
extension StepStore {
    // MARK: - Schema

    /// Registers `v6: hourly rollup`: `sample_hour`, filled from the samples a store already holds.
    static func registerHourlyRollupMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v6: hourly rollup") { db in
            // The sum and count of each type's samples per UTC hour (by start), kept by every insert and deletion in
            // the same transaction: statistics of whole hours read it instead of the samples (layering.md).
            try db.execute(sql: """
                CREATE TABLE sample_hour (
                    type_id INTEGER NOT NULL REFERENCES sample_type(id),
                    hour INTEGER NOT NULL,
                    sum REAL NOT NULL,
                    count INTEGER NOT NULL,
                    PRIMARY KEY (type_id, hour)
                ) WITHOUT ROWID;
                INSERT INTO sample_hour (type_id, hour, sum, count)
                SELECT type_id, \(hourSQL("start_ms")) AS h, TOTAL(value), COUNT(*) FROM sample
                GROUP BY type_id, h;
                """)
        }
    }

    // MARK: - Keeping it

    /// The length of a rollup bucket.
    static let rollupMs = Milliseconds.hour

    /// SQL for the hour of an instant column, rounding down for instants before 1970 too.
    static func hourSQL(_ column: String) -> String {
        "((\(column) - (((\(column) % \(rollupMs)) + \(rollupMs)) % \(rollupMs))) / \(rollupMs))"
    }

    /// The hour holding `instant` (rounding down).
    static func hour(of instant: Int64) -> Int64 {
        LayeringEngine.floorMultiple(instant, of: rollupMs) / rollupMs
    }

    /// How a new rollup row meets an existing one of its (type, hour): the sums and counts add up.
    static let rollupUpsertConflict =
        "ON CONFLICT (type_id, hour) DO UPDATE SET sum = sum + excluded.sum, count = count + excluded.count"

    /// Adds the `sum` and `count` of newly inserted samples to the rollup row of (`typeId`, `hour`).
    static func addToRollup(_ db: Database, typeId: Int64, hour: Int64, sum: Double, count: Int) throws {
        let upsert = try db.cachedStatement(
            sql: "INSERT INTO sample_hour (type_id, hour, sum, count) VALUES (?1, ?2, ?3, ?4) " + rollupUpsertConflict)
        try upsert.execute(arguments: [typeId, hour, sum, count])
    }

    /// Recomputes the rollup rows of `typeId` for the hours in `[firstHour, lastHour]` from the samples (after a
    /// deletion: exact, with no rounding left over from subtracting), dropping the hours left empty.
    static func recomputeRollup(_ db: Database, typeId: Int64, hours firstHour: Int64, through lastHour: Int64) throws {
        let clear = try db.cachedStatement(sql: "DELETE FROM sample_hour WHERE type_id = ? AND hour >= ? AND hour <= ?")
        try clear.execute(arguments: [typeId, firstHour, lastHour])
        let fill = try db.cachedStatement(sql: """
            INSERT INTO sample_hour (type_id, hour, sum, count)
            SELECT ?1, \(hourSQL("start_ms")) AS h, TOTAL(value), COUNT(*) FROM sample INDEXED BY sample_type_start
            WHERE type_id = ?1 AND start_ms >= ?2 AND start_ms < ?3 GROUP BY h
            """)
        try fill.execute(arguments: [typeId, firstHour * rollupMs, (lastHour + 1) * rollupMs])
    }

    /// Statistics of whole, hour-aligned buckets from the rollup: `range.start` and `bucketMs` are multiples of an
    /// hour. The part of the last bucket after the last whole hour before `range.end` is read from the samples.
    static func rollupStatistics(_ db: Database, typeId: Int64, in range: TimeRange, bucketMs: Int64) throws
        -> [StatisticsBucket]
    {
        precondition(range.start % rollupMs == 0 && bucketMs % rollupMs == 0, "not aligned on hours")
        let wholeEnd = LayeringEngine.floorMultiple(range.end, of: rollupMs)
        var buckets: [StatisticsBucket] = []
        if wholeEnd > range.start {
            let statement = try db.cachedStatement(sql: """
                SELECT hour, sum, count FROM sample_hour WHERE type_id = ? AND hour >= ? AND hour < ? ORDER BY hour
                """)
            statement.setUncheckedArguments([typeId, range.start / rollupMs, wholeEnd / rollupMs])
            let rows = try Row.fetchCursor(statement)
            var hours = BucketAccumulator(origin: range.start, bucketMs: bucketMs)
            while let row = try rows.next() { hours.add(at: (row[0] as Int64) * rollupMs, sum: row[1], count: row[2]) }
            buckets = hours.finish()
        }
        if wholeEnd < range.end {
            // The tail after the last whole hour, from the samples, into the bucket that holds it.
            let tail = try scanStatistics(db, typeId: typeId, in: TimeRange(start: max(wholeEnd, range.start), end: range.end),
                                      bucketMs: range.end - max(wholeEnd, range.start))
            if let part = tail.first {
                let start = range.start + (part.start - range.start) / bucketMs * bucketMs
                if buckets.last?.start == start {
                    buckets[buckets.count - 1].sum += part.sum
                    buckets[buckets.count - 1].count += part.count
                } else {
                    buckets.append(StatisticsBucket(start: start, sum: part.sum, count: part.count))
                }
            }
        }
        return buckets
    }
}
