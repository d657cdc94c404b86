/// What an insert does with a sample deleted from the store earlier (its uuid has a tombstone).
public enum DeletedSamples: Sendable, Hashable {
    /// Skip it and count it (``InsertSummary/previouslyDeleted``): a deletion stays deleted, also when the export
    /// that still holds the sample is imported again. The default.
    case remember
    /// Store it again and drop its tombstones (``InsertSummary/restored``): the next sync sends it again.
    case restore
}
