import StepSyncCore

/// What a sync run did, and what the ledger holds after it.
public struct SyncReport: Hashable, Sendable {
    /// Intervals this run marked synced.
    public var synced: Int = 0
    /// Intervals this run marked failed.
    public var failedThisRun: Int = 0
    /// Intervals this run put back to pending (stopped or cancelled before the sink acknowledged them).
    public var requeued: Int = 0
    /// Samples in the intervals this run synced.
    public var samples: Int = 0
    /// Of `samples`, those the sink stored for the first time.
    public var inserted: Int = 0
    /// Of `samples`, those the sink already held (resent after a crash or a cancelled request).
    public var duplicates: Int = 0
    /// Deleted samples' uuids sent in deletions intervals (`POST /steps/delete`).
    public var deletionsSent: Int = 0
    /// Of `deletionsSent`, those the sink deleted (the others it no longer held).
    public var deleted: Int = 0
    /// Intervals found `inFlight` at startup (a crash or `kill -9` left them) and put back to pending.
    public var recoveredInFlight: Int = 0
    /// Whether a stop was requested (the run was paused).
    public var stopped = false
    /// Seconds the run took.
    public var seconds: Double = 0
    /// The ledger after the run: all intervals.
    public var totalIntervals: Int = 0
    /// The ledger after the run: intervals synced (this run and earlier ones).
    public var totalSynced: Int = 0
    /// The ledger after the run: intervals failed.
    public var failed: Int = 0
    /// The ledger after the run: intervals left to send (pending or in flight).
    public var pending: Int = 0
    /// The ledger's failed intervals, oldest first.
    public var failures: [SyncFailure] = []

    /// Creates an empty report.
    public init() {}

    /// Whether every interval in the ledger is synced: the condition for exit status 0.
    public var isComplete: Bool { totalSynced == totalIntervals }

    /// Samples per second over the run.
    public var samplesPerSecond: Double { seconds > 0 ? Double(samples) / seconds : 0 }
}
