/// What the layering engine may ask of a sample store: statistics, never raw samples.
///
/// This mirrors HealthKit's `HKStatisticsCollectionQuery`: bucketed sums over a time range on a fixed grid.
/// `StepStore` conforms (see `StepStore+Statistics.swift`); tests hand the engine sources that count queries or
/// that have no way to return raw samples at all.
public protocol StatisticsSource {
    /// The non-empty buckets of `[range.start, range.end)` for buckets of `bucketMs` milliseconds, oldest first.
    ///
    /// Buckets are aligned on `range.start`: bucket *i* is `[range.start + i·bucketMs, range.start + (i+1)·bucketMs)`,
    /// clipped to `range.end`. A sample belongs to the bucket holding its start. Buckets without samples are omitted.
    func statistics(in range: TimeRange, bucketMs: Int64) throws -> [StatisticsBucket]

    /// The sum and count of the samples starting in `range`.
    func total(in range: TimeRange) throws -> StatisticsBucket
}
