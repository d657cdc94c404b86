/// The sink's answer to `POST /steps` (`{"saved":N,"message":"Success","inserted":I,"duplicates":D}`) or to
/// `POST /steps/delete` (`{"deleted":N,"missing":M}`: then `saved` is N + M and `deleted` is N).
public struct SinkAcknowledgement: Hashable, Sendable {
    /// Samples the sink received in the request.
    public var saved: Int
    /// Samples it stored for the first time.
    public var inserted: Int
    /// Samples it already held (same uuid): a resend after a crash.
    public var duplicates: Int
    /// For a deletions request: samples it deleted (the others were already gone).
    public var deleted: Int

    /// Creates an acknowledgement.
    public init(saved: Int, inserted: Int, duplicates: Int, deleted: Int = 0) {
        self.saved = saved
        self.inserted = inserted
        self.duplicates = duplicates
        self.deleted = deleted
    }
}
