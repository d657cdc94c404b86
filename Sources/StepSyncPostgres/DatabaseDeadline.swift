import StepSyncCore
import Synchronization

/// Runs `operation` in a task of its own and returns its result — unless `deadline` (on `time`) passes first (or the caller is
/// cancelled): then it throws `expired()` at once, calls `onExpiry` (the storage closes the connection there) and
/// abandons the task, cancelled.
///
/// Not a task group: a group returns only once every child has, and a PostgresNIO call whose connection died at the
/// wrong moment may never return (1.33.2 can leak the continuation of a COPY, see ``PostgresConnection/guardedCopyFrom``)
/// — the request would never be answered and the sink could not stop. An abandoned task that never ends costs its
/// memory and, at worst, one pooled connection; the request is answered 503 within the deadline all the same.
func withDatabaseDeadline<R: Sendable>(
    _ deadline: ContinuousClock.Instant,
    time: TimeSource,
    expired: @escaping @Sendable () -> any Error,
    onExpiry: @escaping @Sendable () -> Void = {},
    _ operation: @escaping @Sendable () async throws -> R
) async throws -> R {
    let race = DeadlineRace<R>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
            race.wait(continuation)
            let work = Task {
                do {
                    race.finish(.success(try await operation()))
                } catch {
                    race.finish(.failure(error))
                }
            }
            let timer = Task {
                do {
                    try await time.sleep(deadline - time.monotonicNow())
                } catch {
                    return  // the work ended first and cancelled the timer
                }
                if race.finish(.failure(expired())) { onExpiry() }
            }
            race.setTasks(work: work, timer: timer)
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The first result of ``withDatabaseDeadline(_:time:expired:onExpiry:_:)`` (the work's, the timer's or cancellation's),
/// delivered once (``OnceResult``); whichever comes first cancels the other task.
private final class DeadlineRace<R: Sendable>: Sendable {
    private let result = OnceResult<R>()
    private let tasks = Mutex<[Task<Void, Never>]>([])

    func wait(_ continuation: CheckedContinuation<R, any Error>) { result.wait(continuation) }

    func setTasks(work: Task<Void, Never>, timer: Task<Void, Never>) {
        tasks.withLock { $0 = [work, timer] }
        if result.isFinished {
            work.cancel()
            timer.cancel()
        }
    }

    /// Delivers `result` if nothing was delivered yet; returns whether it was.
    @discardableResult
    func finish(_ result: Result<R, any Error>) -> Bool {
        guard self.result.finish(result) else { return false }
        for task in tasks.withLock({ $0 }) { task.cancel() }
        return true
    }
}
