import StepSyncStorage
import Synchronization

/// How many of the storage's calls hold a pooled connection now and how many wait for one, for `GET /metrics`
/// (PostgresNIO's pool does not say).
final class PoolCounter: Sendable {
    private let counts = Mutex<(inUse: Int, waiting: Int)>((0, 0))

    /// One call's part: waiting from ``begin()``, in use from ``leased()``, counted out at ``end()`` (each once;
    /// a lease that comes after the end — a call given up at its deadline — is not counted).
    final class Lease: Sendable {
        private enum State { case waiting, leased, ended }
        private let state = Mutex(State.waiting)
        private let counter: PoolCounter

        fileprivate init(_ counter: PoolCounter) { self.counter = counter }

        /// The call has its connection.
        func leased() {
            let moved = state.withLock { state in
                guard state == .waiting else { return false }
                state = .leased
                return true
            }
            if moved { counter.counts.withLock { $0.waiting -= 1; $0.inUse += 1 } }
        }

        /// The call is over.
        func end() {
            let was = state.withLock { state in
                defer { state = .ended }
                return state
            }
            switch was {
            case .waiting: counter.counts.withLock { $0.waiting -= 1 }
            case .leased: counter.counts.withLock { $0.inUse -= 1 }
            case .ended: break
            }
        }
    }

    /// A call starts waiting for a connection.
    func begin() -> Lease {
        counts.withLock { $0.waiting += 1 }
        return Lease(self)
    }

    /// The figures now, for a pool of `maximum` connections.
    func figures(maximum: Int) -> StoragePoolFigures {
        let (inUse, waiting) = counts.withLock { $0 }
        return (inUse, waiting, maximum)
    }
}
