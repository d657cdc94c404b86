/// What one run of the ``LayeringEngine`` produced.
public struct LayeringResult: Hashable, Sendable {
    /// The new intervals, oldest first, contiguous, `pending`, with id 0 (the ledger assigns ids).
    public var intervals: [SyncInterval]
    /// How many statistics queries (``StatisticsSource/statistics(in:bucketMs:)`` and ``StatisticsSource/total(in:)``)
    /// the run issued.
    public var queries: Int
    /// The steps in the new intervals.
    public var steps: Double
    /// The samples in the new intervals.
    public var samples: Int

    /// Creates a result.
    public init(intervals: [SyncInterval], queries: Int) {
        self.intervals = intervals
        self.queries = queries
        self.steps = intervals.reduce(0) { $0 + $1.steps }
        self.samples = intervals.reduce(0) { $0 + $1.samples }
    }

    /// How many of the new intervals are oversize (over a limit because their content cannot be split).
    public var oversize: Int { intervals.lazy.filter(\.oversize).count }

    /// The new interval with the most steps, if any.
    public var largest: SyncInterval? { intervals.max { $0.steps < $1.steps } }

    /// The range the new intervals cover, if any.
    public var range: TimeRange? {
        guard let first = intervals.first, let last = intervals.last else { return nil }
        return TimeRange(start: first.range.start, end: last.range.end)
    }
}
