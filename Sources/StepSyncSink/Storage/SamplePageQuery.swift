import StepSyncCore

/// Which page of one type's samples ``SampleStorage/page(_:for:)`` returns.
public struct SamplePageQuery: Hashable, Sendable {
    /// The sample type.
    public var type: SampleType
    /// Where to continue: a ``SamplePage/nextCursor`` this storage gave, or `nil` for the first page.
    public var cursor: String?
    /// At most this many samples (≥ 1).
    public var limit: Int
    /// At most this many bytes of stored JSON, counted from the second sample on (a page is never empty while
    /// samples remain, however large the first).
    public var maxBytes: Int
    /// Only samples whose start is in this range (UTC ms, half-open); `nil` for all.
    public var startRange: Range<Int64>?

    /// Creates a query.
    public init(type: SampleType, cursor: String? = nil, limit: Int, maxBytes: Int, startRange: Range<Int64>? = nil) {
        self.type = type
        self.cursor = cursor
        self.limit = limit
        self.maxBytes = maxBytes
        self.startRange = startRange
    }
}
