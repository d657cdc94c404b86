/// How a sink runs: where it listens, where it stores, what it accepts.
public struct SinkConfiguration: Sendable {
    /// The address to bind; loopback by default.
    public var host: String
    /// The port to bind; 0 picks a free one (see ``SinkServer/withRunningSink(configuration:logger:_:)``).
    public var port: Int
    /// The JSONL file the sink stores samples in (created with its directory if missing).
    public var dataPath: String
    /// When set, every request but `GET /health` must carry `Authorization: Bearer <token>`.
    public var token: String?
    /// The largest request body accepted, as sent (compressed or not); larger → 413.
    public var maxBodyBytes: Int
    /// The largest inflated size of a `Content-Encoding: gzip` body; larger → 413.
    public var maxInflatedBytes: Int
    /// The page size of `GET /steps` when `?limit=` is absent.
    public var defaultPageLimit: Int
    /// The largest `?limit=` honoured.
    public var maxPageLimit: Int
    /// Whether a 2xx waits for `fdatasync`. Turning it off is for benchmarks only: acknowledged samples can then be
    /// lost on a crash.
    public var durable: Bool
    /// Called after every `fdatasync` of the data file (tests count group commits with it).
    public var onSync: (@Sendable () -> Void)?

    /// Creates a configuration; every default is the `stepsync serve` default.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8000,
        dataPath: String,
        token: String? = nil,
        maxBodyBytes: Int = 64 << 20,
        maxInflatedBytes: Int = 256 << 20,
        defaultPageLimit: Int = 1000,
        maxPageLimit: Int = 10_000,
        durable: Bool = true,
        onSync: (@Sendable () -> Void)? = nil
    ) {
        self.host = host
        self.port = port
        self.dataPath = dataPath
        self.token = token
        self.maxBodyBytes = maxBodyBytes
        self.maxInflatedBytes = maxInflatedBytes
        self.defaultPageLimit = defaultPageLimit
        self.maxPageLimit = maxPageLimit
        self.durable = durable
        self.onSync = onSync
    }
}
