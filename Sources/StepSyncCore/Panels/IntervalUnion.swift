/// A union of half-open intervals of instants (ms), kept as sorted, disjoint, non-touching ranges: how long a set of
/// possibly overlapping samples covers, each instant counted once. ``SleepNights`` uses it so that two sources
/// recording the same night (an iPhone and a Watch) count its hours once.
///
/// Insertion is `O(log n)` to find the place plus the ranges it swallows; memory is the number of disjoint ranges.
public struct IntervalUnion: Hashable, Sendable {
    /// The disjoint ranges, in order; two ranges never touch (`a.upperBound < b.lowerBound`).
    public private(set) var ranges: [Range<Int64>] = []

    /// An empty union.
    public init() {}

    /// Adds `range` (an empty one changes nothing).
    public mutating func insert(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        // The first range that ends at or after the new one's start: everything before it stays.
        var low = 0, high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].upperBound < range.lowerBound { low = mid + 1 } else { high = mid }
        }
        var lower = range.lowerBound, upper = range.upperBound
        var end = low
        while end < ranges.count, ranges[end].lowerBound <= upper {
            lower = min(lower, ranges[end].lowerBound)
            upper = max(upper, ranges[end].upperBound)
            end += 1
        }
        ranges.replaceSubrange(low..<end, with: CollectionOfOne(lower..<upper))
    }

    /// The total length covered (ms), each instant once.
    public var length: Int64 { ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }
}
