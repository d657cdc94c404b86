import GRDB
import StepSyncCore

/// What the store holds of one type from one source: `stepsync stats`.
public struct SourceSummary: Hashable, Sendable, Codable {
    /// The type identifier.
    public var type: String
    /// The source name.
    public var source: String
    /// The number of samples.
    public var samples: Int
    /// The sum of their values.
    public var sum: Double
    /// The earliest sample start (UTC ms).
    public var firstStartMs: Int64
    /// The latest sample start (UTC ms).
    public var lastStartMs: Int64
}

extension StepStore {
    /// The non-empty buckets of `[range.start, range.end)` on a grid of `bucketMs` aligned on `range.start`.
    ///
    /// A sample belongs to the bucket that holds its start, with its whole value (no pro-rating).
    public func statistics(of type: SampleType, in range: TimeRange, bucketMs: Int64) throws -> [StatisticsBucket] {
        precondition(bucketMs > 0, "bucketMs must be positive")
        return try dbWriter.read { db in
            guard let typeId = try Self.typeId(of: type, in: db, create: false) else { return [] }
            return try Self.statistics(db, typeId: typeId, in: range, bucketMs: bucketMs)
        }
    }

    /// The statistics query itself: from the hourly rollup when the buckets are whole hours aligned on hours, else
    /// one scan of the samples.
    static func statistics(_ db: Database, typeId: Int64, in range: TimeRange, bucketMs: Int64) throws
        -> [StatisticsBucket]
    {
        if range.start % rollupMs == 0 && bucketMs % rollupMs == 0 {
            return try rollupStatistics(db, typeId: typeId, in: range, bucketMs: bucketMs)
        }
        return try scanStatistics(db, typeId: typeId, in: range, bucketMs: bucketMs)
    }

    /// Statistics from one ordered scan of the time index (`sample_type_start` covers start and value), bucketed as
    /// it goes — no sort, no temporary table.
    static func scanStatistics(_ db: Database, typeId: Int64, in range: TimeRange, bucketMs: Int64) throws
        -> [StatisticsBucket]
    {
        let statement = try db.cachedStatement(sql: """
            SELECT start_ms, value FROM sample INDEXED BY sample_type_start
            WHERE type_id = ? AND start_ms >= ? AND start_ms < ? ORDER BY start_ms
            """)
        statement.setUncheckedArguments([typeId, range.start, range.end])
        let rows = try Row.fetchCursor(statement)
        var buckets = BucketAccumulator(origin: range.start, bucketMs: bucketMs)
        while let row = try rows.next() { buckets.add(at: row[0], sum: row[1], count: 1) }
        return buckets.finish()
    }

    /// The sum and count of the samples of `type` starting in `range`, as one bucket starting at `range.start`.
    public func total(of type: SampleType, in range: TimeRange) throws -> StatisticsBucket {
        try dbWriter.read { db in
            guard let typeId = try Self.typeId(of: type, in: db, create: false) else {
                return StatisticsBucket(start: range.start, sum: 0, count: 0)
            }
            let row = try Row.fetchOne(db, sql: """
                SELECT TOTAL(value), COUNT(*) FROM sample INDEXED BY sample_type_start
                WHERE type_id = ? AND start_ms >= ? AND start_ms < ?
                """, arguments: [typeId, range.start, range.end])!
            return StatisticsBucket(start: range.start, sum: row[0], count: row[1])
        }
    }

    /// The earliest and latest sample start of `type`, or `nil` when the store holds none.
    public func bounds(of type: SampleType) throws -> (first: Int64, last: Int64)? {
        try dbWriter.read { db in
            guard let typeId = try Self.typeId(of: type, in: db, create: false),
                  let row = try Row.fetchOne(db, sql: """
                      SELECT MIN(start_ms), MAX(start_ms) FROM sample WHERE type_id = ?
                      """, arguments: [typeId]),
                  let first = row[0] as Int64?, let last = row[1] as Int64?
            else { return nil }
            return (first, last)
        }
    }

    /// Samples, sums and date span per type and source, ordered by type then source.
    public func sourceSummaries() throws -> [SourceSummary] {
        try dbWriter.read { db in
            try Row.fetchAll(db, sql: """
                SELECT t.identifier, s.source_name, COUNT(*), TOTAL(s.value), MIN(s.start_ms), MAX(s.start_ms)
                FROM sample s JOIN sample_type t ON t.id = s.type_id
                GROUP BY s.type_id, s.source_name ORDER BY t.identifier, s.source_name
                """).map { row in
                SourceSummary(type: row[0], source: row[1], samples: row[2], sum: row[3],
                              firstStartMs: row[4], lastStartMs: row[5])
            }
        }
    }

    /// A ``StatisticsSource`` over one type of this store: what the layering engine is handed.
    public func statisticsSource(for type: SampleType) -> some StatisticsSource & Sendable {
        StoreStatisticsSource(store: self, type: type)
    }
}

/// The store seen through statistics queries only, for one type.
struct StoreStatisticsSource: StatisticsSource, Sendable {
    let store: StepStore
    let type: SampleType

    func statistics(in range: TimeRange, bucketMs: Int64) throws -> [StatisticsBucket] {
        try store.statistics(of: type, in: range, bucketMs: bucketMs)
    }

    func total(in range: TimeRange) throws -> StatisticsBucket {
        try store.total(of: type, in: range)
    }
}

extension StepStore {
    /// Every sample type the store has held, by identifier (a type stays known after its samples are deleted).
    public func sampleTypes() throws -> [SampleType] {
        try dbWriter.read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM sample_type ORDER BY identifier").map(SampleType.init(rawValue:))
        }
    }
}

extension StepStore {
    /// Count, sum, minimum, maximum, total duration and date span per type, source and unit, ordered that way: one
    /// scan of the samples.
    public func sampleStatistics() throws -> [SampleStatistics] {
        try dbWriter.read { db in
            try Row.fetchAll(db, sql: """
                SELECT t.identifier, s.source_name, s.unit, COUNT(*), TOTAL(s.value), MIN(s.value), MAX(s.value),
                       TOTAL(s.end_ms - s.start_ms), MIN(s.start_ms), MAX(s.start_ms)
                FROM sample s JOIN sample_type t ON t.id = s.type_id
                GROUP BY s.type_id, s.source_name, s.unit ORDER BY t.identifier, s.source_name, s.unit
                """).map { row in
                SampleStatistics(type: SampleType(row[0] as String), source: row[1], unit: row[2], samples: row[3],
                                 sum: row[4], minimum: row[5], maximum: row[6], durationMs: Int64(row[7] as Double),
                                 firstStartMs: row[8], lastStartMs: row[9])
            }
        }
    }
}
