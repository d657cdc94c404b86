/// The decisions of one request of the sync, as a value: events in, one ``Action`` out — no I/O, no clock, no
/// concurrency.
///
/// A request carries the samples (or deletions) of one or more claimed intervals (``RequestPacking``). The engine's
/// task for it (`SyncEngine+Request.swift`) claims them, reads and encodes the body, and then only does what this
/// machine says: send the samples from some index on (the whole body, or the first part that fits the sink's limit,
/// ``RequestSplit``), lower the run's body limit after a 413, wait out a retry's backoff, leave a refused sample out,
/// and finally mark the intervals synced or failed, put them back to pending, or hand them to the shared wait for the
/// sink. Each of those ends comes back as an ``Event``.
///
/// It composes ``IntervalSendMachine`` (postgres-nio's machines inside machines): that one decides what one send's
/// outcome means (retry, fail, split, drop, yield); this one keeps the request's own book — how many samples the sink
/// acknowledged so far (the parts of a body cut to fit), what the acknowledgements add up to, how many samples are
/// left after those refused — and starts a fresh ``IntervalSendMachine`` for every part.
///
/// ```
/// ready ──start──▶ send(from 0) ──▶ sending            (no samples: markSynced at once)
/// sending ──answered──┬─ 2xx, samples left ─────────────▶ ready, send(from acknowledged)   (a part of a cut body)
///                     ├─ 2xx, samples left, stopping ───▶ done(requeue)
///                     ├─ 2xx, the last ─────────────────▶ done(markSynced)
///                     ├─ 404/405, optional endpoint ────▶ done(endpointMissing)
///                     ├─ 413 ───────────────────────────▶ splitting(split) ──limitLowered──▶ ready, send
///                     ├─ sample refused ────────────────▶ dropping(dropSample) ──sampleDropped──▶ ready, send
///                     │                                     (none left to send: markSynced; not found: markFailed)
///                     ├─ transient ─────────────────────▶ waiting(retry) ──waitEnded──▶ ready, send | done(requeue)
///                     └─ permanent / sink down ─────────▶ done(markFailed | yieldToSink | requeue)
/// ```
///
/// Tested as a table of (event → action, state) rows in `RequestSendMachineTests`.
public struct RequestSendMachine: Sendable {
    /// What the engine must do next.
    public enum Action: Hashable, Sendable {
        /// Send the samples from index `from` on: all of them while no body limit is known (or the body cannot be
        /// cut: deletions), else the first part that fits. Then ``Event/answered(_:part:bodyBytes:stopping:)``.
        case send(from: Int)
        /// The body of `bodyBytes` was refused as too large (413): lower the run's body limit below it and say so;
        /// then ``Event/limitLowered``.
        case split(String, bodyBytes: Int)
        /// Say so, and wait this long (ending at once on a stop); then ``Event/waitEnded(completed:)``.
        case retry(after: Duration, reason: String)
        /// Leave the payload's sample at `index` out of the body and record it as rejected; then
        /// ``Event/sampleDropped(found:)``.
        case dropSample(at: Int, SampleRefusal)
        /// Done: mark the intervals synced; the sink acknowledged `total` for the `count` samples sent.
        case markSynced(count: Int, total: SinkAcknowledgement)
        /// Done: the request failed for good with `message` after `sends` sends of its last part (one interval is
        /// marked failed; several go back to pending, to be sent one by one).
        case markFailed(String, sends: Int)
        /// Done: put the intervals back to pending with this reason (a stop).
        case requeue(String)
        /// Done: put the intervals back to pending; the sink as a whole is down.
        case yieldToSink(SinkFailure)
        /// Done: the sink does not serve the endpoint (`HTTP 404: …`); the intervals stay pending.
        case endpointMissing(String)
    }

    /// What the engine tells the machine: an action's end.
    public enum Event: Hashable, Sendable {
        /// The send of samples `part` (a body of `bodyBytes`) ended with `outcome`; `stopping` says whether a stop
        /// was requested by then.
        case answered(UploadOutcome, part: Range<Int>, bodyBytes: Int, stopping: Bool)
        /// The body limit was lowered (after ``Action/split(_:bodyBytes:)``).
        case limitLowered
        /// A retry's wait ended: `completed` when it ran its course, `false` when a stop cut it short.
        case waitEnded(completed: Bool)
        /// The refused sample was left out (`found`), or its index is none of the body's samples.
        case sampleDropped(found: Bool)
    }

    /// Where the request stands.
    public enum State: Hashable, Sendable {
        /// Nothing under way: the next action is a send (or the start).
        case ready
        /// A send is under way.
        case sending
        /// Waiting out a retry's backoff after a transient `reason`.
        case waiting(reason: String)
        /// The run's body limit is being lowered after a 413.
        case splitting
        /// The refused sample is being left out.
        case dropping(SampleRefusal)
        /// Over: the last action was one of the ends.
        case done
    }

    /// Where the request stands.
    public private(set) var state: State = .ready
    /// Samples (or deletions) the request carries, less those left out since.
    public private(set) var count: Int
    /// Samples `0..<acknowledged` were acknowledged (the parts sent so far of a body cut to fit).
    public private(set) var acknowledged = 0
    /// What their acknowledgements add up to.
    public private(set) var total = SinkAcknowledgement(saved: 0, inserted: 0, duplicates: 0)
    /// Whether the body may be cut into parts and samples left out of it (samples; deletions go whole).
    public let splittable: Bool
    /// Whether the sink may not serve the endpoint at all (`/samples`, `/samples/delete`: a sink of the
    /// HealthStepsSync wire serves only the step counts' endpoints).
    public let endpointOptional: Bool
    /// The decisions of the part under way.
    public private(set) var attempt: IntervalSendMachine
    /// The jitter of the retries.
    private var random: SplitMix64

    /// Creates the machine of a request of `count` samples (or deletions).
    ///
    /// - Parameter seed: the retries' jitter is drawn from a generator seeded with it.
    public init(count: Int, splittable: Bool, endpointOptional: Bool, policy: RetryPolicy, seed: UInt64) {
        self.count = max(0, count)
        self.splittable = splittable
        self.endpointOptional = endpointOptional
        attempt = IntervalSendMachine(policy: policy)
        random = SplitMix64(seed: seed)
    }

    /// Sends of the part under way (the one under way included).
    public var attempts: Int { attempt.sends }

    /// The first action: send from the first sample, or — with none to send (deleted since layering, or all
    /// invalid) — mark the intervals synced without a request.
    public mutating func start() -> Action {
        precondition(state == .ready && acknowledged == 0, "start() in state \(state)")
        guard count > 0 else { return finish(.markSynced(count: 0, total: total)) }
        return send()
    }

    /// Takes an action's end in; returns the next action.
    public mutating func handle(_ event: Event) -> Action {
        switch (state, event) {
        case (.sending, .answered(let outcome, let part, let bodyBytes, let stopping)):
            return answered(outcome, part: part, bodyBytes: bodyBytes, stopping: stopping)
        case (.splitting, .limitLowered):
            return send()
        case (.waiting(let reason), .waitEnded(let completed)):
            guard completed else {
                guard case .requeue(let why) = attempt.paused() else { preconditionFailure("paused() requeues") }
                return finish(.requeue("\(reason) (\(why))"))
            }
            return send()
        case (.dropping(let refusal), .sampleDropped(let found)):
            guard found else { return finish(.markFailed(refusal.description, sends: attempt.sends)) }
            count -= 1
            guard acknowledged < count else { return finish(.markSynced(count: count, total: total)) }
            return send()
        default:
            preconditionFailure("\(event) in state \(state)")
        }
    }

    // MARK: - Steps

    private mutating func send() -> Action {
        state = .sending
        return .send(from: acknowledged)
    }

    private mutating func finish(_ action: Action) -> Action {
        state = .done
        return action
    }

    private mutating func answered(
        _ outcome: UploadOutcome, part: Range<Int>, bodyBytes: Int, stopping: Bool
    ) -> Action {
        if endpointOptional, case .rejected(let status, let message, _) = outcome, status == 404 || status == 405 {
            // A fact about the sink, not about these intervals: they stay pending.
            return finish(.endpointMissing("HTTP \(status): \(message.prefix(120))"))
        }
        attempt.startSend(samples: splittable ? part.count : 1)
        switch attempt.received(outcome, stopping: stopping, using: &random) {
        case .markSynced(let ack):
            total.saved += ack.saved
            total.inserted += ack.inserted
            total.duplicates += ack.duplicates
            total.deleted += ack.deleted
            acknowledged = splittable ? min(count, part.upperBound) : count
            guard acknowledged < count else { return finish(.markSynced(count: count, total: total)) }
            // A part of a body cut to fit: the intervals are marked synced only once every part is acknowledged (a
            // crash between parts resends them whole). A stop ends here: the next run resends them, and the sink
            // counts the parts it has as duplicates.
            if stopping { return finish(.requeue("paused between the parts of a split request")) }
            attempt = IntervalSendMachine(policy: attempt.policy, maxRefusedSamples: attempt.maxRefusedSamples)
            return send()
        case .split(let reason):
            state = .splitting
            return .split(reason, bodyBytes: bodyBytes)
        case .retry(let delay, let reason):
            state = .waiting(reason: reason)
            return .retry(after: delay, reason: reason)
        case .dropSample(let refusal):
            // The index is the sample's in the body sent: the part's.
            state = .dropping(refusal)
            let (index, overflow) = part.lowerBound.addingReportingOverflow(refusal.index)
            return .dropSample(at: overflow ? -1 : index, refusal)
        case .markFailed(let message):
            return finish(.markFailed(message, sends: attempt.sends))
        case .requeue(let reason):
            return finish(.requeue(reason))
        case .yieldToSink(let failure):
            return finish(.yieldToSink(failure))
        }
    }
}
