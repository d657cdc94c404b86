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
        // The first result, the COPY's own or the watchdog's, delivered once.
        let outcome = OnceResult<Void>()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            outcome.wait(continuation)
            Task {
                do {
                    try await CopyDataPhase.run(on: self) {
                        try await self.copyFrom(table: table, columns: columns, logger: logger, writeData: writeData)
                    }
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

/// The connections inside a COPY (from its start until PostgresNIO's `copyFrom` returns), where PostgresNIO 1.33.2
/// cannot be closed while the rows are being written: a close then makes its `ExtendedQueryStateMachine` answer
/// `.wait` to the error, and `ConnectionStateMachine` stops the process on a `preconditionFailure` ("Invalid query
/// state machine action in state: .closing, action: wait" — the sink crashed so when a database deadline passed
/// during a POST's COPY on a loaded machine; `CopyDataPhaseTests` crashed the same way before this). The data phase
/// ends inside `copyFrom` (its CopyDone), which cannot be observed from outside, so a close asked during the COPY
/// (``close(_:)``) waits until `copyFrom` returns: the deadline has already cancelled the COPY's task, so its next
/// write throws and PostgresNIO ends the COPY (`CopyFail`), or, blocked on a full socket, closes the connection itself.
/// A server that stops answering after the last row keeps that connection until it answers (the request was
/// answered 503 at its deadline all the same).
enum CopyDataPhase {
    /// Per connection in a COPY: whether a close was asked.
    private static let phases = Mutex<[ObjectIdentifier: Bool]>([:])

    /// Runs `body` (the COPY) as `connection`'s COPY phase; a close asked meanwhile happens when it ends.
    static func run<R>(on connection: PostgresConnection, _ body: () async throws -> R) async throws -> R {
        let key = ObjectIdentifier(connection)
        phases.withLock { $0[key] = false }
        func end() {
            if phases.withLock({ $0.removeValue(forKey: key) }) == true { let _: EventLoopFuture<Void> = connection.close() }
        }
        do {
            let result = try await body()
            end()
            return result
        } catch {
            end()
            throw error
        }
    }

    /// Closes `connection` now, or when its COPY ends if it is in one.
    static func close(_ connection: PostgresConnection) {
        let key = ObjectIdentifier(connection)
        let deferred = phases.withLock { phases -> Bool in
            guard phases[key] != nil else { return false }
            phases[key] = true
            return true
        }
        if !deferred { let _: EventLoopFuture<Void> = connection.close() }
    }
}
