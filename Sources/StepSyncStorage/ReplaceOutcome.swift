/// What ``SampleStorage/insertReplacing(_:for:)`` did: `inserted + replaced + duplicates` is the number of samples
/// given.
public struct ReplaceOutcome: Hashable, Sendable {
    /// Samples whose uuid was not stored: newly stored.
    public var inserted: Int
    /// Samples whose uuid was stored as the same type with another value, end or unit: the stored one replaced.
    public var replaced: Int
    /// Samples already stored as they are (or repeated within the call, the last one kept).
    public var duplicates: Int

    /// The outcome of a call given `given` samples, of which it stored `inserted` and replaced `replaced`: the rest
    /// are duplicates.
    public init(given: Int, inserted: Int, replaced: Int) {
        duplicates = given - inserted - replaced
        self.inserted = inserted
        self.replaced = replaced
    }

    /// The outcome of no call yet: all zero, to ``add(_:)`` to.
    public init() {
        self.init(given: 0, inserted: 0, replaced: 0)
    }

    /// Adds `other`'s counts (a request stored in several calls).
    public mutating func add(_ other: ReplaceOutcome) {
        inserted += other.inserted
        replaced += other.replaced
        duplicates += other.duplicates
    }
}
