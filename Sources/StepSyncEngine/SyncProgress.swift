/// Where a running sync stands, passed to the progress callback after each interval ends.
public struct SyncProgress: Hashable, Sendable {
    /// Intervals this run has finished (synced, failed or put back).
    public var done: Int
    /// Intervals this run set out to send.
    public var total: Int
    /// Of `done`, those synced.
    public var synced: Int
    /// Of `done`, those failed.
    public var failed: Int
    /// Samples acknowledged by the sink so far.
    public var samplesSent: Int
    /// Seconds since the run started.
    public var elapsedSeconds: Double
}
