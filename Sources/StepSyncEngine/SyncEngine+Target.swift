import StepSyncCore
import StepSyncStore

extension SyncEngine {
    /// A probe of the sink (``Uploader/identify()``: `GET /health`, then the token) and the target check: the sink takes the token, and it is the
    /// sink the ledger last synced to (``SinkTarget/check(recorded:hasSynced:)``), whose target is then recorded as
    /// this store's. `nil` when the run may send; else the failure — waited on when the sink is away, the end of the
    /// run when waiting cannot mend it (a refused token, another sink).
    func probeAndCheckTarget() async -> SinkFailure? {
        switch await uploader.identify() {
        case .failed(let failure):
            return failure
        case .target(let target):
            do {
                switch target.check(recorded: try store.lastSyncTarget(), hasSynced: try store.hasSyncedIntervals()) {
                case .send:
                    try store.recordSyncTarget(target)
                    return nil
                case .stop(let message):
                    logger.notice("Another sink than the ledger's", metadata: ["sync.server": "\(target.server)"])
                    return SinkFailure(.anotherSink, detail: message)
                }
            } catch {
                return SinkFailure(.anotherSink, detail: "cannot read or record the sink this store syncs to: \(error)")
            }
        }
    }
}
