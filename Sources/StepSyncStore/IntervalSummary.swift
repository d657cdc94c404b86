/// Counts of the interval ledger by status: `stepsync status`.
public struct IntervalSummary: Hashable, Sendable, Codable {
    /// All intervals.
    public var intervals: Int = 0
    /// Intervals waiting to be sent.
    public var pending: Int = 0
    /// Intervals claimed by a running (or crashed) sync.
    public var inFlight: Int = 0
    /// Intervals acknowledged by the sink.
    public var synced: Int = 0
    /// Intervals rejected or out of attempts.
    public var failed: Int = 0
    /// Intervals marked oversize.
    public var oversize: Int = 0
    /// Steps in all intervals.
    public var steps: Double = 0
    /// Steps in synced intervals.
    public var syncedSteps: Double = 0
    /// Samples in all intervals.
    public var samples: Int = 0
    /// Samples in synced intervals.
    public var syncedSamples: Int = 0

    /// Creates an empty summary.
    public init() {}
}
