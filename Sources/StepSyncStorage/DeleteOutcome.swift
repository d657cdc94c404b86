/// What ``SampleStorage/delete(_:type:for:)`` did: `deleted + missing` is the number of uuids given.
public struct DeleteOutcome: Hashable, Sendable {
    /// Samples deleted.
    public var deleted: Int
    /// Uuids not held as a sample of the type (absent, already deleted, another type, or repeated).
    public var missing: Int

    /// Creates an outcome.
    public init(deleted: Int, missing: Int) {
        self.deleted = deleted
        self.missing = missing
    }
}
