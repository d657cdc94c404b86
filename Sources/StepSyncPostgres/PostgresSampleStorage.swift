import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import StepSyncCore
import Synchronization

/// The sink's storage on PostgreSQL: every sample of every client in one `samples` table, de-duplicated by the
/// primary key `(client_id, uuid)` — in the database, not in memory, so several sinks on one database stay exact.
///
/// **One client, one pool.** A single `PostgresClient` (it pools up to ``Configuration/maximumConnections``) is
/// run as a service in the same `ServiceGroup` as the HTTP server (``service``), so both stop together: the server
/// first (in-flight requests finish and commit), then the pool.
///
/// **Durable acknowledgements.** Every write runs in one transaction; connections start with
/// `synchronous_commit=on`, so a method returns only after COMMIT has flushed the WAL. A lost connection, a server
/// shutting down, or no connection within ``Configuration/leaseTimeout`` throws an *unavailable*
/// ``PostgresStorageError`` (the sink answers 503 with `Retry-After`; nothing was acknowledged and resending is safe).
public final class PostgresSampleStorage: Sendable {
    /// How a batch of samples enters the table (each measured in `Planning/postgres.md`).
    public enum IngestMethod: String, Sendable, CaseIterable {
        /// `COPY` straight into `samples` in uuid order, in the binary format (``CopyBinary``); a batch holding a
        /// uuid already stored (SQLSTATE 23505) is rolled back and takes ``copyStaging`` (the default since schema v3,
        /// issue 26; binary since issue 36).
        case copy
        /// ``copy`` in the text format (``CopyText``): the default before issue 36, kept to measure against.
        case copyText = "copy-text"
        /// `COPY` into a per-connection temporary staging table, then one `INSERT … SELECT … ON CONFLICT DO NOTHING`
        /// (the default before issue 26; kept to measure against).
        case copyStaging = "copy-staging"
        /// Multi-row `INSERT … VALUES (…),(…) … ON CONFLICT DO NOTHING`, 1,000 rows a statement.
        case insert
    }

    /// How the storage connects and behaves.
    public struct Configuration: Sendable {
        /// Where the database is.
        public var url: DatabaseURL
        /// The pool's largest number of connections.
        public var maximumConnections: Int
        /// How samples are written.
        public var ingest: IngestMethod
        /// How long a request waits for a connection before it is answered 503.
        public var leaseTimeout: Duration
        /// The deadline of one storage call's whole database work — the lease, every statement, the COMMIT: past it
        /// the call throws *unavailable* (503) and the connection is closed. `serve`'s 6 s answers a request whose
        /// connection was lost well within 10 s; at the measured 40–50k samples/s it holds bodies of 250k samples
        /// (the sync sends 5,000 a request). Never shorter than ``leaseTimeout``.
        public var operationTimeout: Duration
        /// How long `/health` waits for `SELECT 1` when the storage has seen no failure (while it has, `/health`
        /// answers from that at once and probes in the background).
        public var healthTimeout: Duration
        /// The most distinct sample types one client may hold; a batch that would bring it past them is refused
        /// whole (``SampleStorageError/tooManyTypes(limit:stored:new:)``).
        public var maxTypes: Int
        /// The `Retry-After` the sink sends with a 503 when the database is unavailable, in seconds.
        public var retryAfterSeconds: Int
        /// Where the storage reads the time (when the database became unavailable); tests fix it.
        public var time: TimeSource

        /// A configuration with the `serve` defaults.
        public init(url: DatabaseURL, maximumConnections: Int = 20, ingest: IngestMethod = .copy,
                    leaseTimeout: Duration = .seconds(5), operationTimeout: Duration = .seconds(6),
                    healthTimeout: Duration = .milliseconds(800), maxTypes: Int = 256, retryAfterSeconds: Int = 1,
                    time: TimeSource) {
            self.url = url
            self.maximumConnections = maximumConnections
            self.ingest = ingest
            self.leaseTimeout = leaseTimeout
            self.operationTimeout = max(operationTimeout, leaseTimeout)
            self.healthTimeout = healthTimeout
            self.maxTypes = maxTypes
            self.retryAfterSeconds = retryAfterSeconds
            self.time = time
        }
    }

    /// The configuration it was made with.
    public let configuration: Configuration
    let client: PostgresClient
    let logger: Logger
    /// Connections (by PostgresNIO id) that already hold the temporary staging table.
    let stagedConnections = Mutex<Set<Int>>([])
    /// Why the database is unavailable and since when (seconds since 1970), while it is.
    let degraded = Mutex<(reason: String, since: Double)?>(nil)
    /// Whether a background `/health` probe runs (at most one at a time).
    let probing = Atomic<Bool>(false)
    /// The database's identity (`sink_identity`), read by ``migrate()``: `GET /health` answers it.
    let identity = Mutex<String?>(nil)
    /// Calls holding or waiting for a pooled connection, for `GET /metrics`.
    let pool = PoolCounter()

    /// Creates the storage; nothing connects until ``service`` runs. Call ``migrate()`` once it runs.
    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)
        self.client = PostgresClient(
            configuration: configuration.url.clientConfiguration(maximumConnections: configuration.maximumConnections),
            backgroundLogger: quiet)
    }

    /// Brings the schema up to date (see ``PostgresSchema``); safe when several sinks start at once.
    @discardableResult
    public func migrate() async throws -> [Int] {
        try await withConnection { _ in }  // fail fast (503-style) when the database is not there
        let applied = try await PostgresSchema.migrate(client, logger: logger)
        try await readIdentity()
        return applied
    }

    /// Runs `body` with a storage whose pool runs for the duration (the `clients` commands, tests, benchmarks):
    /// migrates first, and stops the pool on every path, waiting for it at most ``PoolRunner/grace``.
    public static func withStorage<R: Sendable>(
        configuration: Configuration, logger: Logger, migrate: Bool = true,
        _ body: @Sendable (PostgresSampleStorage) async throws -> R
    ) async throws -> R {
        let storage = PostgresSampleStorage(configuration: configuration, logger: logger)
        return try await withThrowingTaskGroup(of: R?.self) { group in
            group.addTask {
                await storage.runPool()
                return nil
            }
            defer { group.cancelAll() }
            if migrate { try await storage.migrate() }
            let result = try await body(storage)
            return result
        }
    }

    /// Runs the connection pool until it is cancelled or shut down gracefully, then waits for it at most
    /// ``PoolRunner/grace`` (see there).
    func runPool() async {
        let client = self.client
        await PoolRunner(time: configuration.time, logger: logger).run { await client.run() }
    }

    // MARK: - Connections

    /// Leases a connection for `body`, waiting at most ``Configuration/leaseTimeout`` for one, and gives the whole
    /// call ``Configuration/operationTimeout`` (or `timeout`): past it the call throws *unavailable* and the
    /// connection is closed, whatever PostgresNIO is waiting for. Errors come out as ``PostgresStorageError``.
    func withConnection<R: Sendable>(
        timeout: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> R
    ) async throws -> R {
        do {
            return try await withConnectionUnmapped(deadline: deadline(timeout), body)
        } catch {
            throw PostgresStorageError.from(error)
        }
    }

    /// Every row of `query`, read within the call's deadline (``withConnection(timeout:_:)``: the lease, the
    /// statement, the rows' arrival, collected on the connection's event loop) and handed back once the connection
    /// has returned to the pool. Reads decode them afterwards: the sink's own work on a page — decoding, encoding,
    /// writing the answer — never counts against the database's deadline, and never holds a connection (issue 31).
    func rows(of query: PostgresQuery) async throws -> [PostgresRow] {
        let logger = self.logger
        return try await withConnection { connection in
            let result: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: logger)
            return try await result.get().rows
        }
    }

    /// When a call started now must be over (``Configuration/operationTimeout``, or `timeout`).
    func deadline(_ timeout: Duration? = nil) -> ContinuousClock.Instant {
        configuration.time.monotonicNow() + (timeout ?? configuration.operationTimeout)
    }

    /// ``withConnection(timeout:_:)`` leaving PostgresNIO's errors as they are (``transaction(_:)`` reads their
    /// SQLSTATE).
    ///
    /// The pool itself would queue a request for up to a minute while the database is down; a sink should say 503
    /// long before that, hence the lease timer. Once leased, a query on a connection that dies usually fails at
    /// once; the deadline covers the rest — a server that stopped answering (paused, or a network gone quiet) and
    /// PostgresNIO's lost continuations.
    private func withConnectionUnmapped<R: Sendable>(
        deadline: ContinuousClock.Instant, _ body: @escaping @Sendable (PostgresConnection) async throws -> R
    ) async throws -> R {
        let leased = LeasedConnection()
        let expired = ExpiryFlag()
        let time = configuration.time
        let leaseDeadline = min(deadline, time.monotonicNow() + configuration.leaseTimeout)
        let client = self.client
        let logger = self.logger
        let total = configuration.operationTimeout
        let lease = pool.begin()
        defer { lease.end() }
        return try await withDatabaseDeadline(deadline, time: time, expired: {
            PostgresStorageError.unavailable(leased.value.withLock { $0 == nil }
                ? "no connection within the deadline" : "no answer within the deadline")
        }, onExpiry: {
            expired.set()
            guard let connection = leased.value.withLock({ $0 }) else { return }
            logger.warning("Database connection closed: no answer within the deadline",
                           metadata: ["postgres.deadline": "\(total)"])
            CopyDataPhase.close(connection)
        }) {
            try await withThrowingTaskGroup(of: LeaseOutcome<R>.self) { group in
                group.addTask {
                    .done(try await client.withConnection { connection in
                        leased.value.withLock { $0 = connection }
                        lease.leased()
                        do {
                            return try await body(connection)
                        } catch {
                            // Past the deadline the connection is being closed: hand it back to the pool only once
                            // it is, so that the pool never leases it to another request (another client's POST
                            // failed `clientClosedConnection` so, issue 31).
                            if expired.value { try? await connection.closeFuture.get() }
                            throw error
                        }
                    })
                }
                group.addTask {
                    try await time.sleep(leaseDeadline - time.monotonicNow())
                    return .timer
                }
                defer { group.cancelAll() }
                while let outcome = try await group.next() {
                    switch outcome {
                    case .done(let value):
                        return value
                    case .timer:
                        if leased.value.withLock({ $0 == nil }) {
                            throw PostgresStorageError.unavailable("no connection within the deadline")
                        }
                    }
                }
                throw PostgresStorageError.unavailable("the connection task ended")
            }
        }
    }

    /// Runs `body` in one transaction (committed before returning) on a leased connection, retrying up to three
    /// times on a deadlock or serialization failure, all within one ``Configuration/operationTimeout`` (or by
    /// `deadline`, when a call runs several transactions within its one budget); errors come out as
    /// ``PostgresStorageError`` (but ``UUIDAlreadyHeld``, which the closure throws to ask for the staging path, comes
    /// out as it is).
    func transaction<R: Sendable>(deadline: ContinuousClock.Instant? = nil,
                                  _ body: @escaping @Sendable (PostgresConnection) async throws -> R) async throws -> R {
        let logger = self.logger
        let deadline = deadline ?? self.deadline()
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await withConnectionUnmapped(deadline: deadline) { connection in
                    try await connection.withTransaction(logger: logger) { try await body($0) }
                }
            } catch {
                if let held = (error as? PostgresTransactionError)?.closureError as? UUIDAlreadyHeld { throw held }
                let state = PostgresStorageError.sqlState(error) ?? ""
                if attempt < 4, state == "40P01" || state == "40001" {
                    logger.debug("Transaction retried", metadata: ["postgres.sqlstate": "\(state)"])
                    continue
                }
                throw PostgresStorageError.from(error)
            }
        }
    }
}

/// What finished first in ``PostgresSampleStorage/withConnection(_:)``: the work, or the lease timer.
private enum LeaseOutcome<R: Sendable>: Sendable {
    case done(R)
    case timer
}

/// The connection a call leased, once it has (the lease timer then no longer applies; the deadline closes it).
private final class LeasedConnection: Sendable {
    let value = Mutex<PostgresConnection?>(nil)
}

/// Whether a call's deadline passed (its connection is then being closed).
private final class ExpiryFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .releasing) }
    var value: Bool { flag.load(ordering: .acquiring) }
}
