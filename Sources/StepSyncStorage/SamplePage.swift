import StepSyncCore

/// One page of samples (`GET /steps`, `GET /samples`).
public struct SamplePage: Sendable {
    /// How many samples of the type the client holds (all of them, not only this page's); 0 may mean "not counted"
    /// when the query said it needs no count (``SamplePageQuery/countsStored``).
    public var storedCount: Int
    /// The page's samples, in start, then uuid, order.
    public var samples: [HealthSample]
    /// The cursor of the next page, or `nil` when this is the last.
    public var nextCursor: String?

    /// Creates a page.
    public init(storedCount: Int, samples: [HealthSample], nextCursor: String?) {
        self.storedCount = storedCount
        self.samples = samples
        self.nextCursor = nextCursor
    }
}
