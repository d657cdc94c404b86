/// What ``SampleStorage/insertReplacing(_:for:)`` did: `inserted + replaced + duplicates` is the number of samples
/// given.
public struct ReplaceOutcome: Hashable, Sendable {
    /// Samples whose uuid was not stored: newly stored.
    public var inserted: Int
    /// Samples whose uuid was stored as the same type with another value, end or unit: the stored one replaced.
    public var replaced: Int
    /// Samples already stored as they are (or repeated within the call, the last one kept).
    public var duplicates: Int

    /// Creates an outcome.
    public init(inserted: Int, replaced: Int, duplicates: Int) {
        self.inserted = inserted
        self.replaced = replaced
        self.duplicates = duplicates
    }

    /// Adds `other`'s counts (a request stored in several calls).
    public mutating func add(_ other: ReplaceOutcome) {
        inserted += other.inserted
        replaced += other.replaced
        duplicates += other.duplicates
    }
}
