/// What a ``SyncInterval`` sends.
public enum IntervalKind: String, CaseIterable, Codable, Sendable {
    /// The samples of the interval's range and sequence window (`POST /steps`).
    case samples
    /// The uuids of the samples deleted in the interval's sequence window (`POST /steps/delete`).
    case deletions
}
