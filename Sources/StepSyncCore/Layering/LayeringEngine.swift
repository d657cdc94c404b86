/// Partitions a history into contiguous ≤ `maxSteps`, ≤ `maxSamples` sync intervals, from statistics queries only.
///
/// The engine sees the store through ``StatisticsSource`` — bucketed sums and counts, never raw samples — and walks
/// a fixed-length UTC grid of layers, coarse to fine (``layers``: 28 days → 1 day → 1 hour → 1 minute → 1 second →
/// 1 millisecond). It packs buckets greedily into the open interval, oldest first; a bucket that does not fit (over
/// a limit on its own, or over what the open interval has left) is refined into finer buckets, so that every cut
/// lands as late as it can: the result is the greedy packing of the millisecond buckets, which is the fewest
/// intervals any partition into time ranges can have. See `Planning/layering.md` for the invariants and the
/// complexity.
///
/// Refinements are batched: one query refines a run of adjacent buckets, straight to the finest layer whose answer
/// is known to hold at most ``maxBucketsPerQuery`` buckets (a bucket of *n* samples has at most *n* non-empty
/// children on any grid), so a dense decade costs two scans of the store and a few hundred queries, and memory stays
/// bounded by the layer count times ``maxBucketsPerQuery`` buckets.
///
/// ```swift
/// let result = try LayeringEngine(maxSteps: 10_000).layer(store.statisticsSource(for: .stepCount), type: .stepCount)
/// ```
public struct LayeringEngine: Hashable, Sendable {
    /// The layers' bucket lengths in milliseconds, coarse to fine. Each divides the one before, and all are fixed
    /// lengths of UTC time, so no daylight-saving change can create or remove an hour.
    public static let layers: [Int64] = [28 * Milliseconds.day, Milliseconds.day, Milliseconds.hour,
                                         Milliseconds.minute, Milliseconds.second, 1]

    /// The instants a fresh run looks at: about ±73 million years around 1970, aligned on the coarsest layer.
    public static let domain = TimeRange(start: floorMultiple(-(1 << 61), of: layers[0]), end: 1 << 61)

    /// The most steps (the largest sum of values) an interval may hold unless its content cannot be split; infinite
    /// for a type bounded by its sample count only (see ``LayeringLimits``).
    public let maxSteps: Double
    /// The most samples an interval may hold unless its content cannot be split.
    public let maxSamples: Int
    /// The answer size the engine aims for per statistics query (the memory bound of a query, unless below the
    /// ratio between two layers, see ``init(maxSteps:maxSamples:maxBucketsPerQuery:)``).
    public let maxBucketsPerQuery: Int

    /// Creates an engine with the given limits.
    ///
    /// - Parameters:
    ///   - maxSteps: the sum limit of an interval (> 0; `.infinity` for a type bounded by its sample count only).
    ///   - maxSamples: the sample limit of an interval (> 0).
    ///   - maxBucketsPerQuery: the answer size to aim for per query (≥ 1). A refinement goes to the finest layer
    ///     whose answer is known to stay within it, but always at least one layer down (so an answer may exceed a
    ///     budget below 1,000, the largest ratio between two layers). Large budgets mean few queries that read much;
    ///     small ones many queries that read little (only the buckets where a cut must land are refined).
    public init(maxSteps: Double = 10_000, maxSamples: Int = 5_000, maxBucketsPerQuery: Int = 16_384) {
        precondition(maxSteps > 0, "maxSteps must be a positive number (or infinity)")
        precondition(maxSamples > 0, "maxSamples must be positive")
        precondition(maxBucketsPerQuery >= 1, "maxBucketsPerQuery must be positive")
        self.maxSteps = maxSteps
        self.maxSamples = maxSamples
        self.maxBucketsPerQuery = maxBucketsPerQuery
    }

    /// Layers the samples of `source` starting at or after `from` (the whole history when `nil`).
    ///
    /// A fresh run's first interval starts at the first sample; an appending run's first interval starts exactly at
    /// `from` (pass the ledger's last end, so the ledger stays contiguous). The last interval ends one millisecond
    /// after the last sample's start, so samples recorded later fall after it.
    ///
    /// - Returns: the intervals (`pending`, id 0) and the number of statistics queries issued. No samples → none.
    /// - Throws: whatever the source throws.
    public func layer(_ source: some StatisticsSource, type: SampleType = .stepCount, from: Int64? = nil) throws
        -> LayeringResult
    {
        let start = from ?? Self.domain.start
        guard start < Self.domain.end else { return LayeringResult(intervals: [], queries: 0) }
        var run = LayeringRun(source: source, engine: self,
                              packer: IntervalPacker(maxSteps: maxSteps, maxSamples: maxSamples, type: type, start: from))
        try run.layer(TimeRange(start: start, end: Self.domain.end))
        return LayeringResult(intervals: run.packer.finish(), queries: run.queries)
    }

    /// The largest multiple of `length` (> 0) at or before `instant`: the grid line of a UTC layer at or before it.
    public static func floorMultiple(_ instant: Int64, of length: Int64) -> Int64 {
        let q = instant / length
        return (instant % length != 0 && instant < 0 ? q - 1 : q) * length
    }
}
