/// The decisions of waiting for a sink that cannot take requests, as a value: events in, an ``Action`` out, no I/O
/// and no clock (the engine passes the time, read from the clock it was given).
///
/// A dead or overloaded sink is one fact about the server, not a fault of each interval: rather than every interval
/// retrying on its own and ending `failed`, the engine stops starting intervals, lets those in flight end, and waits
/// with **one** shared backoff; then it probes the sink (`GET /health`) and, once the sink answers, sends again.
///
/// ```
/// healthy ──failed──▶ down ──(nothing in flight) nextStep──▶ wait(d) ──probe fails──▶ down …
///    ▲                 │                        └──────────▶ giveUp (down for giveUpAfter)
///    │                 └──probeAnswered──▶ recovering ──failed──▶ down (same outage: the clock keeps running)
///    └────────────────intervalAnswered──────────┘
/// ```
///
/// The delay before probe `n` (1-based) of one outage is `min(base · 2^(n−1), maxDelay) · (1 ± jitter)`, or the
/// sink's `Retry-After` (capped at `maxRetryAfter`, no jitter), and never past the give-up deadline. With the
/// defaults (base 2 s, cap 30 s, ±10 %):
///
/// | probe n    | 1   | 2   | 3   | 4    | ≥ 5  |
/// |------------|-----|-----|-----|------|------|
/// | wait (±10%)| 2 s | 4 s | 8 s | 16 s | 30 s |
///
/// After `giveUpAfter` seconds of one outage (`0`: never) the run gives up: every unsent interval stays `pending`; a
/// failure waiting cannot mend (an untrusted TLS certificate, ``SinkFailure/isFatal``) gives up at once.
/// Only an answer to an interval's request (an acknowledgement, or a refusal of its content) ends an outage — a
/// sink whose `/health` answers while every POST gets 503 stays down, and the give-up clock keeps running.
public struct SinkOutageMachine: Sendable {
    /// How long and how often to wait for the sink.
    public struct Policy: Hashable, Sendable {
        /// The first wait, in seconds (`--backoff-base`).
        public var baseSeconds: Double
        /// The longest wait, before jitter.
        public var maxDelaySeconds: Double
        /// The jitter as a fraction of the wait (0.1 = ±10 %).
        public var jitter: Double
        /// Give up after one outage lasted this long, in seconds (`--give-up-after`); 0 keeps trying.
        public var giveUpAfterSeconds: Double
        /// The longest `Retry-After` honoured as given.
        public var maxRetryAfterSeconds: Double

        /// The defaults of `stepsync sync`: 2 s doubling to 30 s, ±10 %, give up after 5 minutes.
        public static let `default` = Policy()

        /// Creates a policy; values are clamped to sane ranges.
        public init(baseSeconds: Double = 2, maxDelaySeconds: Double = 30, jitter: Double = 0.1,
                    giveUpAfterSeconds: Double = 300, maxRetryAfterSeconds: Double = 300) {
            self.baseSeconds = max(0, baseSeconds)
            self.maxDelaySeconds = max(self.baseSeconds, maxDelaySeconds)
            self.jitter = min(1, max(0, jitter))
            self.giveUpAfterSeconds = max(0, giveUpAfterSeconds)
            self.maxRetryAfterSeconds = max(0, maxRetryAfterSeconds)
        }
    }

    /// What the engine must do, once nothing is in flight, while the sink is down.
    public enum Action: Hashable, Sendable {
        /// Wait this long (ending the wait at once on a stop request), then probe the sink.
        case wait(Duration, SinkFailure)
        /// Stop trying: the outage has lasted `giveUpAfter`. Every unsent interval stays pending.
        case giveUp(SinkFailure, afterSeconds: Double)
    }

    private enum State: Hashable, Sendable {
        case healthy
        case down(since: Duration, waits: Int, last: SinkFailure)
        case recovering(since: Duration, waits: Int, last: SinkFailure)
    }

    /// The policy in force.
    public let policy: Policy
    private var state: State = .healthy

    /// Creates the machine; the sink is taken as healthy until a failure says otherwise.
    public init(policy: Policy = .default) {
        self.policy = policy
    }

    /// Whether the sink is down: no interval may start.
    public var isDown: Bool {
        if case .down = state { return true }
        return false
    }

    /// The failure of the outage under way (down or recovering), if any.
    public var lastFailure: SinkFailure? {
        switch state {
        case .healthy: return nil
        case .down(_, _, let last), .recovering(_, _, let last): return last
        }
    }

    /// How many waits the outage under way has had.
    public var waits: Int {
        switch state {
        case .healthy: return 0
        case .down(_, let waits, _), .recovering(_, let waits, _): return waits
        }
    }

    /// A request failed for the whole sink at `now` (time since the run began): an interval's POST, or a probe. Starts
    /// an outage, or continues the one under way (its start and its count of waits are kept).
    public mutating func failed(_ failure: SinkFailure, at now: Duration) {
        switch state {
        case .healthy:
            state = .down(since: now, waits: 0, last: failure)
        case .down(let since, let waits, _), .recovering(let since, let waits, _):
            state = .down(since: since, waits: waits, last: failure)
        }
    }

    /// The probe after a wait got an answer (any HTTP status): intervals may be sent again, but the outage is over
    /// only when one of them is answered.
    public mutating func probeAnswered() {
        if case .down(let since, let waits, let last) = state {
            state = .recovering(since: since, waits: waits, last: last)
        }
    }

    /// An interval's request was answered (acknowledged, or its content refused): the sink is taking requests.
    public mutating func intervalAnswered() {
        state = .healthy
    }

    /// What to do next while the sink is down and nothing is in flight, at `now` (time since the run began).
    public mutating func nextStep<G: RandomNumberGenerator>(at now: Duration, using generator: inout G) -> Action {
        guard case .down(let since, let waits, let last) = state else {
            preconditionFailure("nextStep(at:) while the sink is not down")
        }
        let elapsed = (now - since).inSeconds
        let giveUp = policy.giveUpAfterSeconds
        if last.isFatal || (giveUp > 0 && elapsed >= giveUp) {
            return .giveUp(last, afterSeconds: elapsed)
        }
        var delay: Double
        if let retryAfter = last.retryAfterSeconds, retryAfter.isFinite {
            delay = min(max(0, retryAfter), policy.maxRetryAfterSeconds)
        } else {
            delay = delaySeconds(beforeProbe: waits + 1, using: &generator)
        }
        if giveUp > 0 { delay = min(delay, giveUp - elapsed) }
        state = .down(since: since, waits: waits + 1, last: last)
        return .wait(RetryPolicy.duration(seconds: delay), last)
    }

    /// The jittered wait before probe `n` (1-based) of an outage, in seconds, before `Retry-After` and the deadline.
    public func delaySeconds<G: RandomNumberGenerator>(beforeProbe n: Int, using generator: inout G) -> Double {
        let backoff = RetryPolicy(baseSeconds: policy.baseSeconds, maxDelaySeconds: policy.maxDelaySeconds,
                                  jitter: policy.jitter)
        let nominal = backoff.nominalDelaySeconds(afterAttempt: n)
        let factor = policy.jitter > 0 ? 1 + Double.random(in: -policy.jitter...policy.jitter, using: &generator) : 1
        return nominal * factor
    }
}
