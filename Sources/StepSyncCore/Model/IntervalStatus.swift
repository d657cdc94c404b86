/// Where a ``SyncInterval`` stands in the sync.
public enum IntervalStatus: String, CaseIterable, Codable, Sendable {
    /// Not yet sent (or put back after a crash or `--retry-failed`).
    case pending
    /// Claimed by a running sync; a crash leaves it here and the next sync puts it back to `pending`.
    case inFlight
    /// Acknowledged by the sink and recorded durably.
    case synced
    /// Rejected by the sink (4xx) or out of attempts; `lastError` says why.
    case failed
}
