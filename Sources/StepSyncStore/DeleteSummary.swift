import StepSyncCore

/// What a deletion did: samples removed (each leaving a tombstone) and uuids that were not in the store.
public struct DeleteSummary: Hashable, Sendable {
    /// Samples deleted, of every type.
    public var deleted: Int = 0
    /// The sum of the deleted samples' values, every type together (steps, for a store of step counts only).
    public var deletedValue: Double = 0
    /// Requested uuids that the store did not hold.
    public var missing: Int = 0
    /// Samples deleted, by type.
    public var deletedByType: [SampleType: Int] = [:]
    /// The sum of the deleted step-count samples' values.
    public var deletedSteps: Double = 0

    /// Creates an empty summary.
    public init() {}

    /// Counts `count` samples of `type` with values summing to `value`.
    mutating func add(_ type: SampleType, count: Int, value: Double) {
        guard count > 0 else { return }
        deleted += count
        deletedValue += value
        deletedByType[type, default: 0] += count
        if type == .stepCount { deletedSteps += value }
    }
}
