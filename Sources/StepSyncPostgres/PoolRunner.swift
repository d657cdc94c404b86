import Logging
import ServiceLifecycle
import StepSyncCore
import Synchronization

/// Runs a connection pool so that stopping it is bounded: once the caller is cancelled or shut down gracefully, the
/// pool gets ``grace`` to end, and is then left (cancelled) to end on its own.
///
/// PostgresNIO 1.33.2's pool does not always end when asked: it waits on a connection it was opening
/// (postgres-nio #599), and in the test suite an in-process sink and a `withStorage` each stayed suspended in it, with
/// no socket open, until CI's time ran out. A sink must stop on SIGTERM, and a command, test or benchmark must end.
struct PoolRunner: Sendable {
    /// How long a pool may take to end once asked.
    static let grace: Duration = .seconds(10)

    /// Where the grace is waited for.
    var time: TimeSource
    /// Where a pool left behind is reported.
    var logger: Logger

    /// Runs `pool` (PostgresClient's `run()`) until it ends, or until ``grace`` after this task is cancelled or shut
    /// down gracefully (the pool sees both: it runs in a task that inherits the graceful shutdown).
    func run(_ pool: @escaping @Sendable () async -> Void) async {
        let task = Task { await pool() }
        let end = PoolEnd()
        let timers = Mutex<[Task<Void, Never>]>([])
        let leave: @Sendable () -> Void = { [time, logger] in
            let timer = Task {
                do { try await time.sleep(Self.grace) } catch { return }  // the pool ended first
                if end.finish() {
                    task.cancel()
                    logger.warning("The PostgreSQL connection pool did not close within \(Self.grace); left to end on its own")
                }
            }
            timers.withLock { $0.append(timer) }
        }
        defer { for timer in timers.withLock({ $0 }) { timer.cancel() } }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    end.wait(continuation)
                    Task {
                        await task.value
                        end.finish()
                    }
                }
            } onGracefulShutdown: {
                leave()
            }
        } onCancel: {
            task.cancel()
            leave()
        }
    }
}

/// The end of ``PoolRunner/run(_:)``'s wait, delivered once: the pool's, or the grace's.
private final class PoolEnd: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Void, Never>?, finished: Bool)>((nil, false))

    func wait(_ continuation: CheckedContinuation<Void, Never>) {
        let finished = state.withLock { state -> Bool in
            if !state.finished { state.continuation = continuation }
            return state.finished
        }
        if finished { continuation.resume() }
    }

    /// Ends the wait if nothing ended it yet; returns whether this call did.
    @discardableResult
    func finish() -> Bool {
        let won = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard !state.finished else { return (false, nil) }
            state.finished = true
            defer { state.continuation = nil }
            return (true, state.continuation)
        }
        won.1?.resume()
        return won.0
    }
}
