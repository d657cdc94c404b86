import StepSyncCore

/// How a ``SyncEngine`` runs.
public struct SyncConfiguration: Sendable {
    /// The most intervals in flight at once (≥ 1).
    public var concurrency: Int
    /// Retries of transient failures.
    public var retryPolicy: RetryPolicy
    /// Put `failed` intervals back in the queue before starting (`--retry-failed`).
    public var retryFailed: Bool
    /// The sample type whose intervals are synced.
    public var type: SampleType
    /// Samples read from the store per page while building a request body.
    public var pageSize: Int

    /// Creates a configuration; `concurrency` and `pageSize` are clamped to at least 1.
    public init(
        concurrency: Int = 3,
        retryPolicy: RetryPolicy = .default,
        retryFailed: Bool = false,
        type: SampleType = .stepCount,
        pageSize: Int = 5_000
    ) {
        self.concurrency = max(1, concurrency)
        self.retryPolicy = retryPolicy
        self.retryFailed = retryFailed
        self.type = type
        self.pageSize = max(1, pageSize)
    }
}
