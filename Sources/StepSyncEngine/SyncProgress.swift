import StepSyncCore

/// Where a running sync stands, passed to the progress callback after each interval ends and whenever the engine
/// starts or stops waiting for the sink.
public struct SyncProgress: Hashable, Sendable {
    /// Intervals this run has finished (synced, failed or put back).
    public var done: Int
    /// Intervals this run set out to send.
    public var total: Int
    /// Of `done`, those synced.
    public var synced: Int
    /// Of `done`, those failed.
    public var failed: Int
    /// Samples acknowledged by the sink so far.
    public var samplesSent: Int
    /// Samples (and deletions) of the intervals finished so far, and of all the run set out to send: the share a
    /// progress bar shows (intervals differ in size too much for their count to say how far a run is).
    public var itemsDone = 0, itemsTotal = 0
    /// Samples left out as invalid so far (recorded as rejected, not sent).
    public var rejected: Int = 0
    /// Seconds since the run started.
    public var elapsedSeconds: Double
    /// Seconds since the run started, less the time spent waiting for the sink: what rates and an ETA are based on.
    public var activeSeconds: Double = 0
    /// While the engine waits for the sink (it cannot be reached, or answers 503): what it says and for how long.
    public var serverWait: ServerWait?

    /// The engine is waiting for the sink.
    public struct ServerWait: Hashable, Sendable {
        /// One line for people: `cannot reach http://127.0.0.1:8000: connection refused — is stepsync serve running?`
        public var message: String
        /// Seconds until the next try.
        public var retryInSeconds: Double

        /// Creates a wait.
        public init(message: String, retryInSeconds: Double) {
            self.message = message
            self.retryInSeconds = retryInSeconds
        }
    }

    /// Creates a progress report.
    public init(done: Int, total: Int, synced: Int, failed: Int, samplesSent: Int, elapsedSeconds: Double) {
        self.done = done
        self.total = total
        self.synced = synced
        self.failed = failed
        self.samplesSent = samplesSent
        self.elapsedSeconds = elapsedSeconds
    }

    /// The progress of the run machine's `progress`, its waits for the sink said of `server`.
    init(_ progress: SyncRunMachine.Progress, server: String) {
        self.init(done: progress.done, total: progress.total, synced: progress.synced, failed: progress.failed,
                  samplesSent: progress.samplesSent, elapsedSeconds: progress.elapsed.inSeconds)
        rejected = progress.rejected
        itemsDone = progress.itemsDone
        itemsTotal = progress.itemsTotal
        activeSeconds = progress.activeSeconds
        serverWait = progress.serverWait.map {
            .init(message: $0.failure.message(server: server), retryInSeconds: $0.delay.inSeconds)
        }
    }
}
