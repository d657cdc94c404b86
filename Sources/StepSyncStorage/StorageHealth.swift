/// Whether a storage can write now.
public struct StorageHealth: Hashable, Sendable {
    /// Why writes fail, when they do (`nil`: healthy).
    public var degradedReason: String?
    /// When writes started failing (seconds since 1970), when degraded.
    public var degradedSince: Double?

    /// Creates a health report; the default is healthy.
    public init(degradedReason: String? = nil, degradedSince: Double? = nil) {
        self.degradedReason = degradedReason
        self.degradedSince = degradedSince
    }

    /// Healthy.
    public static let ok = StorageHealth()

    /// Whether writes fail now.
    public var isDegraded: Bool { degradedReason != nil }

    /// Whether writes fail for want of disk space (the system's `ENOSPC` text, or PostgreSQL's `disk_full`, in the
    /// reason).
    public var isDiskFull: Bool {
        guard let reason = degradedReason?.lowercased() else { return false }
        return reason.contains("no space left on device") || reason.contains("enospc") || reason.contains("disk full")
            || reason.contains("disk_full")
    }
}
