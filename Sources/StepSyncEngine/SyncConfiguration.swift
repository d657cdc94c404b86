import StepSyncCore

/// How a ``SyncEngine`` runs: the run's own settings (``run``, handed to ``SyncRunMachine`` as they are) and what the
/// engine's shell needs besides (retries of one request, the types, the body limit, the store's pages).
public struct SyncConfiguration: Sendable {
    /// The send lanes, the window's ceiling, packing, the wait for the sink and the first probe: the run machine's
    /// settings, clamped and defaulted there (``SyncRunMachine/Configuration``), and nowhere else.
    public var run: SyncRunMachine.Configuration
    /// Retries of transient failures that hit one interval (a 500, a read timeout).
    public var retryPolicy: RetryPolicy
    /// Put `failed` intervals back in the queue before starting (`--retry-failed`).
    public var retryFailed: Bool
    /// The sample types whose intervals are synced; `nil`: every type in the ledger (step counts first).
    public var types: [SampleType]?
    /// Samples read from the store per page while building a request body.
    public var pageSize: Int
    /// The largest request body to send, in bytes (`--max-request-bytes`): a request over it is sent in parts
    /// (``RequestSplit``), and a 413 lowers it (``BodySizeLimit``); `nil` sends every request whole until a 413
    /// teaches a limit.
    public var maxRequestBytes: Int?

    /// The default of the most samples one packed request carries (``SyncRunMachine/Configuration``'s).
    public static let defaultMaxSamplesPerRequest = SyncRunMachine.Configuration.defaultMaxSamplesPerRequest

    /// The default of ``maxRequestBytes``: 2 MiB. The layering bounds an interval's samples, not its bytes, and a
    /// sample may carry up to 64 KiB of `details` (heart-rate variability keeps its beat-to-beat readings there), so
    /// one interval's body could reach hundreds of MB; cut at 2 MiB, a request never costs the sink (or this process)
    /// more than a few MB, while a full request of 5,000 plain samples (≈ 1 MB) still goes whole. Measured on the
    /// demo (issue 26): heart-rate variability alone peaked at 221 MB of memory with whole bodies, 114 MB cut.
    public static let defaultMaxRequestBytes = 2 << 20

    /// Creates a configuration around the run's settings; `pageSize` is clamped to at least 1.
    public init(
        _ run: SyncRunMachine.Configuration,
        retryPolicy: RetryPolicy = .default,
        retryFailed: Bool = false,
        types: [SampleType]? = nil,
        pageSize: Int = 5_000,
        maxRequestBytes: Int? = SyncConfiguration.defaultMaxRequestBytes
    ) {
        self.run = run
        self.retryPolicy = retryPolicy
        self.retryFailed = retryFailed
        self.types = types
        self.pageSize = max(1, pageSize)
        self.maxRequestBytes = maxRequestBytes
    }

    /// Creates a configuration from the run's settings one by one (``SyncRunMachine/Configuration`` clamps them).
    public init(
        concurrency: Int = SyncRunMachine.Configuration.defaultConcurrency,
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
        self.init(.init(concurrency: concurrency, maxInFlight: maxInFlight, maxSamplesPerRequest: maxSamplesPerRequest,
                        outagePolicy: outagePolicy, probeFirst: probeFirst),
                  retryPolicy: retryPolicy, retryFailed: retryFailed, types: types, pageSize: pageSize,
                  maxRequestBytes: maxRequestBytes)
    }

    /// The range `--max-request-bytes` accepts: 1 KiB … 1 GiB.
    public static let maxRequestBytesRange = 1_024...(1 << 30)
}
