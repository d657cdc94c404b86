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

/// The sink's answer to `POST /steps`: `{"saved":N,"message":"Success","inserted":I,"duplicates":D}`.
public struct SinkAcknowledgement: Hashable, Sendable {
    /// Samples the sink received in the request.
    public var saved: Int
    /// Samples it stored for the first time.
    public var inserted: Int
    /// Samples it already held (same uuid): a resend after a crash.
    public var duplicates: Int

    /// Creates an acknowledgement.
    public init(saved: Int, inserted: Int, duplicates: Int) {
        self.saved = saved
        self.inserted = inserted
        self.duplicates = duplicates
    }
}

/// Parsing of the `Retry-After` header.
public enum RetryAfter {
    /// The delay a `Retry-After` value names, in seconds: delta-seconds (`120`, and fractional `0.05` for tests).
    /// HTTP dates and anything unparsable give `nil`, and the policy's own backoff applies.
    public static func seconds(_ value: String?) -> Double? {
        guard let trimmed = value?.trimmingWhitespace(), !trimmed.isEmpty,
              let seconds = Double(trimmed), seconds.isFinite, seconds >= 0
        else { return nil }
        return seconds
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> Substring {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
