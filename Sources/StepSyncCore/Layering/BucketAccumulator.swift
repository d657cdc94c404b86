/// Gathers the rows of an ordered scan into ``StatisticsBucket``s on a grid: the one bucketing of the store's
/// statistics, whether the rows are samples (a value and a count of one each) or hourly rollups (a sum and a count).
///
/// Rows must come in order of their bucket; a bucket is emitted once the scan moves past it, empty ones never.
public struct BucketAccumulator: Sendable {
    /// The first millisecond of the grid.
    public let origin: Int64
    /// The width of a bucket, in milliseconds.
    public let bucketMs: Int64
    /// The buckets completed so far (the current one is added by ``finish()``).
    public private(set) var buckets: [StatisticsBucket] = []
    private var current = Int64.min
    private var sum = 0.0
    private var count = 0

    /// An empty accumulator on the grid `origin + k × bucketMs`.
    public init(origin: Int64, bucketMs: Int64) {
        self.origin = origin
        self.bucketMs = bucketMs
    }

    /// Adds `sum` over `count` samples at instant `at` (a sample's start, or an hour's first millisecond).
    @inline(__always)
    public mutating func add(at: Int64, sum: Double, count: Int) {
        let index = (at - origin) / bucketMs
        if index != current {
            flush()
            current = index
        }
        self.sum += sum
        self.count += count
    }

    /// The buckets, the current one included; the accumulator is empty afterwards.
    public mutating func finish() -> [StatisticsBucket] {
        flush()
        current = .min
        defer { buckets = [] }
        return buckets
    }

    private mutating func flush() {
        if count > 0 { buckets.append(StatisticsBucket(start: origin + current * bucketMs, sum: sum, count: count)) }
        sum = 0
        count = 0
    }
}
