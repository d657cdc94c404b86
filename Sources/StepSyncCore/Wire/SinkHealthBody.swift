/// The body of the sink's answer to `GET /health`: 200 `{"api":1,"service":"stepsync","status":"ok"}`, or 503
/// `{"api":1,"reason":…,"service":"stepsync","since":…,"status":"degraded"}` while writes fail (keys sorted).
///
/// The sync reads it through ``SinkHealthAnswer/isSink(_:)`` before sending anything. Sinks before API version 1
/// sent only `status` (and `reason`, `since`), so every field but `status` is optional when reading.
public struct SinkHealthBody: SinkAnswer, Hashable {
    /// `ok`, or `degraded` while the storage cannot write.
    public var status: String
    /// What the sink names itself: ``SinkHealthAnswer/service``.
    public var service: String?
    /// The version of the sink's API: ``SinkHealthAnswer/apiVersion``.
    public var api: Int?
    /// Why writes fail, when degraded.
    public var reason: String?
    /// When writes started failing (seconds since 1970), when degraded.
    public var since: Double?
    /// The sink's identity: a uuid made once for its data (the JSONL data directory, the PostgreSQL database), so a
    /// client tells another sink — or the same address serving other data — from the one its ledger synced to
    /// (``SinkTarget``). Absent from sinks before it.
    public var sink: String?

    public static var answerName: String { "a stepsync sink's /health answer" }

    /// Creates a health body.
    public init(status: String, service: String? = SinkHealthAnswer.service, api: Int? = SinkHealthAnswer.apiVersion,
                reason: String? = nil, since: Double? = nil, sink: String? = nil) {
        self.status = status
        self.service = service
        self.api = api
        self.reason = reason
        self.since = since
        self.sink = sink
    }

    /// A healthy sink's answer.
    public static let ok = SinkHealthBody(status: "ok")

    /// A degraded sink's answer: writes fail since `since` (seconds since 1970) because of `reason`.
    public static func degraded(reason: String, since: Double) -> SinkHealthBody {
        SinkHealthBody(status: "degraded", reason: reason, since: since)
    }

    /// This body with the sink's identity (``sink``), when it has one.
    public func identified(as sink: String?) -> SinkHealthBody {
        var body = self
        body.sink = sink
        return body
    }

    /// Whether it is a stepsync sink's answer: `status` is `ok` or `degraded`, and `service`, when present, is
    /// ``SinkHealthAnswer/service``.
    public var isStepSyncSink: Bool {
        (status == "ok" || status == "degraded") && (service ?? SinkHealthAnswer.service) == SinkHealthAnswer.service
    }
}
