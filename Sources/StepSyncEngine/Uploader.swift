import StepSyncCore

/// Sends one interval's encoded body to the sink and says what came of it.
///
/// ``HTTPUploader`` is the real one; tests may wrap it (to count or to inject faults) or fake it for pure engine
/// tests. An uploader never throws for a network or HTTP failure — those are ``UploadOutcome``s the engine
/// classifies — only `CancellationError` when the task was cancelled.
public protocol Uploader: Sendable {
    /// The sink's base URL, as people read it in messages (`http://127.0.0.1:8000`).
    var server: String { get }

    /// POSTs `body` (the wire JSON of `itemCount` samples, or of `itemCount` deleted uuids) to `endpoint` and
    /// returns the outcome.
    func send(_ body: [UInt8], to endpoint: SinkEndpoint, itemCount: Int) async throws -> UploadOutcome

    /// Asks the sink whether it can be reached (`GET /health`): `nil` when it answered (whatever the status), the
    /// failure when it could not be reached.
    func probe() async -> SinkFailure?
}
