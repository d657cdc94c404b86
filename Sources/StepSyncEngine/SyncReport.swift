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
    /// Samples this run left out as invalid (recorded as rejected, never sent; the rest of their intervals was).
    public var rejectedThisRun: Int = 0
    /// The first of them (at most ``maxListedRejections``), in the order found.
    public var rejected: [RejectedSample] = []
    /// The store's record after the run: samples rejected by this run and earlier ones.
    public var rejectedTotal: Int = 0
    /// Requests the sink (or a proxy in front of it) refused as too large (HTTP 413): each was sent again in smaller
    /// parts.
    public var tooLarge: Int = 0
    /// The body limit in force at the end of the run, in bytes (`--max-request-bytes`, lowered by each 413); `nil`
    /// when none was set or learnt.
    public var requestLimitBytes: Int?
    /// The most requests that were in flight at once (the window opens past `--concurrency` on a long round trip).
    public var peakInFlight: Int = 0
    /// The window at the end of the run: how many requests it let be in flight.
    public var window: Int = 0
    /// The shortest time from a request's send to its acknowledgement, in milliseconds (`nil`: none measured).
    public var roundTripMs: Double?
    /// Whether a stop was requested (the run was paused).
    public var stopped = false
    /// When the run gave up waiting for the sink (`--give-up-after`): the one line saying why, e.g.
    /// `cannot reach http://127.0.0.1:8000: connection refused — is stepsync serve running?`. Every unsent interval
    /// is still pending.
    public var gaveUp: String?
    /// Whether it gave up at once, on a failure waiting cannot mend (an untrusted certificate).
    public var gaveUpAtOnce = false
    /// How long the outage it gave up on had lasted, in seconds.
    public var gaveUpAfterSeconds: Double = 0
    /// How many times the run waited for the sink, and for how long in all (seconds).
    public var serverWaits: Int = 0
    /// Seconds spent waiting for the sink.
    public var serverWaitSeconds: Double = 0
    /// Endpoints the sink does not serve (a sink without `POST /samples`), one line each: their intervals stayed
    /// pending.
    public var unsupported: [String] = []
    /// Intervals left pending because the sink does not serve their endpoint.
    public var skipped: Int = 0
    /// The sample types the run went through.
    public var types: [SampleType] = []
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

    /// The most rejected samples a report lists (``rejectedThisRun`` counts them all).
    public static let maxListedRejections = 1_000

    /// Creates an empty report.
    public init() {}

    /// Whether every interval in the ledger is synced and the run did not stop (a refused token or another sink with
    /// nothing pending): the condition for exit status 0.
    public var isComplete: Bool { totalSynced == totalIntervals && gaveUp == nil }

    /// Samples per second over the run.
    public var samplesPerSecond: Double { seconds > 0 ? Double(samples) / seconds : 0 }
}
