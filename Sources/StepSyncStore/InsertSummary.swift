import Foundation

/// How many samples an insert added, and how many it skipped because their uuid was already stored or deleted.
public struct InsertSummary: Hashable, Sendable {
    /// Samples written.
    public var inserted: Int = 0
    /// Samples skipped: their uuid was already in the store.
    public var duplicates: Int = 0
    /// The sum of the values of the inserted step-count samples.
    public var insertedSteps: Double = 0
    /// Samples skipped because they were deleted from the store earlier (a tombstone holds their uuid): a deletion
    /// stays deleted when the same export is imported again (``DeletedSamples/remember``).
    public var previouslyDeleted: Int = 0
    /// Samples that were deleted earlier and stored again (``DeletedSamples/restore``): their tombstones are gone.
    public var restored: Int = 0

    /// Creates an empty summary.
    public init() {}
}
