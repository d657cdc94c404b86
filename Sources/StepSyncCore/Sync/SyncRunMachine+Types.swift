extension SyncRunMachine {
    /// The settings the run's decisions depend on.
    public struct Configuration: Hashable, Sendable {
        /// The send lanes (≥ 1): the requests in flight at first, and the window's floor (``InFlightWindow``).
        public var concurrency: Int
        /// The window's ceiling: the most requests in flight at once (≥ `concurrency`); equal to `concurrency`, the
        /// window never moves.
        public var maxInFlight: Int
        /// The most samples one request of several packed intervals carries (``RequestPacking``); `0` sends every
        /// interval alone.
        public var maxSamplesPerRequest: Int
        /// How long and how often to wait for a sink that is down, and when to give up.
        public var outagePolicy: SinkOutageMachine.Policy
        /// Probe the sink (`GET /health`) before the first request.
        public var probeFirst: Bool
        /// The most rejected samples ``Tally/rejected`` lists (``Tally/rejectedCount`` counts them all).
        public var maxListedRejections: Int

        /// The default of ``concurrency`` (`--concurrency`): three lanes.
        public static let defaultConcurrency = 3
        /// The default of ``maxSamplesPerRequest`` (`--request-samples`): the layering's bound on one interval's
        /// samples, so a packed request is never larger than the largest interval could be.
        public static let defaultMaxSamplesPerRequest = 5_000
        /// The default of ``maxListedRejections``.
        public static let defaultMaxListedRejections = 1_000

        /// Creates the settings — the one place the send lanes are clamped and their window's ceiling defaulted:
        /// `concurrency` is clamped to at least 1, `maxInFlight` (`nil`: eight a lane,
        /// ``InFlightWindow/Policy/defaultMaxInFlight(lanes:)``) to at least `concurrency`.
        public init(
            concurrency: Int = Configuration.defaultConcurrency,
            maxInFlight: Int? = nil,
            maxSamplesPerRequest: Int = Configuration.defaultMaxSamplesPerRequest,
            outagePolicy: SinkOutageMachine.Policy = .default,
            probeFirst: Bool = true,
            maxListedRejections: Int = Configuration.defaultMaxListedRejections
        ) {
            self.concurrency = max(1, concurrency)
            self.maxInFlight = max(self.concurrency,
                                   maxInFlight ?? InFlightWindow.Policy.defaultMaxInFlight(lanes: self.concurrency))
            self.maxSamplesPerRequest = max(0, maxSamplesPerRequest)
            self.outagePolicy = outagePolicy
            self.probeFirst = probeFirst
            self.maxListedRejections = max(0, maxListedRejections)
        }
    }

    /// Where the run stands.
    public enum Phase: Hashable, Sendable {
        /// Before ``Event/started``.
        case starting
        /// Probing the sink before the first request.
        case probingFirst
        /// Sending: requests start while the sink is up (and no stop was requested).
        case sending
        /// Waiting for the sink, nothing in flight.
        case waitingForSink
        /// Probing the sink after a wait.
        case probing
        /// Gave up waiting for the sink.
        case gaveUp
        /// Over: nothing is in flight and nothing more starts.
        case finished
    }

    /// What the engine tells the machine: the run began, or one of its tasks ended.
    public enum Event: Hashable, Sendable {
        /// The run begins (the engine's task group is open).
        case started
        /// The probe of the sink (`GET /health`) ended: `nil` when the sink answered, else why it could not be
        /// reached.
        case probed(SinkFailure?)
        /// The stop signal reached `count` requests (the watcher of ``Action/watchStop(count:)`` returned).
        case stopSignalled(count: Int)
        /// A request's task ended with `result`; it left out `rejected` samples as invalid, and `notPending` of its
        /// intervals were no longer pending when claimed (skipped). `request` is the number its
        /// ``Action/send(_:request:)`` gave it: its acknowledgement then measures the link for the window (`nil`:
        /// not measured).
        case requestEnded(RequestResult, rejected: [RejectedSample] = [], notPending: Int = 0, request: Int? = nil)
        /// The wait for the sink ended: `completed` when it ran its course (not cut short by a stop).
        case waitEnded(completed: Bool)
    }

    /// How one request's task ended, for the intervals it claimed.
    public enum RequestResult: Hashable, Sendable {
        /// `intervals` intervals carrying `count` samples (or deletions) were acknowledged and marked synced.
        case synced(IntervalKind, intervals: Int, count: Int, SinkAcknowledgement)
        /// The interval (a request of one) was marked failed.
        case failed
        /// This many intervals went back to pending (a stop, a cancellation).
        case requeued(Int)
        /// None of the request's intervals was pending any more.
        case notPending
        /// A request of several intervals hit a permanent failure: they are pending again and go alone.
        case split([SyncInterval])
        /// The sink as a whole could not take the request: the intervals are pending again.
        case sinkUnavailable([SyncInterval], SinkFailure)
        /// The sink does not serve the endpoint of `interval`'s request (404/405 to `/samples`): its `intervals`
        /// intervals stay pending, and so does every later one of that endpoint.
        case endpointMissing(SyncInterval, message: String, intervals: Int)
    }

    /// What the engine must do, in the order given.
    public enum Action: Hashable, Sendable {
        /// Claim, send and mark these intervals as one request, in a task of its own; its end comes back as
        /// ``Event/requestEnded(_:rejected:notPending:request:)`` with `request`, the request's number in the run.
        case send([SyncInterval], request: Int)
        /// Probe the sink (`GET /health`) in a task; its answer comes back as ``Event/probed(_:)``.
        case probeSink
        /// Say so, and wait this long for the sink in a task (ending at once on a stop); its end comes back as
        /// ``Event/waitEnded(completed:)``.
        case waitForSink(Duration, SinkFailure)
        /// Watch the stop signal in a task until it reaches `count` requests; comes back as
        /// ``Event/stopSignalled(count:)``.
        case watchStop(count: Int)
        /// The first stop: nothing new starts; the `inFlight` requests finish.
        case stopping(inFlight: Int)
        /// The second stop: cancel the tasks in flight (their intervals go back to pending).
        case cancelInFlight(Int)
        /// Stop waiting for the sink (down for the outage budget, or a failure waiting cannot mend): every unsent
        /// interval stays pending.
        case giveUp(SinkFailure, afterSeconds: Double)
        /// The sink does not serve the endpoint of `interval`'s request: say so (once per endpoint).
        case endpointUnsupported(SyncInterval, message: String)
        /// Tell the caller where the run stands.
        case progress(Progress)
        /// The run is over: nothing is in flight and nothing more starts. End the stop watchers and summarise.
        case finish
    }

    /// Where the run stands, for the engine's progress callback (`SyncProgress`).
    public struct Progress: Hashable, Sendable {
        /// Intervals finished (synced, failed, put back, skipped).
        public var done: Int
        /// Intervals the run set out to send.
        public var total: Int
        /// Of `done`, those synced.
        public var synced: Int
        /// Of `done`, those failed.
        public var failed: Int
        /// Samples acknowledged by the sink.
        public var samplesSent: Int
        /// Samples left out as invalid.
        public var rejected: Int
        /// Time since the run began.
        public var elapsed: Duration
        /// Seconds since the run began less the time spent waiting for the sink, as of the last request's end.
        public var activeSeconds: Double
        /// The wait for the sink under way, if any.
        public var serverWait: SinkWait?
        /// Samples (and deletions) of the intervals finished: what a progress bar counts, since intervals differ in
        /// size by orders of magnitude (a decade of steps in 1,000-sample intervals beside a few large ones).
        public var itemsDone: Int = 0
        /// Samples (and deletions) of the intervals the run set out to send.
        public var itemsTotal: Int = 0
    }

    /// A wait for the sink: why, and for how long.
    public struct SinkWait: Hashable, Sendable {
        /// Why the sink is waited for.
        public var failure: SinkFailure
        /// How long until it is probed.
        public var delay: Duration
    }

    /// The run gave up waiting for the sink.
    public struct GiveUp: Hashable, Sendable {
        /// The outage's last failure.
        public var failure: SinkFailure
        /// How long the outage had lasted, in seconds.
        public var afterSeconds: Double
    }

    /// An endpoint the sink does not serve.
    public struct Unsupported: Hashable, Sendable {
        /// The first interval of the request the sink refused so (its endpoint is the one).
        public var interval: SyncInterval
        /// What the sink answered: `HTTP 404: …`.
        public var message: String

        /// Creates the record of an endpoint the sink does not serve.
        public init(interval: SyncInterval, message: String) {
            self.interval = interval
            self.message = message
        }
    }

    /// What the run did so far: the one copy of the run's counters — the engine's report (`SyncReport`) holds it as
    /// it is, and the progress and `sync --json` read it there.
    public struct Tally: Hashable, Sendable {
        /// Intervals the run set out to send.
        public var total = 0
        /// Samples (and deletions) the run set out to send, and those of the intervals finished.
        public var itemsTotal = 0, itemsDone = 0
        /// Intervals finished: synced, failed, put back, skipped or no longer pending.
        public var done = 0
        /// Intervals marked synced.
        public var synced = 0
        /// Intervals marked failed.
        public var failed = 0
        /// Intervals put back to pending (stopped, cancelled, or the sink down while stopping).
        public var requeued = 0
        /// Intervals left pending because the sink does not serve their endpoint.
        public var skipped = 0
        /// Samples in the samples intervals synced.
        public var samples = 0
        /// Of `samples`, those the sink stored for the first time.
        public var inserted = 0
        /// Of `samples`, those the sink already held.
        public var duplicates = 0
        /// Deleted samples' uuids sent in deletions intervals.
        public var deletionsSent = 0
        /// Of `deletionsSent`, those the sink deleted.
        public var deleted = 0
        /// Samples left out as invalid, each counted once.
        public var rejectedCount = 0
        /// The first of them (at most ``Configuration/maxListedRejections``), in the order found.
        public var rejected: [RejectedSample] = []
        /// Waits for the sink.
        public var serverWaits = 0
        /// Seconds spent waiting for the sink.
        public var serverWaitSeconds: Double = 0
        /// Seconds since the run began less `serverWaitSeconds`, as of the last request's end.
        public var activeSeconds: Double = 0
        /// The wait for the sink under way, if any.
        public var serverWait: SinkWait?
        /// Whether a stop was requested.
        public var stopped = false
        /// Set when the run gave up waiting for the sink.
        public var gaveUp: GiveUp?
        /// The endpoints the sink does not serve, in the order found.
        public var unsupported: [Unsupported] = []
        /// The most requests that were in flight at once.
        public var peakInFlight = 0

        /// Creates an empty tally.
        public init() {}
    }
}
