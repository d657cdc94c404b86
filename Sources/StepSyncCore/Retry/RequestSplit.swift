/// How one request's samples are cut into parts that each fit a body limit: packed intervals apart first, then one
/// interval's samples into several parts. Pure: sizes in, ranges of sample indices out.
///
/// A part's body is `overhead` bytes (`{"samples":[` and `]}`) plus its objects joined by commas. Walking the
/// intervals in order (the samples of one interval are consecutive in the body):
/// 1. an interval that fits in the part under way joins it (several small intervals still share a part);
/// 2. else the part under way is closed, and the interval starts a new part if it fits alone;
/// 3. else (an interval larger than the limit) its samples are cut greedily, in order, into parts that fit;
/// 4. a sample whose own body is over the limit goes in a part alone — whether it fits is for the sink to say: the
///    sync fails an interval for size only when a body of one sample is refused (``IntervalSendMachine``).
///
/// Every sample lands in exactly one part, in order; the parts cover `0..<sizes.count` without gaps. O(n).
///
/// | object sizes (owner)        | overhead | limit | parts                |
/// |-----------------------------|----------|-------|----------------------|
/// | 10 10 (A) 10 10 (B)         | 14       | 100   | 0..<4                |
/// | 10 10 (A) 10 10 (B)         | 14       | 40    | 0..<2, 2..<4         |
/// | 30 30 30 (A)                | 14       | 50    | 0..<1, 1..<2, 2..<3  |
/// | 90 (A)                      | 14       | 50    | 0..<1 (alone, over)  |
public enum RequestSplit {
    /// The parts of a body whose sample `i` has an object of `sizes[i]` bytes and belongs to interval `owners[i]`,
    /// for bodies of at most `limit` bytes (`nil`: no limit, one part).
    public static func parts(
        sizes: [Int], owners: [Int64], overhead: Int, limit: Int?
    ) -> [Range<Int>] {
        precondition(sizes.count == owners.count, "one owner per sample")
        guard !sizes.isEmpty else { return [] }
        guard let limit else { return [0..<sizes.count] }
        var parts: [Range<Int>] = []
        var start = 0
        var bytes = overhead  // the body of samples start..<i, as it would be sent
        var i = 0
        while i < sizes.count {
            // The interval of sample i: i..<end.
            var end = i + 1
            var intervalBytes = sizes[i]
            while end < sizes.count, owners[end] == owners[i] {
                intervalBytes += 1 + sizes[end]
                end += 1
            }
            let joined = bytes + (start < i ? 1 : 0) + intervalBytes
            if joined <= limit {
                bytes = joined
                i = end
                continue
            }
            if start < i {
                parts.append(start..<i)
                start = i
                bytes = overhead
            }
            if overhead + intervalBytes <= limit {
                bytes = overhead + intervalBytes
                i = end
                continue
            }
            // Larger than the limit alone: its samples, cut greedily.
            for j in i..<end {
                let grown = bytes + (start < j ? 1 : 0) + sizes[j]
                if grown > limit, start < j {
                    parts.append(start..<j)
                    start = j
                    bytes = overhead + sizes[j]
                } else {
                    bytes = grown
                }
            }
            // The interval's last part stays open: a following interval that fits may still join it.
            i = end
        }
        parts.append(start..<sizes.count)
        return parts
    }

    /// The bytes of a body of the samples of `range`: `overhead` plus their objects and the commas between them.
    public static func bodyBytes(sizes: [Int], range: Range<Int>, overhead: Int) -> Int {
        guard !range.isEmpty else { return overhead }
        return overhead + sizes[range].reduce(0, +) + range.count - 1
    }
}
