/// The sum and sample count of one bucket of a statistics query.
///
/// A sample belongs to the bucket that holds its **start**; its whole value counts there (no pro-rating). This is
/// the contract the layering engine relies on: summing buckets never double-counts and never loses a sample.
public struct StatisticsBucket: Hashable, Sendable {
    /// The first millisecond of the bucket (on the query's grid).
    public var start: Int64
    /// The sum of the values of the samples starting in the bucket.
    public var sum: Double
    /// The number of samples starting in the bucket.
    public var count: Int

    /// Creates a bucket.
    public init(start: Int64, sum: Double, count: Int) {
        self.start = start
        self.sum = sum
        self.count = count
    }
}
