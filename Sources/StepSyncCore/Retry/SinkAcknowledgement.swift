/// The sink's answer to `POST /steps`: `{"saved":N,"message":"Success","inserted":I,"duplicates":D}`.
public struct SinkAcknowledgement: Hashable, Sendable {
    /// Samples the sink received in the request.
    public var saved: Int
    /// Samples it stored for the first time.
    public var inserted: Int
    /// Samples it already held (same uuid): a resend after a crash.
    public var duplicates: Int

    /// Creates an acknowledgement.
    public init(saved: Int, inserted: Int, duplicates: Int) {
        self.saved = saved
        self.inserted = inserted
        self.duplicates = duplicates
    }
}
