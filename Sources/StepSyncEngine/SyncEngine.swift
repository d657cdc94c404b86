import Foundation
import Logging
import StepSyncCore
import StepSyncStore

/// Syncs the store's pending intervals of every sample type to the sink: claim → send → mark, `concurrency` lanes
/// of requests, each lane keeping as many in flight as the link's round trip needs (``InFlightWindow``).
///
/// The protocol, for each pending interval (step counts first, then the other types; oldest first in each):
/// 1. **claim**: `markInFlight` (pending → inFlight, one more attempt) — durable before anything is sent;
/// 2. **send**: read the interval's raw samples (`[start, end)`, paged), leave out those ``SampleValidation`` finds
///    invalid (recorded as rejected), encode the rest once (``WireEncoder``), POST (`/steps` for step counts,
///    `/samples` for the other types); transient faults of this request are retried with backoff inside its task;
/// 3. **mark**: `markSynced` (fsynced) on the sink's acknowledgement — only then does the interval count as done;
///    a 4xx marks it `failed` with the reason (a 4xx naming one sample leaves that sample out and resends the rest).
///
/// **Packing.** Consecutive small samples intervals of one type share a request of at most
/// `--request-samples` samples (``RequestPacking``): they are claimed in one transaction, sent
/// in one body and marked synced in one transaction after the one acknowledgement — the ledger stays per interval,
/// but the original's density (≈ 19 samples an interval) no longer pays a round trip, two commits and the sink's
/// durable append per 19 samples. A packed request that fails permanently puts its intervals back to pending, and
/// each is then sent alone, so a failure lands on the interval that causes it.
///
/// **Body limits.** A request the sink or a proxy refuses as too large (413) is cut into parts that fit
/// (``RequestSplit``: packed intervals apart first, then one interval's samples) and the parts are sent one after the
/// other; the run's ``BodySizeLimit`` (shared by the requests in flight) remembers the limit, so later requests are cut
/// before they are sent. The intervals are marked synced only once every part is acknowledged, and fail for size only
/// when a body of one sample is refused.
///
/// A crash between 1 and 3 leaves the interval `inFlight`; the next run puts it back to pending at startup and resends
/// it, and the sink's de-duplication by uuid keeps the end state exact (the resent samples count as `duplicates`).
///
/// **The sink as a whole** (it cannot be reached, or answers 429/502/503/504) is not any interval's fault: the
/// interval goes back to pending, no new interval starts, and once nothing is in flight the engine waits with one
/// shared backoff, probes `GET /health`, and carries on — or gives up after `giveUpAfter` with every unsent interval
/// still pending (``SinkOutageMachine``). The sink is probed once before the first interval too, pending or not: every
/// probe also checks the token and that the sink is the one the ledger synced to (``SinkTarget``), or stops.
///
/// **The loop is a machine.** Every decision of the run — which intervals go next and packed how, how many are in
/// flight, when to wait for the sink and when to give up, what a stop does, what each request's end counts as — is
/// ``SyncRunMachine``'s, and every decision of one request (send which part, wait, leave a sample out, mark, put
/// back) ``RequestSendMachine``'s: values in the core tested without concurrency. The engine is their shell: a task
/// group whose tasks each send one request (`SyncEngine+Request.swift`), wait for the sink, probe it or watch the
/// ``SyncStop``; each task's end goes to the machine as an event, and the engine does what the actions returned say
/// (start tasks, log, report progress, cancel). The first stop request stops the topping-up and ends every wait at
/// once (the interval waiting goes back to pending; those sending finish), the second cancels the tasks in flight
/// (they go back to pending). Every wait is on the injected `time`, and every jitter comes from generators seeded by
/// `randomSeed`, so tests drive retries, outages and pauses without real sleeps.
public struct SyncEngine: Sendable {
    /// The store whose ledger is synced.
    public let store: StepStore
    /// Where the bodies go.
    public let uploader: any Uploader
    /// Concurrency, retries, waiting for the sink, types.
    public let configuration: SyncConfiguration
    /// Where the engine logs (one line per failure, retry and requeue).
    public let logger: Logger
    /// The time every wait (retry backoff, wait for the sink) and elapsed time is measured on, and every synced
    /// interval's time is read from.
    let time: TimeSource
    /// The seed of the jitter: each interval draws from its own generator seeded with (seed, interval id), the wait
    /// for the sink from another, so a run's delays do not depend on the order tasks run in.
    public let randomSeed: UInt64

    /// Creates an engine; nothing runs until ``run(stop:progress:)``.
    ///
    /// - Parameters:
    ///   - time: the clock of every wait, elapsed time and recorded time (``TimeSource/system`` in the CLI; tests pass
    ///     a clock they move themselves).
    ///   - randomSeed: the seed of every jitter (random by default; tests fix it).
    public init(
        store: StepStore,
        uploader: any Uploader,
        configuration: SyncConfiguration,
        logger: Logger,
        time: TimeSource,
        randomSeed: UInt64 = UInt64.random(in: .min ... .max)
    ) {
        self.store = store
        self.uploader = uploader
        self.configuration = configuration
        self.logger = logger
        self.time = time
        self.randomSeed = randomSeed
    }

    /// Runs the sync until every pending interval is synced or failed, until `stop` is requested, or until the sink
    /// has been unavailable for `giveUpAfter`.
    ///
    /// - Parameters:
    ///   - stop: the stop signal (first request: end waits, finish the intervals sending and stop; second: cancel).
    ///   - progress: called on the caller's task after each interval ends and when a wait for the sink starts or ends.
    /// - Returns: what the run did and what the ledger holds after it.
    /// - Throws: a store error (the disk); intervals in flight then go back to pending.
    public func run(stop: SyncStop = .never, progress: (SyncProgress) -> Void = { _ in }) async throws -> SyncReport {
        let elapsed = time.stopwatch()
        var report = SyncReport()
        report.recoveredInFlight = try store.requeueInFlight()
        if report.recoveredInFlight > 0 {
            logger.notice("Put intervals left in flight back to pending",
                          metadata: ["sync.requeued": "\(report.recoveredInFlight)"])
        }
        if configuration.retryFailed {
            let requeued = try store.requeueFailed()
            logger.info("Put failed intervals back to pending", metadata: ["sync.requeued": "\(requeued)"])
        }
        let types = try configuration.types ?? Self.syncOrder(Array(store.ledgerSummary().byType.keys))
        report.types = types
        var queue: [SyncInterval] = []
        for type in types { queue += try store.intervals(of: type, status: [.pending]) }
        var machine = SyncRunMachine(queue: queue, configuration: configuration.run, randomSeed: randomSeed)
        let bodyLimit = SharedBodyLimit(configured: configuration.maxRequestBytes)

        try await withThrowingTaskGroup(of: SyncRunMachine.Event.self) { group in
            var actions = machine.handle(.started, stopRequests: Self.stopRequests(stop), at: elapsed())
            while !perform(actions, in: &group, stop: stop, bodyLimit: bodyLimit, progress: progress) {
                guard let event = try await group.next() else { break }
                actions = machine.handle(event, stopRequests: Self.stopRequests(stop), at: elapsed())
            }
            // Only the stop watchers can be left: end them.
            group.cancelAll()
        }

        report.run = machine.tally
        report.server = uploader.server
        report.window = machine.window.limit
        report.roundTripMs = machine.window.minRoundTrip.map { ($0.inSeconds * 1_000).rounded() }
        let learnt = bodyLimit.value
        report.tooLarge = learnt.refusals
        report.requestLimitBytes = learnt.limit
        try report.readLedger(of: store, types: types)
        report.seconds = elapsed().inSeconds
        return report
    }

    /// Does what the run's machine said, in order: starts the tasks it asks for in `group`, logs, reports progress,
    /// cancels. Returns whether the run is over.
    private func perform(
        _ actions: [SyncRunMachine.Action],
        in group: inout ThrowingTaskGroup<SyncRunMachine.Event, any Error>,
        stop: SyncStop,
        bodyLimit: SharedBodyLimit,
        progress: (SyncProgress) -> Void
    ) -> Bool {
        var finished = false
        for action in actions {
            switch action {
            case .send(let batch, let request):
                group.addTask { try await self.send(batch, request: request, stop: stop, bodyLimit: bodyLimit) }
            case .probeSink:
                group.addTask { .probed(await self.probeAndCheckTarget()) }
            case .waitForSink(let delay, let failure):
                logger.info("Waiting for the sink", metadata: [
                    "sync.server": "\(uploader.server)", "sync.error": "\(failure.note)", "sync.delay": "\(delay)",
                ])
                group.addTask { [time] in .waitEnded(completed: await stop.wait(delay, on: time)) }
            case .watchStop(let count):
                group.addTask {
                    await stop.requested(count: count)
                    return .stopSignalled(count: count)
                }
            case .stopping(let inFlight):
                logger.notice("Stop requested: finishing the intervals in flight",
                              metadata: ["sync.inFlight": "\(inFlight)"])
            case .cancelInFlight(let inFlight):
                logger.notice("Second stop: cancelling the intervals in flight",
                              metadata: ["sync.inFlight": "\(inFlight)"])
                group.cancelAll()
            case .giveUp(let failure, let after):
                logger.info("Gave up waiting for the sink", metadata: [
                    "sync.server": "\(uploader.server)", "sync.error": "\(failure.note)",
                    "sync.outageSeconds": "\(after)",
                ])
            case .endpointUnsupported(let interval, let message):
                logger.warning("The sink does not serve an endpoint: its intervals stay pending", metadata: [
                    "sync.endpoint": "\(SinkEndpoint.of(interval).path)", "sync.error": "\(message)",
                ])
            case .progress(let snapshot):
                progress(SyncProgress(snapshot, server: uploader.server))
            case .finish:
                finished = true
            }
        }
        return finished
    }

    /// The stop requests the machine is told of: the caller's, or two once the run's own task is cancelled (its
    /// caller gave up on it) — so it ends at once rather than spinning through waits that return immediately until
    /// the give-up deadline.
    static func stopRequests(_ stop: SyncStop) -> Int {
        Task.isCancelled ? max(2, stop.requestCount) : stop.requestCount
    }

    /// Step counts first (the HealthStepsSync wire), then the other types in identifier order.
    static func syncOrder(_ types: [SampleType]) -> [SampleType] {
        types.filter { $0 == .stepCount } + types.filter { $0 != .stepCount }.sorted()
    }
}
