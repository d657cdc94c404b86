import StepSyncCore

/// A ``StatisticsSource`` over a sorted array of (start, value): statistics only — it has no way to return samples —
/// and it counts the queries it answers.
final class InMemoryStatisticsSource: StatisticsSource {
    /// Sample starts, sorted.
    let starts: [Int64]
    /// Sample values, in the order of `starts`.
    let values: [Double]
    /// Statistics queries answered so far (`statistics` and `total`).
    private(set) var queries = 0
    /// The bucket lengths asked for, in order.
    private(set) var bucketLengths: [Int64] = []
    /// Buckets returned by all statistics queries so far (what a store would have read out).
    private(set) var bucketsReturned = 0

    init(_ samples: [(start: Int64, value: Double)]) {
        let sorted = samples.sorted { $0.start < $1.start }
        starts = sorted.map(\.start)
        values = sorted.map(\.value)
    }

    func statistics(in range: TimeRange, bucketMs: Int64) throws -> [StatisticsBucket] {
        queries += 1
        bucketLengths.append(bucketMs)
        var buckets: [StatisticsBucket] = []
        var i = lowerBound(range.start)
        while i < starts.count, starts[i] < range.end {
            let index = (starts[i] - range.start) / bucketMs
            let bucketStart = range.start + index * bucketMs
            if buckets.last?.start == bucketStart {
                buckets[buckets.count - 1].sum += values[i]
                buckets[buckets.count - 1].count += 1
            } else {
                buckets.append(StatisticsBucket(start: bucketStart, sum: values[i], count: 1))
            }
            i += 1
        }
        bucketsReturned += buckets.count
        return buckets
    }

    func total(in range: TimeRange) throws -> StatisticsBucket {
        queries += 1
        var bucket = StatisticsBucket(start: range.start, sum: 0, count: 0)
        var i = lowerBound(range.start)
        while i < starts.count, starts[i] < range.end {
            bucket.sum += values[i]
            bucket.count += 1
            i += 1
        }
        return bucket
    }

    /// The index of the first start at or after `instant` (binary search).
    func lowerBound(_ instant: Int64) -> Int {
        var low = 0, high = starts.count
        while low < high {
            let mid = (low + high) / 2
            if starts[mid] < instant { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
