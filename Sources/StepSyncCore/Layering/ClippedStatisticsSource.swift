/// A statistics source that sees nothing at or after `end`: the deltas of already-layered ranges only.
public struct ClippedStatisticsSource<Base: StatisticsSource>: StatisticsSource {
    /// The source clipped.
    public let base: Base
    /// The first instant the clipped source no longer sees.
    public let end: Int64

    /// Clips `base` to the instants before `end`.
    public init(base: Base, end: Int64) {
        self.base = base
        self.end = end
    }

    public func statistics(in range: TimeRange, bucketMs: Int64) throws -> [StatisticsBucket] {
        guard range.start < end else { return [] }
        return try base.statistics(in: TimeRange(start: range.start, end: min(range.end, end)), bucketMs: bucketMs)
    }

    public func total(in range: TimeRange) throws -> StatisticsBucket {
        guard range.start < end else { return StatisticsBucket(start: range.start, sum: 0, count: 0) }
        return try base.total(in: TimeRange(start: range.start, end: min(range.end, end)))
    }
}
