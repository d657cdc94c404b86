import Foundation

/// The stop signal of a running sync: the first ``request()`` pauses it (no new intervals start, those in flight
/// finish, any wait — a retry's backoff or the wait for the sink — ends at once and its interval goes back to
/// `pending`), the second cancels those in flight (they go back to `pending`).
///
/// The CLI calls ``request()`` from its SIGINT/SIGTERM handlers; code that never stops a sync passes ``never``.
/// The engine reads ``requestCount`` before starting each interval and awaits ``requested(count:)`` to react at once.
public struct SyncStop: Sendable {
    /// The count and the tasks waiting for it, under one lock (a signal handler's queue and the engine's tasks meet
    /// here).
    private final class State: @unchecked Sendable {
        let lock = NSLock()
        var count = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: (threshold: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
    }

    private let state = State()

    /// Creates a stop signal nobody has requested yet.
    public init() {}

    /// A stop signal that is never requested.
    public static var never: SyncStop { SyncStop() }

    /// Requests a stop: graceful the first time, cancelling the second. Safe from any thread or signal handler
    /// queue.
    public func request() {
        state.lock.lock()
        state.count += 1
        let count = state.count
        var ready: [CheckedContinuation<Void, Never>] = []
        for (id, waiter) in state.waiters where waiter.threshold <= count {
            ready.append(waiter.continuation)
            state.waiters[id] = nil
        }
        state.lock.unlock()
        for continuation in ready { continuation.resume() }
    }

    /// How many stops were requested so far (0: none; 1: graceful; 2 or more: cancel).
    public var requestCount: Int {
        state.lock.lock()
        defer { state.lock.unlock() }
        return state.count
    }

    /// Returns once at least `count` stops were requested, or at once when the calling task is cancelled.
    public func requested(count: Int) async {
        let id: UInt64 = state.lock.withLock {
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                state.lock.lock()
                if state.count >= count || Task.isCancelled {
                    state.lock.unlock()
                    continuation.resume()
                    return
                }
                state.waiters[id] = (count, continuation)
                state.lock.unlock()
            }
        } onCancel: {
            state.lock.lock()
            let waiter = state.waiters.removeValue(forKey: id)
            state.lock.unlock()
            waiter?.continuation.resume()
        }
    }
}
