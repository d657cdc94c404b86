import StepSyncCore

/// Counts of the interval ledger by status, with what the intervals carry: `stepsync status`.
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
    /// Step counts in all intervals (0 for other types).
    public var steps: Double = 0
    /// Step counts in synced intervals.
    public var syncedSteps: Double = 0
    /// The sum of the values in all intervals of one type (in a summary of several types: 0, it would mean nothing).
    public var sum: Double = 0
    /// The sum of the values in synced intervals of one type.
    public var syncedSum: Double = 0
    /// Samples in all intervals that send samples (backfill and deltas).
    public var samples: Int = 0
    /// Samples in synced intervals.
    public var syncedSamples: Int = 0
    /// Deleted samples (tombstones) in deletion intervals.
    public var deletions: Int = 0
    /// Deleted samples in synced deletion intervals.
    public var syncedDeletions: Int = 0

    /// Creates an empty summary.
    public init() {}

    /// Adds `other`'s counts (sums only when both are of one type: `keepSums`).
    mutating func add(_ other: IntervalSummary, keepSums: Bool) {
        intervals += other.intervals
        pending += other.pending
        inFlight += other.inFlight
        synced += other.synced
        failed += other.failed
        oversize += other.oversize
        steps += other.steps
        syncedSteps += other.syncedSteps
        samples += other.samples
        syncedSamples += other.syncedSamples
        deletions += other.deletions
        syncedDeletions += other.syncedDeletions
        if keepSums {
            sum += other.sum
            syncedSum += other.syncedSum
        }
    }
}

/// The ledger summarised per type and overall.
public struct LedgerSummary: Hashable, Sendable {
    /// Every type together (`sum` and `syncedSum` stay 0: values of different types do not add up).
    public var overall: IntervalSummary
    /// One summary per type that has intervals.
    public var byType: [SampleType: IntervalSummary]

    /// Creates a summary.
    public init(overall: IntervalSummary = IntervalSummary(), byType: [SampleType: IntervalSummary] = [:]) {
        self.overall = overall
        self.byType = byType
    }
}
