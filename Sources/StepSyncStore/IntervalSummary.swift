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
    /// Samples the store holds now (layered or not; deleted ones are gone).
    public var storeSamples: Int = 0

    /// Samples the sink holds of the store's, as the ledger knows: those of synced intervals less the synced
    /// deletions (never below 0).
    public var sinkSamples: Int { max(0, syncedSamples - syncedDeletions) }

    /// The share of the store's samples the sink holds (0…1; 0 for an empty store).
    public var syncedShare: Double {
        storeSamples > 0 ? Double(min(sinkSamples, storeSamples)) / Double(storeSamples) : 0
    }

    /// Creates an empty summary.
    public init() {}

    /// The counts added up by ``add(_:keepSums:)``.
    private static let counts: [WritableKeyPath<IntervalSummary, Int> & Sendable] = [
        \.intervals, \.pending, \.inFlight, \.synced, \.failed, \.oversize,
        \.samples, \.syncedSamples, \.deletions, \.syncedDeletions, \.storeSamples,
    ]
    /// The totals added up always (steps) and only within one type (sums).
    private static let steps: [WritableKeyPath<IntervalSummary, Double> & Sendable] = [\.steps, \.syncedSteps]
    private static let sums: [WritableKeyPath<IntervalSummary, Double> & Sendable] = [\.sum, \.syncedSum]

    /// Adds `other`'s counts (sums only when both are of one type: `keepSums`).
    mutating func add(_ other: IntervalSummary, keepSums: Bool) {
        for path in Self.counts { self[keyPath: path] += other[keyPath: path] }
        for path in keepSums ? Self.steps + Self.sums : Self.steps { self[keyPath: path] += other[keyPath: path] }
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
