import StepSyncCore

/// How a ``SyncEngine`` runs.
public struct SyncConfiguration: Sendable {
    /// The send lanes (≥ 1): the requests in flight at first, and the fewest ever (``InFlightWindow``).
    public var concurrency: Int
    /// The most requests in flight at once, however long the round trip (`nil`: eight a lane,
    /// ``InFlightWindow/Policy/defaultMaxInFlight(lanes:)``; equal to `concurrency`: no window, one request a lane).
    public var maxInFlight: Int?
    /// Retries of transient failures that hit one interval (a 500, a read timeout).
    public var retryPolicy: RetryPolicy
    /// How the engine waits for a sink that cannot be reached or answers 429/502/503/504, and when it gives up.
    public var outagePolicy: SinkOutageMachine.Policy
    /// Put `failed` intervals back in the queue before starting (`--retry-failed`).
    public var retryFailed: Bool
    /// The sample types whose intervals are synced; `nil`: every type in the ledger (step counts first).
    public var types: [SampleType]?
    /// Samples read from the store per page while building a request body.
    public var pageSize: Int
    /// The most samples one request carries when it packs several consecutive small intervals of one type
    /// (``RequestPacking``); an interval larger than this still goes alone. `0` sends every interval alone.
    public var maxSamplesPerRequest: Int
    /// The largest request body to send, in bytes (`--max-request-bytes`): a request over it is sent in parts
    /// (``RequestSplit``), and a 413 lowers it (``BodySizeLimit``); `nil` sends every request whole until a 413
    /// teaches a limit.
    public var maxRequestBytes: Int?
    /// Probe the sink (`GET /health`) before the first interval, so a sink that is not running is one message
    /// rather than a failed request per interval.
    public var probeFirst: Bool

    /// The default of ``maxSamplesPerRequest``: the layering's bound on one interval's samples, so a packed request is
    /// never larger than the largest interval could be.
    public static let defaultMaxSamplesPerRequest = 5_000

    /// The default of ``maxRequestBytes``: 2 MiB. The layering bounds an interval's samples, not its bytes, and a
    /// sample may carry up to 64 KiB of `details` (heart-rate variability keeps its beat-to-beat readings there), so
    /// one interval's body could reach hundreds of MB; cut at 2 MiB, a request never costs the sink (or this process)
    /// more than a few MB, while a full request of 5,000 plain samples (≈ 1 MB) still goes whole. Measured on the
    /// demo (issue 26): heart-rate variability alone peaked at 221 MB of memory with whole bodies, 114 MB cut.
    public static let defaultMaxRequestBytes = 2 << 20

    /// Creates a configuration; `concurrency` and `pageSize` are clamped to at least 1.
    public init(
        concurrency: Int = 3,
        maxInFlight: Int? = nil,
        retryPolicy: RetryPolicy = .default,
        outagePolicy: SinkOutageMachine.Policy = .default,
        retryFailed: Bool = false,
        types: [SampleType]? = nil,
        pageSize: Int = 5_000,
        maxSamplesPerRequest: Int = SyncConfiguration.defaultMaxSamplesPerRequest,
        probeFirst: Bool = true,
        maxRequestBytes: Int? = SyncConfiguration.defaultMaxRequestBytes
    ) {
        let lanes = max(1, concurrency)
        self.concurrency = lanes
        self.maxInFlight = maxInFlight.map { max(lanes, $0) }
        self.retryPolicy = retryPolicy
        self.outagePolicy = outagePolicy
        self.retryFailed = retryFailed
        self.types = types
        self.pageSize = max(1, pageSize)
        self.maxSamplesPerRequest = max(0, maxSamplesPerRequest)
        self.probeFirst = probeFirst
        self.maxRequestBytes = maxRequestBytes
    }

    /// The most requests in flight the run may reach: ``maxInFlight`` or its default (sizes the connection pool).
    public var inFlightCeiling: Int {
        maxInFlight ?? InFlightWindow.Policy.defaultMaxInFlight(lanes: concurrency)
    }

    /// The range `--max-request-bytes` accepts: 1 KiB … 1 GiB.
    public static let maxRequestBytesRange = 1_024...(1 << 30)
}
