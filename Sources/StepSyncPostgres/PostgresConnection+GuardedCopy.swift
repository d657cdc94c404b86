import Logging
import PostgresNIO
import Synchronization

extension PostgresConnection {
    /// `copyFrom(table:logger:writeData:)` that fails, rather than hangs, when the connection closes under it.
    ///
    /// PostgresNIO 1.33.2 can lose the continuation that starts a COPY when the connection dies at that moment (the
    /// runtime prints "SWIFT TASK CONTINUATION MISUSE: copyFrom… leaked its continuation"), leaving the caller
    /// suspended forever: a request that never answers, and a sink that cannot shut down (seen when PostgreSQL was
    /// stopped with `-m fast` mid-sync in `PostgresProcessTests`). The COPY therefore runs in a task of its own; a
    /// watchdog looks at ``isClosed`` every 200 ms while it runs, and once the connection is closed this throws
    /// *unavailable* (503) and abandons the task — it stays suspended, a small leak that only a database going away
    /// at the start of a COPY causes.
    func guardedCopyFrom(
        table: String, columns: [String] = [], logger: Logger,
        writeData: @escaping @Sendable (PostgresCopyFromWriter) async throws -> Void
    ) async throws {
        let outcome = CopyOutcome()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            outcome.wait(continuation)
            Task {
                do {
                    try await self.copyFrom(table: table, columns: columns, logger: logger, writeData: writeData)
                    outcome.finish(.success(()))
                } catch {
                    outcome.finish(.failure(error))
                }
            }
            Task {
                while !outcome.isFinished {
                    if self.isClosed {
                        outcome.finish(.failure(PostgresStorageError.unavailable("the connection closed during COPY")))
                        return
                    }
                    try? await Task.sleep(for: .milliseconds(200))
                }
            }
        }
    }
}

/// The first result of a guarded COPY (the COPY's own, or the watchdog's), delivered once.
private final class CopyOutcome: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Void, any Error>?, finished: Bool)>((nil, false))

    var isFinished: Bool { state.withLock { $0.finished } }

    func wait(_ continuation: CheckedContinuation<Void, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    func finish(_ result: Result<Void, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.finished else { return nil }
            state.finished = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }
}
