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
    /// Whether the page must say how many samples of the type the client holds (``SamplePage/storedCount``);
    /// readers that walk every page (`/export`, the panels) say `false`, and a storage for which the count is a
    /// query of its own (PostgreSQL's `count(*)`, linear in the client's samples) then leaves it 0.
    public var countsStored: Bool

    /// Creates a query.
    public init(type: SampleType, cursor: String? = nil, limit: Int, maxBytes: Int, startRange: Range<Int64>? = nil,
                countsStored: Bool = true) {
        self.type = type
        self.cursor = cursor
        self.limit = limit
        self.maxBytes = maxBytes
        self.startRange = startRange
        self.countsStored = countsStored
    }
}
