import StepSyncCore

/// Sends one interval's encoded body to the sink and says what came of it.
///
/// ``HTTPUploader`` is the real one; tests may wrap it (to count or to inject faults) or fake it for pure engine
/// tests. An uploader never throws for a network or HTTP failure — those are ``UploadOutcome``s the engine
/// classifies — only `CancellationError` when the task was cancelled.
public protocol Uploader: Sendable {
    /// POSTs `body` (the wire JSON `{"samples":[…]}` of `sampleCount` samples) to `/steps` and returns the outcome.
    func upload(_ body: [UInt8], sampleCount: Int) async throws -> UploadOutcome

    /// POSTs `body` (`{"uuids":[…]}` of `uuidCount` deleted samples) to `/steps/delete` and returns the outcome.
    func uploadDeletions(_ body: [UInt8], uuidCount: Int) async throws -> UploadOutcome
}
