/// The decisions of sending one interval, as a value: events in, an ``Action`` out, no I/O and no clock.
///
/// The engine's task for an interval is a thin shell around it: it calls ``startSend()`` before each POST, feeds the
/// outcome to ``received(_:stopping:using:)`` and does what the action says (mark synced, sleep and resend, mark
/// failed, put back to pending). Tested without concurrency in `IntervalSendMachineTests`.
///
/// ```
/// idle ──startSend──▶ sending ──accepted──────────────▶ done(markSynced)
///                       │  ├──permanent (4xx)──────────▶ done(markFailed)
///                       │  ├──transient, attempts left─▶ waiting ──startSend──▶ sending …
///                       │  ├──transient, none left─────▶ done(markFailed)
///                       │  └──transient, stopping──────▶ done(requeue)
///                       └──cancelled (any state)──────▶ done(requeue)
/// ```
public struct IntervalSendMachine: Sendable {
    /// What the engine must do next.
    public enum Action: Hashable, Sendable {
        /// Record the acknowledgement durably (`markSynced`): the interval is done.
        case markSynced(SinkAcknowledgement)
        /// Wait this long, then call ``IntervalSendMachine/startSend()`` and send again.
        case retry(after: Duration, reason: String)
        /// Record the failure (`markFailed`) with this message: the interval is done, the sync goes on.
        case markFailed(String)
        /// Put the interval back to `pending` (a paused or cancelled sync did not get it through).
        case requeue(String)
    }

    private enum State: Hashable, Sendable {
        case idle
        case sending(attempt: Int)
        case waiting(afterAttempt: Int)
        case done
    }

    /// The policy that decides retries.
    public let policy: RetryPolicy
    private var state: State = .idle

    /// Creates the machine for one interval.
    public init(policy: RetryPolicy) {
        self.policy = policy
    }

    /// Sends made so far in this run (the one under way included).
    public var attempts: Int {
        switch state {
        case .idle, .done: return lastAttempt
        case .sending(let attempt): return attempt
        case .waiting(let attempt): return attempt
        }
    }

    private var lastAttempt = 0

    /// Whether the interval has reached an end (synced, failed or requeued).
    public var isDone: Bool { state == .done }

    /// A send starts. Returns its 1-based attempt number.
    @discardableResult
    public mutating func startSend() -> Int {
        switch state {
        case .idle:
            state = .sending(attempt: 1)
            lastAttempt = 1
            return 1
        case .waiting(let previous):
            state = .sending(attempt: previous + 1)
            lastAttempt = previous + 1
            return previous + 1
        case .sending, .done:
            preconditionFailure("startSend() in state \(state)")
        }
    }

    /// The send under way ended with `outcome`. `stopping` says whether a graceful stop was requested: a transient
    /// failure then puts the interval back to pending instead of waiting out a backoff.
    public mutating func received<G: RandomNumberGenerator>(
        _ outcome: UploadOutcome,
        stopping: Bool,
        using generator: inout G
    ) -> Action {
        guard case .sending(let attempt) = state else {
            preconditionFailure("received(_:) in state \(state)")
        }
        switch outcome.classification {
        case .success:
            state = .done
            guard case .accepted(let acknowledgement) = outcome else { preconditionFailure("success without ack") }
            return .markSynced(acknowledgement)
        case .permanent(let message):
            state = .done
            return .markFailed(message)
        case .transient(let reason):
            if stopping {
                state = .done
                return .requeue(reason)
            }
            guard policy.allowsRetry(afterAttempt: attempt) else {
                state = .done
                return .markFailed("gave up after \(attempt) attempt\(attempt == 1 ? "" : "s"): \(reason)")
            }
            state = .waiting(afterAttempt: attempt)
            let delay = policy.delay(afterAttempt: attempt, retryAfterSeconds: outcome.retryAfterSeconds,
                                     using: &generator)
            return .retry(after: delay, reason: reason)
        }
    }

    /// The task was cancelled (second signal) while sending or waiting: the interval goes back to pending.
    public mutating func cancelled() -> Action {
        state = .done
        return .requeue("cancelled")
    }
}
