/// What a deletion did: samples removed (each leaving a tombstone) and uuids that were not in the store.
public struct DeleteSummary: Hashable, Sendable {
    /// Samples deleted.
    public var deleted: Int
    /// The sum of the deleted samples' values (steps, for step counts).
    public var deletedValue: Double
    /// Requested uuids that the store did not hold.
    public var missing: Int

    /// Creates a summary.
    public init(deleted: Int = 0, deletedValue: Double = 0, missing: Int = 0) {
        self.deleted = deleted
        self.deletedValue = deletedValue
        self.missing = missing
    }
}
