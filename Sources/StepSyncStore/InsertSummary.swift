import Foundation

/// How many samples an insert added, and how many it skipped because their uuid was already stored or deleted.
public struct InsertSummary: Hashable, Sendable {
    /// Samples written.
    public var inserted: Int
    /// Samples skipped: their uuid was already in the store.
    public var duplicates: Int
    /// The sum of the values of the inserted step-count samples.
    public var insertedSteps: Double
    /// Samples skipped because they were deleted from the store earlier (a tombstone holds their uuid): a deletion
    /// stays deleted when the same export is imported again (``DeletedSamples/remember``).
    public var previouslyDeleted: Int
    /// Samples that were deleted earlier and stored again (``DeletedSamples/restore``): their tombstones are gone.
    public var restored: Int

    /// Creates a summary.
    public init(inserted: Int = 0, duplicates: Int = 0, insertedSteps: Double = 0, previouslyDeleted: Int = 0,
                restored: Int = 0) {
        self.inserted = inserted
        self.duplicates = duplicates
        self.insertedSteps = insertedSteps
        self.previouslyDeleted = previouslyDeleted
        self.restored = restored
    }
}
