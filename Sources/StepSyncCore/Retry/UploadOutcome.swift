/// What one POST of an interval's samples came to, as the uploader saw it: the input of ``IntervalSendMachine``.
public enum UploadOutcome: Hashable, Sendable {
    /// The sink answered 2xx and counted the samples.
    case accepted(SinkAcknowledgement)
    /// The sink answered a non-2xx status, with its message and, for 429/503, the `Retry-After` it named.
    case rejected(status: Int, message: String, retryAfterSeconds: Double?)
    /// The request never got an answer: connection refused or reset, timeout, a dropped connection.
    case transportFailure(String)

    /// How the sync treats this outcome.
    public var classification: Classification {
        switch self {
        case .accepted:
            return .success
        case .rejected(let status, let message, _):
            // 408 (request timeout), 425 (too early), 429 (too many requests) and every 5xx say "try again later";
            // any other 4xx says the request itself is wrong, and resending it would get the same answer.
            if status == 408 || status == 425 || status == 429 || status >= 500 {
                return .transient("HTTP \(status): \(message)")
            }
            return .permanent("HTTP \(status): \(message)")
        case .transportFailure(let message):
            return .transient(message)
        }
    }

    /// The sync's reading of an outcome.
    public enum Classification: Hashable, Sendable {
        /// Acknowledged: mark the interval synced.
        case success
        /// Worth retrying after a delay (the reason is kept as the interval's last error).
        case transient(String)
        /// Not worth retrying: mark the interval failed with this message.
        case permanent(String)
    }

    /// The server's `Retry-After` in seconds, honoured on 429 and 503 only.
    public var retryAfterSeconds: Double? {
        guard case .rejected(let status, _, let retryAfter) = self, status == 429 || status == 503 else { return nil }
        return retryAfter
    }
}

