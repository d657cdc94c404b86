import Synchronization

/// A result delivered once to one waiting continuation, whichever comes first: the awaited work's, a deadline's, a
/// watchdog's. Used where a PostgresNIO call may never return, so the caller must be able to stop waiting for it
/// (``withDatabaseDeadline(_:time:expired:onExpiry:_:)``, ``PostgresConnection/guardedCopyFrom(table:columns:logger:writeData:)``,
/// ``PoolRunner``).
final class OnceResult<R: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<R, any Error>?
        var pending: Result<R, any Error>?
        var finished = false
    }

    private let state = Mutex(State())

    /// Whether a result was delivered (or is pending for the waiter).
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Parks `continuation` until ``finish(_:)``; resumes it at once if a result came first.
    func wait(_ continuation: CheckedContinuation<R, any Error>) {
        let pending = state.withLock { state -> Result<R, any Error>? in
            if let pending = state.pending { return pending }
            state.continuation = continuation
            return nil
        }
        if let pending { continuation.resume(with: pending) }
    }

    /// Delivers `result` if nothing was delivered yet; returns whether this call did.
    @discardableResult
    func finish(_ result: Result<R, any Error>) -> Bool {
        let won = state.withLock { state -> (Bool, CheckedContinuation<R, any Error>?) in
            guard !state.finished else { return (false, nil) }
            state.finished = true
            let continuation = state.continuation
            state.continuation = nil
            if continuation == nil { state.pending = result }
            return (true, continuation)
        }
        won.1?.resume(with: result)
        return won.0
    }
}
