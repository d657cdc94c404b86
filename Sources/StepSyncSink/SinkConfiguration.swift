import StepSyncCore

/// How a sink runs: where it listens, where it stores, what it accepts.
public struct SinkConfiguration: Sendable {
    /// The address to bind; loopback by default. Any other address needs ``token`` (or
    /// ``allowUnauthenticated``).
    public var host: String
    /// The port to bind; 0 picks a free one (see ``SinkServer/withRunningSink(configuration:logger:_:)``).
    public var port: Int
    /// The JSONL file of step counts (`<dir>/steps.jsonl`); the other types go to `<dir>/samples/<type>.jsonl`
    /// (created with their directory if missing). Unused when the sink is given another storage.
    public var dataPath: String
    /// When set, every request but `GET /health` must carry `Authorization: Bearer <token>`.
    public var token: String?
    /// The token `GET /metrics` needs (`Authorization: Bearer <token>`, as Prometheus' `authorization.credentials`
    /// sends it); `nil`: none on a loopback bind, elsewhere ``token`` (a sink of many clients then refuses).
    public var metricsToken: String? = nil
    /// Lets a sink bound to a non-loopback address run without a token (`serve --allow-unauthenticated`).
    public var allowUnauthenticated: Bool
    /// The largest request body accepted, as sent (compressed or not); larger → 413.
    public var maxBodyBytes: Int
    /// The largest body of `POST /ingest/health-auto-export` (Health Auto Export sends tens of MB;
    /// `serve --max-hae-bytes`); larger → 413.
    public var maxHAEBytes: Int = SinkConfiguration.defaultMaxHAEBytes
    /// ``maxHAEBytes``'s default: 100 MB.
    public static let defaultMaxHAEBytes = 100_000_000
    /// The largest inflated size of a `Content-Encoding: gzip` body; larger → 413.
    public var maxInflatedBytes: Int
    /// The most bytes all requests in flight may hold as bodies (received and inflated) at once; a request that
    /// would go over it is answered 503 with `Retry-After`.
    public var maxBufferedBytes: Int
    /// The page size of `GET /steps` and `GET /samples` when `?limit=` is absent.
    public var defaultPageLimit: Int
    /// The largest `?limit=` honoured.
    public var maxPageLimit: Int
    /// The most bytes of stored JSON in one page (a page always holds at least one sample).
    public var maxPageBytes: Int
    /// The most distinct sample types stored: per sink on JSONL, per client on PostgreSQL. A request that would go
    /// past it is refused whole with 400 `too_many_types`. HealthKit has about 200 types.
    public var maxTypes: Int
    /// ``maxTypes``'s default.
    public static let defaultMaxTypes = 256
    /// The accepted range of ``maxTypes`` (`serve --max-types`).
    public static let maxTypesRange = 1...10_000
    /// Which other origins' pages may call the API from a browser (``CORSPolicy``); none by default.
    public var cors: CORSPolicy = .none
    /// Whether a 2xx waits for the data sync. Turning it off is for benchmarks only: acknowledged samples can then
    /// be lost on a crash.
    public var durable: Bool
    /// The `Retry-After` (seconds) of a 503 after a failed write.
    public var retryAfterSeconds: Int
    /// Header, body and idle timeouts and the connection cap (``ConnectionLimits``).
    public var connectionLimits: ConnectionLimits
    /// Called with the connection counts after every change (tests wait on it rather than on the clock).
    public var onConnectionsChange: (@Sendable (ConnectionCounts) -> Void)?
    /// Called after every synced commit of the data files (tests count group commits with it).
    public var onSync: (@Sendable () -> Void)?
    /// HTTPS with this certificate and key (`serve --tls-cert/--tls-key`); `nil`: plain HTTP.
    public var tls: SinkTLS? = nil
    /// Where the sink reads the time (its activity's times, when its storage became degraded); tests fix it.
    public var time: TimeSource

    /// Creates a configuration; every default is the `stepsync serve` default.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8000,
        dataPath: String,
        token: String? = nil,
        allowUnauthenticated: Bool = false,
        maxBodyBytes: Int = 64 << 20,
        maxInflatedBytes: Int = 256 << 20,
        maxBufferedBytes: Int = 512 << 20,
        defaultPageLimit: Int = 1000,
        maxPageLimit: Int = 10_000,
        maxPageBytes: Int = 8 << 20,
        maxTypes: Int = SinkConfiguration.defaultMaxTypes,
        durable: Bool = true,
        retryAfterSeconds: Int = 5,
        connectionLimits: ConnectionLimits = ConnectionLimits(),
        onSync: (@Sendable () -> Void)? = nil,
        time: TimeSource
    ) {
        self.host = host
        self.port = port
        self.dataPath = dataPath
        self.token = token
        self.allowUnauthenticated = allowUnauthenticated
        self.maxBodyBytes = maxBodyBytes
        self.maxInflatedBytes = maxInflatedBytes
        self.maxBufferedBytes = maxBufferedBytes
        self.defaultPageLimit = defaultPageLimit
        self.maxPageLimit = maxPageLimit
        self.maxPageBytes = maxPageBytes
        self.maxTypes = maxTypes
        self.durable = durable
        self.retryAfterSeconds = retryAfterSeconds
        self.connectionLimits = connectionLimits
        self.onSync = onSync
        self.time = time
    }
}
