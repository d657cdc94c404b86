import StepSyncCore

/// What a sync run did, and what the ledger holds after it.
///
/// The run's counters are the run machine's ``SyncRunMachine/Tally`` itself (``run``), read through this report
/// (`report.synced` is `report.run.synced`): the summary, the progress and `sync --json` (``encode(to:)``,
/// `docs/json/sync.schema.json`) all read the one copy.
@dynamicMemberLookup
public struct SyncReport: Hashable, Sendable {
    /// What the run did: intervals synced, failed, put back and skipped, samples and deletions sent and what the sink
    /// made of them, the samples left out as invalid, the waits for the sink, the stop, giving up.
    public var run = SyncRunMachine.Tally()
    /// The sink's base URL, as the lines that name it say it.
    public var server = ""
    /// Intervals found `inFlight` at startup (a crash or `kill -9` left them) and put back to pending.
    public var recoveredInFlight: Int = 0
    /// The store's record after the run: samples rejected by this run and earlier ones.
    public var rejectedTotal: Int = 0
    /// Requests the sink (or a proxy in front of it) refused as too large (HTTP 413): each was sent again in smaller
    /// parts.
    public var tooLarge: Int = 0
    /// The body limit in force at the end of the run, in bytes (`--max-request-bytes`, lowered by each 413); `nil`
    /// when none was set or learnt.
    public var requestLimitBytes: Int?
    /// The window at the end of the run: how many requests it let be in flight.
    public var window: Int = 0
    /// The shortest time from a request's send to its acknowledgement, in milliseconds (`nil`: none measured).
    public var roundTripMs: Double?
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
    public static let maxListedRejections = SyncRunMachine.Configuration.defaultMaxListedRejections

    /// Creates an empty report.
    public init() {}

    /// The run's counter at `keyPath`: `report.synced`, `report.samples`, `report.peakInFlight`…
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<SyncRunMachine.Tally, Value>) -> Value {
        get { run[keyPath: keyPath] }
        set { run[keyPath: keyPath] = newValue }
    }

    /// Intervals this run marked failed (``failed`` is the ledger's).
    public var failedThisRun: Int {
        get { run.failed }
        set { run.failed = newValue }
    }

    /// Samples this run left out as invalid (recorded as rejected, never sent; the rest of their intervals was).
    public var rejectedThisRun: Int {
        get { run.rejectedCount }
        set { run.rejectedCount = newValue }
    }

    /// When the run gave up waiting for the sink (`--give-up-after`): the one line saying why, e.g.
    /// `cannot reach http://127.0.0.1:8000: connection refused — is stepsync serve running?`. Every unsent interval
    /// is still pending.
    public var gaveUp: String? { run.gaveUp?.failure.message(server: server) }

    /// Whether it gave up at once, on a failure waiting cannot mend (an untrusted certificate).
    public var gaveUpAtOnce: Bool { run.gaveUp?.failure.isFatal ?? false }

    /// How long the outage it gave up on had lasted, in seconds.
    public var gaveUpAfterSeconds: Double { run.gaveUp?.afterSeconds ?? 0 }

    /// Endpoints the sink does not serve (a sink without `POST /samples`), one line each: their intervals stayed
    /// pending.
    public var unsupported: [String] {
        run.unsupported.map { unsupported in
            "the sink at \(server) does not take POST \(SinkEndpoint.of(unsupported.interval).path) "
                + "(\(unsupported.message)): the intervals of types other than step counts stay pending — update "
                + "the sink, or sync only step counts with --type \(SampleType.stepCount.rawValue)"
        }
    }

    /// Whether every interval in the ledger is synced and the run did not stop (a refused token or another sink with
    /// nothing pending): the condition for exit status 0.
    public var isComplete: Bool { totalSynced == totalIntervals && gaveUp == nil }

    /// Samples per second over the run.
    public var samplesPerSecond: Double { seconds > 0 ? Double(run.samples) / seconds : 0 }
}
