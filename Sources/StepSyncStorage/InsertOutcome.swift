/// What ``SampleStorage/insert(_:for:)`` did: `inserted + duplicates` is the number of samples given.
public struct InsertOutcome: Hashable, Sendable {
    /// Samples newly stored.
    public var inserted: Int
    /// Samples whose uuid was already stored (or repeated within the call).
    public var duplicates: Int

    /// Creates an outcome.
    public init(inserted: Int, duplicates: Int) {
        self.inserted = inserted
        self.duplicates = duplicates
    }
}
