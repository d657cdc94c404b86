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
}
