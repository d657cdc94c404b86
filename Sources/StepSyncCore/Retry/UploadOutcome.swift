/// What one POST of an interval's samples came to, as the uploader saw it: the input of ``IntervalSendMachine``.
public enum UploadOutcome: Hashable, Sendable {
    /// The sink answered 2xx and counted the samples.
    case accepted(SinkAcknowledgement)
    /// The sink answered a non-2xx status, with its message and, for 429/503, the `Retry-After` it named.
    case rejected(status: Int, message: String, retryAfterSeconds: Double?)
    /// The sink refused the request because of one sample, which it named by its index in the body (a 4xx with
    /// `{"error":…,"message":…,"index":i,"field":f}`): that sample is left out and the rest resent.
    case refusedSample(SampleRefusal)
    /// The request never reached the sink: connection refused or reset, name resolution, TLS, connect timeout.
    /// A fact about the server, not about the interval: the engine waits for the server (``SinkOutageMachine``).
    case unreachable(String)
    /// The sink's TLS certificate is not trusted (unknown CA, self-signed, another host): the run stops at once.
    case untrusted(String)
    /// The request was sent but got no answer: a read timeout, a connection dropped mid-answer.
    case transportFailure(String)
    /// The URL names no sink it could ever reach: a host name that does not resolve, `https://` at a port that does
    /// not speak TLS. Waiting does not mend it: the run stops at once.
    case misaddressed(String)

    /// How the sync treats this outcome.
    public var classification: Classification {
        switch self {
        case .accepted:
            return .success
        case .rejected(let status, let message, _):
            // 429 (too many requests), 502, 503 and 504 say "the server (or the proxy before it) cannot take requests
            // now": the whole sink, not this interval. 408, 425 and the other 5xx are retried for this interval.
            // Any other 4xx says the request itself is wrong, and resending it would get the same answer.
            if Self.serverLevelStatuses.contains(status) {
                return .serverUnavailable(SinkFailure(.unavailable(status: status), detail: message,
                                                      retryAfterSeconds: retryAfterSeconds))
            }
            if status == 401 || status == 403 {
                // The client itself is refused (token): every request would be, so the run stops at once.
                return .serverUnavailable(SinkFailure(.refused(status: status), detail: message))
            }
            if status == 413 {
                return .tooLarge("HTTP 413: \(message)")
            }
            if status == 408 || status == 425 || status >= 500 {
                return .transient("HTTP \(status): \(message)")
            }
            return .permanent("HTTP \(status): \(message)")
        case .refusedSample(let refusal):
            return .permanent(refusal.description)
        case .unreachable(let message):
            return .serverUnavailable(SinkFailure(.unreachable, detail: message))
        case .untrusted(let message):
            return .serverUnavailable(SinkFailure(.untrusted, detail: message))
        case .misaddressed(let message):
            return .serverUnavailable(SinkFailure(.misaddressed, detail: message))
        case .transportFailure(let message):
            return .transient(message)
        }
    }

    /// The statuses that speak for the whole sink: 429, 502, 503, 504.
    public static let serverLevelStatuses: Set<Int> = [429, 502, 503, 504]

    /// The sync's reading of an outcome.
    public enum Classification: Hashable, Sendable {
        /// Acknowledged: mark the interval synced.
        case success
        /// The sink as a whole cannot take requests: put the interval back and wait for the sink.
        case serverUnavailable(SinkFailure)
        /// Worth retrying this interval after a delay (the reason is kept as the interval's last error).
        case transient(String)
        /// Not worth retrying: mark the interval failed with this message.
        case permanent(String)
        /// The body is over a limit of the sink or a proxy in front of it (HTTP 413): send the samples in smaller
        /// requests (``RequestSplit``), and fail only when one sample alone is refused.
        case tooLarge(String)
    }

    /// The server's `Retry-After` in seconds, honoured on 429 and 503 only.
    public var retryAfterSeconds: Double? {
        guard case .rejected(let status, _, let retryAfter) = self, status == 429 || status == 503 else { return nil }
        return retryAfter
    }
}
