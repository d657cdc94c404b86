import StepSyncCore
import Synchronization

/// The run's ``BodySizeLimit``, shared by the requests in flight: what one learns from a 413, the others use for
/// their next part.
final class SharedBodyLimit: Sendable {
    private let state: Mutex<BodySizeLimit>

    init(configured: Int?) {
        state = Mutex(BodySizeLimit(configured: configured))
    }

    /// The limit in force (`nil`: none known).
    var limit: Int? { state.withLock { $0.limit } }

    /// The limit as it stands: what was configured and learnt so far.
    var value: BodySizeLimit { state.withLock { $0 } }

    func accepted(bodyBytes: Int) { state.withLock { $0.accepted(bodyBytes: bodyBytes) } }

    /// Lowers the limit below a refused body; returns the new limit.
    func refused(bodyBytes: Int) -> Int { state.withLock { $0.refused(bodyBytes: bodyBytes) } }
}
