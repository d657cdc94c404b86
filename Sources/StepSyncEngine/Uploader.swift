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

    /// ``probe()`` and more: who the sink is and whether it takes this client's token — the ``SinkTarget`` a sync
    /// compares with the one its ledger last synced to — or the failure (``SinkFailure/Kind/refused(status:)`` for a
    /// token it refuses). The engine's every probe is this.
    func identify() async -> SinkIdentification
}

/// What ``Uploader/identify()`` found.
public enum SinkIdentification: Sendable, Hashable {
    /// The sink answered and takes the token: this is where the sync would send.
    case target(SinkTarget)
    /// The sink could not be asked, or refuses the client.
    case failed(SinkFailure)
}

extension Uploader {
    /// ``probe()``, then the address alone (no identity, no token): uploaders that do not speak to a real sink.
    public func identify() async -> SinkIdentification {
        if let failure = await probe() { return .failed(failure) }
        return .target(SinkTarget(server: server, sink: nil, token: nil))
    }
}
