import StepSyncCore

/// One interval the ledger holds as `failed`, with the reason.
public struct SyncFailure: Hashable, Sendable {
    /// The interval's id in the ledger.
    public var intervalId: Int64
    /// Its sample type.
    public var type: SampleType = .stepCount
    /// Its range of sample starts.
    public var range: TimeRange
    /// Its sends so far (all runs).
    public var attempts: Int
    /// What the sink or the network said.
    public var message: String
}
