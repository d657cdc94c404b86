import Foundation
import Logging
import StepSyncCore
import StepSyncStore

/// Syncs the store's pending intervals of every sample type to the sink: claim → send → mark, at most `concurrency`
/// in flight.
///
/// The protocol, for each pending interval (step counts first, then the other types; oldest first in each):
/// 1. **claim**: `markInFlight` (pending → inFlight, one more attempt) — durable before anything is sent;
/// 2. **send**: read the interval's raw samples (`[start, end)`, paged), leave out those ``SampleValidation`` finds
///    invalid (recorded as rejected), encode the rest once (``WireEncoder``), POST (`/steps` for step counts,
///    `/samples` for the other types); transient faults of this request are retried with backoff inside the
///    interval's task (``IntervalSendMachine``);
/// 3. **mark**: `markSynced` (fsynced) on the sink's acknowledgement — only then does the interval count as done;
///    a 4xx marks it `failed` with the reason (a 4xx naming one sample leaves that sample out and resends the rest).
///
/// **Packing.** Consecutive small samples intervals of one type share a request of at most
/// ``SyncConfiguration/maxSamplesPerRequest`` samples (``RequestPacking``): they are claimed in one transaction, sent
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
/// still pending (``SinkOutageMachine``). The sink is probed once before the first interval too.
///
/// Concurrency is a task group filled to `concurrency` interval tasks and topped up as each finishes, plus one task
/// watching the ``SyncStop``: the first request stops the topping-up and ends every wait at once (the interval
/// waiting goes back to pending; those sending finish), the second cancels the tasks in flight (they go back to
/// pending). Every wait is on the injected `time`, and every jitter comes from generators seeded by `randomSeed`,
/// so tests drive retries, outages and pauses without real sleeps.
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
        time: TimeSource = .system,
        randomSeed: UInt64 = UInt64.random(in: .min ... .max)
    ) {
        self.store = store
        self.uploader = uploader
        self.configuration = configuration
        self.logger = logger
        self.time = time
        self.randomSeed = randomSeed
    }

    /// What the group's tasks report back to the loop.
    private enum Event: Sendable {
        case stopRequested(count: Int)
        /// One request's intervals ended; `notPending` of them were no longer pending when claimed (skipped).
        case interval(IntervalResult, rejected: [RejectedSample], notPending: Int)
        case waited(completed: Bool)
        case probed(SinkFailure?)
    }

    /// How one request's task ended (for the intervals it claimed).
    private enum IntervalResult: Sendable {
        /// `intervals` intervals carrying `count` samples (or deletions) were acknowledged and marked synced.
        case synced(IntervalKind, intervals: Int, count: Int, SinkAcknowledgement)
        case failed
        case requeued(Int)
        case notPending
        /// A request of several intervals hit a permanent failure: they are pending again and go alone.
        case split([SyncInterval])
        case sinkUnavailable([SyncInterval], SinkFailure)
        case endpointMissing(SinkEndpoint, message: String, intervals: Int)
    }

    /// What the loop is doing besides the intervals in flight.
    private enum Phase {
        case sending
        case waitingForSink
        case probing
        case gaveUp
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
        var state = SyncProgress(done: 0, total: queue.count, synced: 0, failed: 0, samplesSent: 0, elapsedSeconds: 0)
        var outage = SinkOutageMachine(policy: configuration.outagePolicy)
        var random = SplitMix64(seed: SplitMix64.hash(randomSeed, 0x0D0A, 0))
        var rejectedSeen = Set<UUID>()
        var missingEndpoints: [SinkEndpoint: String] = [:]
        let bodyLimit = SharedBodyLimit(configured: configuration.maxRequestBytes)

        if configuration.probeFirst, !queue.isEmpty, stop.requestCount == 0, let failure = await uploader.probe() {
            outage.failed(failure, at: elapsed())
        }

        try await withThrowingTaskGroup(of: Event.self) { group in
            var next = queue.startIndex
            var running = 0
            /// Intervals that must go in a request of their own (their packed request failed permanently).
            var alone = Set<Int64>()
            var phase = Phase.sending
            var stopping = false
            var cancelled = false
            var waitStarted = Duration.zero
            group.addTask {
                await stop.requested(count: 1)
                return .stopRequested(count: 1)
            }
            /// Acts on the stop requests made so far.
            func observeStop(_ group: inout ThrowingTaskGroup<Event, any Error>) {
                let requests = stop.requestCount
                if requests >= 1, !stopping {
                    stopping = true
                    report.stopped = true
                    logger.notice("Stop requested: finishing the intervals in flight",
                                  metadata: ["sync.inFlight": "\(running)"])
                }
                if requests >= 2, !cancelled {
                    cancelled = true
                    logger.notice("Second stop: cancelling the intervals in flight",
                                  metadata: ["sync.inFlight": "\(running)"])
                    group.cancelAll()
                }
            }

            while true {
                // Start what may start: intervals up to the limit, or — the sink being down and nothing in flight —
                // the shared wait (or giving up).
                observeStop(&group)
                if phase == .sending, !stopping {
                    if outage.isDown {
                        if running == 0 {
                            switch outage.nextStep(at: elapsed(), using: &random) {
                            case .giveUp(let failure, let after):
                                phase = .gaveUp
                                report.gaveUp = failure.message(server: uploader.server)
                                report.gaveUpAfterSeconds = after
                                report.gaveUpAtOnce = failure.isFatal
                                logger.info("Gave up waiting for the sink", metadata: [
                                    "sync.server": "\(uploader.server)", "sync.error": "\(failure.note)",
                                    "sync.outageSeconds": "\(after)",
                                ])
                            case .wait(let delay, let failure):
                                phase = .waitingForSink
                                waitStarted = elapsed()
                                report.serverWaits += 1
                                state.serverWait = .init(message: failure.message(server: uploader.server),
                                                         retryInSeconds: delay.inSeconds)
                                logger.info("Waiting for the sink", metadata: [
                                    "sync.server": "\(uploader.server)", "sync.error": "\(failure.note)",
                                    "sync.delay": "\(delay)",
                                ])
                                state.elapsedSeconds = elapsed().inSeconds
                                progress(state)
                                group.addTask { [time] in
                                    .waited(completed: await Self.wait(delay, on: time, unlessStopped: stop))
                                }
                            }
                        }
                    } else {
                        while running < configuration.concurrency, next < queue.endIndex {
                            let interval = queue[next]
                            if !missingEndpoints.isEmpty, missingEndpoints[SinkEndpoint.of(interval)] != nil {
                                // The sink does not serve this interval's endpoint: leave it pending.
                                report.skipped += 1
                                state.done += 1
                                next += 1
                                continue
                            }
                            var take = alone.contains(interval.id) ? 1
                                : RequestPacking.count(queue[next...], maxSamples: configuration.maxSamplesPerRequest)
                            if take > 1, !alone.isEmpty,
                               let first = queue[(next + 1)..<(next + take)].firstIndex(where: { alone.contains($0.id) }) {
                                take = first - next  // an interval whose packed request failed goes alone
                            }
                            let batch = Array(queue[next..<(next + take)])
                            group.addTask {
                                let (result, rejected, notPending) = try await self.send(batch, stop: stop, bodyLimit: bodyLimit)
                                return .interval(result, rejected: rejected, notPending: notPending)
                            }
                            next += take
                            running += 1
                        }
                    }
                }
                if running == 0, phase == .sending || phase == .gaveUp { break }

                guard let event = try await group.next() else { break }
                switch event {
                case .stopRequested(let count):
                    observeStop(&group)
                    if count == 1, !cancelled {
                        group.addTask {
                            await stop.requested(count: 2)
                            return .stopRequested(count: 2)
                        }
                    }
                case .waited(let completed):
                    report.serverWaitSeconds += (elapsed() - waitStarted).inSeconds
                    state.serverWait = nil
                    if completed, !stopping {
                        phase = .probing
                        group.addTask { .probed(await uploader.probe()) }
                    } else {
                        phase = .sending
                        state.elapsedSeconds = elapsed().inSeconds
                        progress(state)
                    }
                case .probed(let failure):
                    phase = .sending
                    if let failure {
                        outage.failed(failure, at: elapsed())
                    } else {
                        outage.probeAnswered()
                        state.elapsedSeconds = elapsed().inSeconds
                        progress(state)
                    }
                case .interval(let result, let rejected, let notPending):
                    running -= 1
                    state.done += notPending
                    for record in rejected where rejectedSeen.insert(record.uuid).inserted {
                        report.rejectedThisRun += 1
                        if report.rejected.count < SyncReport.maxListedRejections { report.rejected.append(record) }
                    }
                    state.rejected = report.rejectedThisRun
                    switch result {
                    case .synced(let kind, let intervals, let count, let ack):
                        outage.intervalAnswered()
                        report.synced += intervals
                        switch kind {
                        case .samples:
                            report.samples += count
                            report.inserted += ack.inserted
                            report.duplicates += ack.duplicates
                            state.samplesSent += count
                        case .deletions:
                            report.deletionsSent += count
                            report.deleted += ack.deleted
                        }
                        state.synced += intervals
                        state.done += intervals
                    case .failed:
                        outage.intervalAnswered()
                        report.failedThisRun += 1
                        state.failed += 1
                        state.done += 1
                    case .requeued(let intervals):
                        report.requeued += intervals
                        state.done += intervals
                    case .notPending:
                        break
                    case .split(let intervals):
                        // Pending again: each goes in a request of its own, so the failure is pinned on one interval.
                        outage.intervalAnswered()
                        for interval in intervals { alone.insert(interval.id) }
                        queue += intervals
                    case .endpointMissing(let endpoint, let message, let intervals):
                        outage.intervalAnswered()
                        if missingEndpoints[endpoint] == nil {
                            missingEndpoints[endpoint] = message
                            report.unsupported.append("the sink at \(uploader.server) does not take POST \(endpoint.path) "
                                + "(\(message)): the intervals of types other than step counts stay pending — update "
                                + "the sink, or sync only step counts with --type \(SampleType.stepCount.rawValue)")
                            logger.warning("The sink does not serve an endpoint: its intervals stay pending",
                                           metadata: ["sync.endpoint": "\(endpoint.path)", "sync.error": "\(message)"])
                        }
                        report.skipped += intervals
                        state.done += intervals
                    case .sinkUnavailable(let intervals, let failure):
                        // Not these intervals' fault: they are pending again and go to the back of the queue.
                        outage.failed(failure, at: elapsed())
                        if stopping {
                            report.requeued += intervals.count
                            state.done += intervals.count
                        } else {
                            queue += intervals
                        }
                    }
                    state.elapsedSeconds = elapsed().inSeconds
                    state.activeSeconds = max(0, state.elapsedSeconds - report.serverWaitSeconds)
                    progress(state)
                }
            }
            // Only the stop watchers can be left: end them.
            group.cancelAll()
        }

        let learnt = bodyLimit.value
        report.tooLarge = learnt.refusals
        report.requestLimitBytes = learnt.limit
        try summarise(into: &report, types: types)
        report.seconds = elapsed().inSeconds
        return report
    }

    /// Fills the ledger's part of the report: counts by status over `types`, failures, rejected samples.
    private func summarise(into report: inout SyncReport, types: [SampleType]) throws {
        for type in types {
            let summary = try store.intervalSummary(of: type)
            report.totalIntervals += summary.intervals
            report.totalSynced += summary.synced
            report.failed += summary.failed
            report.pending += summary.pending + summary.inFlight
            report.failures += try store.intervals(of: type, status: [.failed]).map {
                SyncFailure(intervalId: $0.id, type: type, range: $0.range, attempts: $0.attempts,
                            message: $0.lastError ?? "")
            }
        }
        let rejectedCounts = try store.rejectedCounts()
        report.rejectedTotal = types.reduce(0) { $0 + (rejectedCounts[$1] ?? 0) }
    }

    // MARK: - One request

    /// Claims, sends (with retries) and marks one request's intervals: one interval, or several consecutive small
    /// ones of one type (``RequestPacking``) claimed in one transaction, sent in one body and marked synced in one
    /// transaction once the sink acknowledged it. Also returns the samples it left out as invalid, and how many of
    /// `batch` were no longer pending.
    private func send(
        _ batch: [SyncInterval], stop: SyncStop, bodyLimit: SharedBodyLimit
    ) async throws -> (IntervalResult, [RejectedSample], notPending: Int) {
        let claimedIds: [Int64]
        do {
            claimedIds = try await store.claim(batch.map(\.id))
        } catch is CancellationError {
            // The claim's transaction was interrupted (all or nothing); put back whatever it may have committed.
            try store.requeueClaimed(batch.map(\.id))
            return (.requeued(batch.count), [], 0)
        }
        let notPending = batch.count - claimedIds.count
        guard !claimedIds.isEmpty else { return (.notPending, [], notPending) }
        let intervals = notPending == 0 ? batch : batch.filter { Set(claimedIds).contains($0.id) }
        let ids = claimedIds
        let kind = intervals[0].kind
        var metadata: Logger.Metadata = ["sync.interval.id": "\(ids[0])"]
        if ids.count > 1 { metadata["sync.intervals"] = "\(ids.count)" }
        var rejected: [RejectedSample] = []
        let none = SinkAcknowledgement(saved: 0, inserted: 0, duplicates: 0)
        do {
            var payload = try IntervalPayload(of: intervals, store: store, pageSize: configuration.pageSize,
                                              nowMs: time.nowMs())
            if !payload.rejected.isEmpty {
                rejected = payload.rejected
                try store.recordRejected(rejected)
                metadata["sync.rejected"] = "\(rejected.count)"
                logger.warning("Left invalid samples out of an interval", metadata: metadata)
            }
            if payload.count == 0 {
                // Nothing to send (the samples were deleted since layering, or all are invalid): done without a request.
                try await store.markSynced(ids, atMs: time.nowMs())
                return (.synced(kind, intervals: ids.count, count: 0, none), rejected, notPending)
            }
            var machine = IntervalSendMachine(policy: configuration.retryPolicy)
            var random = SplitMix64(seed: SplitMix64.hash(randomSeed, 0x1A7E, Int(truncatingIfNeeded: ids[0])))
            // Samples 0..<acknowledged of the payload are acknowledged (the parts sent so far of a body cut to fit
            // the sink's limit); their acknowledgements add up in `total`.
            var acknowledged = 0
            var total = none
            while true {
                try Task.checkCancellation()
                let range = nextPart(of: payload, from: acknowledged, limit: bodyLimit.limit)
                let body = payload.isSplittable ? payload.body(of: range) : payload.body
                machine.startSend(samples: payload.isSplittable ? range.count : 1)
                let outcome = try await uploader.send(body, to: payload.endpoint,
                                                      itemCount: payload.isSplittable ? range.count : payload.count)
                if let message = Self.missingEndpoint(outcome, payload.endpoint) {
                    // A sink without /samples (HealthStepsSync, an older stepsync): a fact about the sink, not about
                    // these intervals — they stay pending, and so do the others of their endpoint.
                    try store.requeueClaimed(ids, error: message)
                    return (.endpointMissing(payload.endpoint, message: message, intervals: ids.count), rejected,
                            notPending)
                }
                let action = machine.received(outcome, stopping: stop.requestCount > 0, using: &random)
                metadata["sync.attempt"] = "\(machine.attempts)"
                switch action {
                case .markSynced(let ack):
                    bodyLimit.accepted(bodyBytes: body.count)
                    total.saved += ack.saved
                    total.inserted += ack.inserted
                    total.duplicates += ack.duplicates
                    total.deleted += ack.deleted
                    acknowledged = payload.isSplittable ? range.upperBound : payload.count
                    if acknowledged < payload.count {
                        // A part of a body cut to fit. The intervals are marked synced only once every part is
                        // acknowledged (a crash between parts resends them whole). A pause stops here: they go back
                        // to pending, and the next run resends them (the sink counts the parts it has as duplicates).
                        if stop.requestCount > 0 {
                            try store.requeueClaimed(ids, error: "paused between the parts of a split request")
                            return (.requeued(ids.count), rejected, notPending)
                        }
                        machine = IntervalSendMachine(policy: configuration.retryPolicy)
                        continue
                    }
                    try await store.markSynced(ids, atMs: time.nowMs())
                    if total.saved != payload.count {
                        metadata["sync.saved"] = "\(total.saved)"
                        metadata["sync.sent"] = "\(payload.count)"
                        logger.warning("The sink acknowledged another number of samples than sent", metadata: metadata)
                    }
                    return (.synced(kind, intervals: ids.count, count: payload.count, total), rejected, notPending)
                case .split(let reason):
                    let limit = bodyLimit.refused(bodyBytes: body.count)
                    metadata["sync.error"] = "\(reason)"
                    metadata["sync.bodyBytes"] = "\(body.count)"
                    metadata["sync.limitBytes"] = "\(limit)"
                    logger.info("A request was too large for the sink: sending it in smaller parts", metadata: metadata)
                case .retry(let delay, let reason):
                    metadata["sync.error"] = "\(reason)"
                    metadata["sync.delay"] = "\(delay)"
                    logger.info("Retrying an interval after a transient failure", metadata: metadata)
                    guard await Self.wait(delay, on: time, unlessStopped: stop) else {
                        try Task.checkCancellation()
                        guard case .requeue(let why) = machine.paused() else { preconditionFailure() }
                        try store.requeueClaimed(ids, error: "\(reason) (\(why))")
                        return (.requeued(ids.count), rejected, notPending)
                    }
                case .dropSample(let refusal):
                    // The index is the sample's in the body sent: the part's.
                    guard let removed = payload.removeSample(at: range.lowerBound + refusal.index) else {
                        return (try fail(intervals, message: refusal.description, sends: machine.sends), rejected, notPending)
                    }
                    let record = RejectedSample(
                        uuid: removed.uuid, type: intervals[0].type, reason: refusal.reason, field: refusal.field,
                        detail: String(refusal.description.prefix(200)), intervalId: removed.intervalId,
                        foundBy: .sink, atMs: time.nowMs())
                    try store.recordRejected([record])
                    rejected.append(record)
                    metadata["sync.rejected.uuid"] = "\(removed.uuid)"
                    metadata["sync.error"] = "\(refusal.description)"
                    logger.warning("The sink refused a sample: left it out and resending the rest", metadata: metadata)
                    if payload.count == acknowledged {
                        try await store.markSynced(ids, atMs: time.nowMs())
                        return (.synced(kind, intervals: ids.count, count: payload.count, total), rejected, notPending)
                    }
                case .markFailed(let message):
                    metadata["sync.error"] = "\(message)"
                    logger.error("Interval failed", metadata: metadata)
                    return (try fail(intervals, message: message, sends: machine.sends), rejected, notPending)
                case .requeue(let reason):
                    try store.requeueClaimed(ids, error: reason)
                    return (.requeued(ids.count), rejected, notPending)
                case .yieldToSink(let failure):
                    try store.requeueClaimed(ids, error: failure.note)
                    return (.sinkUnavailable(intervals, failure), rejected, notPending)
                }
            }
        } catch is CancellationError {
            try store.requeueClaimed(ids)
            return (.requeued(ids.count), rejected, notPending)
        } catch {
            // A store error: put the claims back (best effort) and let the run fail.
            try? store.requeueClaimed(ids)
            throw error
        }
    }

    /// The samples of the next request of `payload`, from sample `start` on: all of them while no limit is known,
    /// else the first part ``RequestSplit`` cuts to fit `limit` (packed intervals apart first, then one interval's
    /// samples).
    private func nextPart(of payload: IntervalPayload, from start: Int, limit: Int?) -> Range<Int> {
        guard payload.isSplittable, start < payload.count else { return start..<payload.count }
        guard let limit else { return start..<payload.count }
        let parts = RequestSplit.parts(sizes: payload.objectSizes(from: start), owners: Array(payload.owners(from: start)),
                                       overhead: IntervalPayload.overhead, limit: limit)
        guard let first = parts.first else { return start..<payload.count }
        return (start + first.lowerBound)..<(start + first.upperBound)
    }

    /// A permanent failure: one interval is marked `failed` with `message`, its ledger attempts counting each of the
    /// run's `sends` (the claim counted the first); several are put back to pending to be sent one by one, so that the
    /// failure lands on the interval that causes it.
    private func fail(_ intervals: [SyncInterval], message: String, sends: Int) throws -> IntervalResult {
        if intervals.count == 1 {
            try store.markFailed(intervals[0].id, error: message, additionalAttempts: max(0, sends - 1))
            return .failed
        }
        try store.requeueClaimed(intervals.map(\.id), error: message)
        return .split(intervals)
    }

    // MARK: - Helpers

    /// The sink's message when `outcome` says it does not serve `endpoint` at all: a 404 or 405 to `/samples` or
    /// `/samples/delete` (step counts' endpoints are the HealthStepsSync wire every sink serves).
    static func missingEndpoint(_ outcome: UploadOutcome, _ endpoint: SinkEndpoint) -> String? {
        guard endpoint == .samples || endpoint == .samplesDelete,
              case .rejected(let status, let message, _) = outcome, status == 404 || status == 405
        else { return nil }
        return "HTTP \(status): \(message.prefix(120))"
    }

    /// Waits `delay` on `time`'s clock; returns `false` at once when a stop is (or was) requested or the task is
    /// cancelled.
    static func wait(_ delay: Duration, on time: TimeSource, unlessStopped stop: SyncStop) async -> Bool {
        guard stop.requestCount == 0 else { return false }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do {
                    try await time.sleep(delay)
                    return true
                } catch {
                    return false
                }
            }
            group.addTask {
                await stop.requested(count: 1)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first && !Task.isCancelled
        }
    }

    /// Step counts first (the HealthStepsSync wire), then the other types in identifier order.
    static func syncOrder(_ types: [SampleType]) -> [SampleType] {
        types.filter { $0 == .stepCount } + types.filter { $0 != .stepCount }.sorted()
    }

}
