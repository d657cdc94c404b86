import Logging
import ServiceLifecycle
import StepSyncCore
import Synchronization

/// Runs a connection pool so that stopping it is bounded: once the caller is cancelled or shut down gracefully, the
/// pool gets ``grace`` to end, and is then left (cancelled) to end on its own.
///
/// PostgresNIO 1.33.2's pool can wait on a connection it was opening when asked to stop (postgres-nio #599). Test runs
/// hung with a PostgreSQL test left unfinished and no socket open, and that wait is the likely place (inferred, not
/// reproduced on demand: Planning/postgres.md). A sink must stop on SIGTERM, and a command, test or benchmark must end.
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
        let end = OnceResult<Void>()  // the pool's end, or the grace's
        let timers = Mutex<[Task<Void, Never>]>([])
        let leave: @Sendable () -> Void = { [time, logger] in
            let timer = Task {
                do { try await time.sleep(Self.grace) } catch { return }  // the pool ended first
                if end.finish(.success(())) {
                    task.cancel()
                    logger.warning("The PostgreSQL connection pool did not close within \(Self.grace); left to end on its own")
                }
            }
            timers.withLock { $0.append(timer) }
        }
        defer { for timer in timers.withLock({ $0 }) { timer.cancel() } }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                try? await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    end.wait(continuation)
                    Task {
                        await task.value
                        end.finish(.success(()))
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
