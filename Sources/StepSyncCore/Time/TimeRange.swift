/// A half-open range of UTC milliseconds `[start, end)`.
///
/// Every range in stepsync is half-open: a sample belongs to the range that holds its *start*, so adjacent ranges
/// never share a sample and contiguous ranges partition time exactly.
public struct TimeRange: Hashable, Sendable, CustomStringConvertible {
    /// The first millisecond in the range.
    public var start: Int64
    /// The first millisecond after the range.
    public var end: Int64

    /// Creates `[start, end)`. `end` must not be before `start`.
    public init(start: Int64, end: Int64) {
        precondition(end >= start, "TimeRange end \(end) is before its start \(start)")
        self.start = start
        self.end = end
    }

    /// The length of the range in milliseconds.
    public var duration: Int64 { end - start }

    /// Whether the range holds no millisecond.
    public var isEmpty: Bool { end == start }

    /// Whether `instant` lies in `[start, end)`.
    public func contains(_ instant: Int64) -> Bool { instant >= start && instant < end }

    public var description: String {
        "[\(ISO8601Millis.format(start)), \(ISO8601Millis.format(end)))"
    }
}
