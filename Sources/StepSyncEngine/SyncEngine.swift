import Foundation
import Logging
import StepSyncCore
import StepSyncStore

/// Syncs the store's pending intervals to the sink: claim → send → mark, at most `concurrency` in flight.
///
/// The protocol, for each pending interval, oldest first:
/// 1. **claim**: `markInFlight` (pending → inFlight, one more attempt) — durable before anything is sent;
/// 2. **send**: read the interval's raw samples (`[start, end)`, paged), encode them once (``WireEncoder``), POST;
///    transient failures are retried with backoff inside the interval's task (``IntervalSendMachine``);
/// 3. **mark**: `markSynced` (fsynced) on the sink's acknowledgement — only then does the interval count as done;
///    a 4xx or running out of attempts marks it `failed` with the reason and the sync goes on.
///
/// A crash between 1 and 3 leaves the interval `inFlight`; the next run puts it back to pending at startup and resends
/// it, and the sink's de-duplication by uuid keeps the end state exact (the resent samples count as `duplicates`).
///
/// Concurrency is a task group filled to `concurrency` interval tasks and topped up as each finishes, plus one task
/// watching the ``SyncStop``: the first request stops the topping-up (the tasks in flight finish; one waiting out a
/// backoff goes back to pending), the second cancels the tasks in flight (they go back to pending).
public struct SyncEngine: Sendable {
    /// The store whose ledger is synced.
    public let store: StepStore
    /// Where the bodies go.
    public let uploader: any Uploader
    /// Concurrency, retries, type.
    public let configuration: SyncConfiguration
    /// Where the engine logs (one line per failure, retry and requeue).
    public let logger: Logger

    /// Creates an engine; nothing runs until ``run(stop:progress:)``.
    public init(store: StepStore, uploader: any Uploader, configuration: SyncConfiguration, logger: Logger) {
        self.store = store
        self.uploader = uploader
        self.configuration = configuration
        self.logger = logger
    }

    /// What the group's tasks report back to the loop.
    private enum Event: Sendable {
        case stopRequested
        case stopSignalEnded
        case interval(IntervalResult)
    }

    /// How one interval's task ended.
    private enum IntervalResult: Sendable {
        case synced(IntervalKind, count: Int, SinkAcknowledgement)
        case failed
        case requeued
        case notPending
    }

    /// Runs the sync until every pending interval is synced or failed, or until `stop` is requested.
    ///
    /// - Parameters:
    ///   - stop: the stop signal (first request: finish in-flight intervals and stop; second: cancel them).
    ///   - progress: called on the caller's task after each interval ends.
    /// - Returns: what the run did and what the ledger holds after it.
    /// - Throws: a store error (the disk); intervals in flight then go back to pending.
    public func run(stop: SyncStop = .never, progress: (SyncProgress) -> Void = { _ in }) async throws -> SyncReport {
        let started = ContinuousClock.now
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
        let queue = try store.intervals(of: configuration.type, status: [.pending])
        var state = SyncProgress(done: 0, total: queue.count, synced: 0, failed: 0, samplesSent: 0, elapsedSeconds: 0)

        try await withThrowingTaskGroup(of: Event.self) { group in
            var next = queue.startIndex
            var running = 0
            var stopping = false
            var cancelled = false
            /// Acts on the stop requests made so far; returns whether new intervals may start.
            func observeStop(_ group: inout ThrowingTaskGroup<Event, any Error>) -> Bool {
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
                return !stopping
            }
            group.addTask { await Self.waitForStop(stop) }
            // Fill the group to the limit…
            while running < configuration.concurrency, next < queue.endIndex, observeStop(&group) {
                let interval = queue[next]
                group.addTask { .interval(try await self.send(interval, stop: stop)) }
                next += 1
                running += 1
            }
            // …and start one more each time one finishes, until the queue is empty or a stop is requested.
            while running > 0, let event = try await group.next() {
                switch event {
                case .stopRequested:
                    _ = observeStop(&group)
                    if !cancelled { group.addTask { await Self.waitForStop(stop) } }
                case .stopSignalEnded:
                    break
                case .interval(let result):
                    running -= 1
                    state.done += 1
                    switch result {
                    case .synced(let kind, let count, let ack):
                        report.synced += 1
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
                        state.synced += 1
                    case .failed:
                        report.failedThisRun += 1
                        state.failed += 1
                    case .requeued:
                        report.requeued += 1
                    case .notPending:
                        break
                    }
                    state.elapsedSeconds = Self.seconds(since: started)
                    progress(state)
                    if next < queue.endIndex, observeStop(&group) {
                        let interval = queue[next]
                        group.addTask { .interval(try await self.send(interval, stop: stop)) }
                        next += 1
                        running += 1
                    }
                }
            }
            // Only the stop watcher can be left: end it.
            group.cancelAll()
        }

        let summary = try store.intervalSummary(of: configuration.type)
        report.totalIntervals = summary.intervals
        report.totalSynced = summary.synced
        report.failed = summary.failed
        report.pending = summary.pending + summary.inFlight
        report.failures = try store.intervals(of: configuration.type, status: [.failed]).map {
            SyncFailure(intervalId: $0.id, range: $0.range, attempts: $0.attempts, message: $0.lastError ?? "")
        }
        report.seconds = Self.seconds(since: started)
        return report
    }

    // MARK: - One interval

    /// Claims, sends (with retries) and marks one interval.
    private func send(_ interval: SyncInterval, stop: SyncStop) async throws -> IntervalResult {
        guard try store.markInFlight(interval.id) else { return .notPending }
        var metadata: Logger.Metadata = ["sync.interval.id": "\(interval.id)"]
        do {
            let (body, count) = try encodeBody(of: interval)
            if count == 0 {
                // Nothing to send (the samples were deleted since layering): done without a request.
                try store.markSynced(interval.id, atMs: Self.nowMs())
                return .synced(interval.kind, count: 0, SinkAcknowledgement(saved: 0, inserted: 0, duplicates: 0))
            }
            var machine = IntervalSendMachine(policy: configuration.retryPolicy)
            var generator = SystemRandomNumberGenerator()
            while true {
                try Task.checkCancellation()
                machine.startSend()
                let outcome = switch interval.kind {
                case .samples: try await uploader.upload(body, sampleCount: count)
                case .deletions: try await uploader.uploadDeletions(body, uuidCount: count)
                }
                let action = machine.received(outcome, stopping: stop.requestCount > 0, using: &generator)
                metadata["sync.attempt"] = "\(machine.attempts)"
                switch action {
                case .markSynced(let ack):
                    try store.markSynced(interval.id, atMs: Self.nowMs())
                    if ack.saved != count {
                        metadata["sync.saved"] = "\(ack.saved)"
                        metadata["sync.sent"] = "\(count)"
                        logger.warning("The sink acknowledged another number of samples than sent", metadata: metadata)
                    }
                    return .synced(interval.kind, count: count, ack)
                case .retry(let delay, let reason):
                    metadata["sync.error"] = "\(reason)"
                    metadata["sync.delay"] = "\(delay)"
                    logger.info("Retrying an interval after a transient failure", metadata: metadata)
                    try await Task.sleep(for: delay)
                case .markFailed(let message):
                    metadata["sync.error"] = "\(message)"
                    logger.error("Interval failed", metadata: metadata)
                    try store.markFailed(interval.id, error: message)
                    return .failed
                case .requeue(let reason):
                    try store.markPending(interval.id, error: reason)
                    return .requeued
                }
            }
        } catch is CancellationError {
            try store.markPending(interval.id)
            return .requeued
        } catch {
            // A store error: put the claim back (best effort) and let the run fail.
            try? store.markPending(interval.id)
            throw error
        }
    }

    /// The request body of an interval and how many samples (or deleted uuids) it carries.
    ///
    /// A samples interval sends its samples (start in its range, change sequence in its window), read page by page
    /// and encoded once with ``WireEncoder`` (at most a few thousand by design). A deletions interval sends the uuids
    /// of the tombstones in its sequence window as `{"uuids":[…]}`; resending one is harmless (the sink counts the
    /// uuids it no longer holds as missing).
    private func encodeBody(of interval: SyncInterval) throws -> (body: [UInt8], count: Int) {
        switch interval.kind {
        case .samples:
            var samples: [HealthSample] = []
            samples.reserveCapacity(interval.samples)
            try store.forEachSamplePage(for: interval, pageSize: configuration.pageSize) { page in
                samples.append(contentsOf: page)
            }
            return (WireEncoder.encodeRequest(samples), samples.count)
        case .deletions:
            var body = Array(#"{"uuids":["#.utf8)
            var count = 0
            var after = interval.seqAfter
            while true {
                let page = try store.tombstones(of: interval.type, seqAfter: after, seqThrough: interval.seqThrough,
                                                limit: configuration.pageSize)
                for tombstone in page {
                    if count > 0 { body.append(UInt8(ascii: ",")) }
                    body.append(UInt8(ascii: "\""))
                    body.append(contentsOf: tombstone.uuid.uuidString.utf8)
                    body.append(UInt8(ascii: "\""))
                    count += 1
                }
                guard page.count == configuration.pageSize, let last = page.last else { break }
                after = last.seq
            }
            body.append(contentsOf: "]}".utf8)
            return (body, count)
        }
    }

    // MARK: - Helpers

    private static func waitForStop(_ stop: SyncStop) async -> Event {
        for await _ in stop.requests {
            return .stopRequested
        }
        return .stopSignalEnded
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    private static func nowMs() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }
}
