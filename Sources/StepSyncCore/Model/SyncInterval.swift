/// One chunk of work to sync: the samples of one type whose start lies in `range` and whose change sequence lies in
/// `(seqAfter, seqThrough]` — or, for a ``IntervalKind/deletions`` interval, the tombstones in that window.
///
/// Intervals are produced by the layering engine (at most `maxSteps` steps and `maxSamples` samples each, unless
/// `oversize`) and persisted in the store's interval ledger, where the sync engine claims, sends and marks them.
/// The sequence window makes an interval an immutable snapshot: samples added later never grow it past its limits;
/// they become delta intervals of a later layering run (see `Planning/incremental.md`).
public struct SyncInterval: Hashable, Sendable, Identifiable {
    /// Stable id in the ledger (0 until persisted).
    public var id: Int64
    /// The sample type the interval covers.
    public var type: SampleType
    /// The half-open range of sample starts.
    public var range: TimeRange
    /// Whether the interval sends samples (the usual case) or deletions.
    public var kind: IntervalKind
    /// The interval holds samples whose change sequence is greater than this (0 for a backfill).
    public var seqAfter: Int64
    /// The interval holds samples whose change sequence is at most this (the store's anchor when it was layered).
    public var seqThrough: Int64
    /// The sum of the samples' values when the interval was layered.
    public var steps: Double
    /// The number of samples when the interval was layered.
    public var samples: Int
    /// Whether the interval is over a limit because its content cannot be split (one sample over the step limit,
    /// or more samples than the sample limit in one millisecond).
    public var oversize: Bool
    /// Where the interval stands in the sync.
    public var status: IntervalStatus
    /// How many times the sync engine has tried to send it.
    public var attempts: Int
    /// The last error the sink or the network gave, if any.
    public var lastError: String?
    /// When the sink acknowledged it (UTC milliseconds), if synced.
    public var syncedAtMs: Int64?

    /// Creates an interval.
    public init(
        id: Int64 = 0,
        type: SampleType = .stepCount,
        range: TimeRange,
        kind: IntervalKind = .samples,
        seqAfter: Int64 = 0,
        seqThrough: Int64 = .max,
        steps: Double,
        samples: Int,
        oversize: Bool = false,
        status: IntervalStatus = .pending,
        attempts: Int = 0,
        lastError: String? = nil,
        syncedAtMs: Int64? = nil
    ) {
        self.id = id
        self.type = type
        self.range = range
        self.kind = kind
        self.seqAfter = seqAfter
        self.seqThrough = seqThrough
        self.steps = steps
        self.samples = samples
        self.oversize = oversize
        self.status = status
        self.attempts = attempts
        self.lastError = lastError
        self.syncedAtMs = syncedAtMs
    }
}
