/// The decisions of sending one interval, as a value: events in, an ``Action`` out, no I/O and no clock.
///
/// ``RequestSendMachine`` holds one for each part of a request and folds its actions into its own: it calls
/// ``startSend()`` for each answer, feeds the outcome to ``received(_:stopping:using:)`` and turns the action into the
/// request's (mark synced, wait and resend, leave a refused sample out and resend, mark failed, put back to pending,
/// hand over to the shared wait for the sink).
/// Tested without concurrency in `IntervalSendMachineTests`.
///
/// ```
/// idle ──startSend──▶ sending ──accepted──────────────────────▶ done(markSynced)
///                       │  ├──sample refused, drops left──────▶ waiting ──startSend──▶ sending …  (dropSample)
///                       │  ├──permanent (4xx)─────────────────▶ done(markFailed)
///                       │  ├──413, body of > 1 sample─────────▶ waiting ──startSend──▶ sending …  (split)
///                       │  ├──413, body of 1 sample───────────▶ done(markFailed)
///                       │  ├──sink unreachable / 429 / 503────▶ done(yieldToSink)
///                       │  ├──transient, attempts left────────▶ waiting ──startSend──▶ sending …  (retry)
///                       │  ├──transient, none left────────────▶ done(markFailed)
///                       │  └──transient, stopping─────────────▶ done(requeue)
///   waiting ──paused──▶ done(requeue);   any state ──cancelled──▶ done(requeue)
/// ```
///
/// Faults of the whole sink (``UploadOutcome/Classification/serverUnavailable(_:)``) are not this interval's: the
/// interval goes back to pending and the engine waits for the sink once for all (``SinkOutageMachine``). Only the
/// transient faults left (a 500, a read timeout) are retried here, with ``RetryPolicy``'s backoff.
public struct IntervalSendMachine: Sendable {
    /// What the engine must do next.
    public enum Action: Hashable, Sendable {
        /// Record the acknowledgement durably (`markSynced`): the interval is done.
        case markSynced(SinkAcknowledgement)
        /// Wait this long, then call ``IntervalSendMachine/startSend()`` and send again.
        case retry(after: Duration, reason: String)
        /// Record the refused sample as rejected, leave it out of the body, then call
        /// ``IntervalSendMachine/startSend()`` and send the rest at once.
        case dropSample(SampleRefusal)
        /// Record the failure (`markFailed`) with this message: the interval is done, the sync goes on.
        case markFailed(String)
        /// The body was too large for the sink or a proxy in front of it (HTTP 413): lower the run's
        /// ``BodySizeLimit`` below its size, cut the samples not yet acknowledged into parts that fit
        /// (``RequestSplit``), then call ``IntervalSendMachine/startSend(samples:)`` and send the first. Uses no
        /// attempt.
        case split(String)
        /// Put the interval back to `pending` (a paused or cancelled sync did not get it through).
        case requeue(String)
        /// Put the interval back to `pending` and let the engine wait for the sink: the fault is the server's.
        case yieldToSink(SinkFailure)
    }

    private enum State: Hashable, Sendable {
        case idle
        case sending
        case waiting
        case done
    }

    /// The policy that decides retries.
    public let policy: RetryPolicy
    /// The most samples the sink may refuse one by one before the interval is marked failed.
    public let maxRefusedSamples: Int
    private var state: State = .idle
    /// Sends made so far in this run (the one under way included).
    public private(set) var sends = 0
    /// Sends that ended in a transient failure: they count against ``RetryPolicy/maxAttempts``.
    public private(set) var transientFailures = 0
    /// Samples the sink refused one by one so far.
    public private(set) var refusedSamples = 0
    /// Bodies refused as too large (413) so far.
    public private(set) var splits = 0
    /// The samples in the body of the send under way.
    public private(set) var samplesInSend = 1
    /// The most 413s one request may get: each at least halves the limit, so 64 cover any body.
    public static let maxSplits = 64

    /// Creates the machine for one interval.
    public init(policy: RetryPolicy, maxRefusedSamples: Int = 100) {
        self.policy = policy
        self.maxRefusedSamples = max(0, maxRefusedSamples)
    }

    /// Sends made so far in this run (the one under way included).
    public var attempts: Int { sends }

    /// Whether the interval has reached an end (synced, failed, requeued or handed to the sink's wait).
    public var isDone: Bool { state == .done }

    /// A send of a body of `samples` samples (or deletions: 1, they are never split) starts. Returns its 1-based
    /// number.
    @discardableResult
    public mutating func startSend(samples: Int = 1) -> Int {
        switch state {
        case .idle, .waiting:
            state = .sending
            samplesInSend = samples
            sends += 1
            return sends
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
        guard state == .sending else { preconditionFailure("received(_:) in state \(state)") }
        if case .refusedSample(let refusal) = outcome {
            guard refusedSamples < maxRefusedSamples else {
                state = .done
                return .markFailed("\(refusal.description) (the sink refused more than \(maxRefusedSamples) samples of this interval one by one)")
            }
            refusedSamples += 1
            state = .waiting
            return .dropSample(refusal)
        }
        switch outcome.classification {
        case .success:
            state = .done
            guard case .accepted(let acknowledgement) = outcome else { preconditionFailure("success without ack") }
            return .markSynced(acknowledgement)
        case .permanent(let message):
            state = .done
            return .markFailed(message)
        case .tooLarge(let message):
            guard samplesInSend > 1 else {
                state = .done
                return .markFailed("\(message) (one sample alone is over the body limit of the sink or a proxy in front of it)")
            }
            guard splits < Self.maxSplits else {
                state = .done
                return .markFailed("\(message) (refused as too large \(splits) times)")
            }
            splits += 1
            state = .waiting
            return .split(message)
        case .serverUnavailable(let failure):
            state = .done
            return .yieldToSink(failure)
        case .transient(let reason):
            transientFailures += 1
            if stopping {
                state = .done
                return .requeue(reason)
            }
            guard policy.allowsRetry(afterAttempt: transientFailures) else {
                state = .done
                let n = transientFailures
                return .markFailed("gave up after \(n) attempt\(n == 1 ? "" : "s"): \(reason)")
            }
            state = .waiting
            let delay = policy.delay(afterAttempt: transientFailures, retryAfterSeconds: outcome.retryAfterSeconds,
                                     using: &generator)
            return .retry(after: delay, reason: reason)
        }
    }

    /// A stop was requested while waiting out a retry's backoff: the wait ends at once and the interval goes back to
    /// pending (the next run sends it).
    public mutating func paused() -> Action {
        state = .done
        return .requeue("paused during a retry wait")
    }

    /// The task was cancelled (second signal) while sending or waiting: the interval goes back to pending.
    public mutating func cancelled() -> Action {
        state = .done
        return .requeue("cancelled")
    }
}
