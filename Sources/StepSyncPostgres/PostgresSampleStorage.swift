import Logging
import PostgresNIO
import ServiceLifecycle
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
    /// How a batch of samples enters the table (both measured in `Planning/postgres.md`).
    public enum IngestMethod: String, Sendable, CaseIterable {
        /// `COPY` into a per-connection temporary staging table, then one `INSERT … SELECT … ON CONFLICT DO NOTHING`.
        case copy
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
        /// The `Retry-After` the sink sends with a 503 when the database is unavailable, in seconds.
        public var retryAfterSeconds: Int

        /// A configuration with the `serve` defaults.
        public init(url: DatabaseURL, maximumConnections: Int = 20, ingest: IngestMethod = .copy,
                    leaseTimeout: Duration = .seconds(5), retryAfterSeconds: Int = 1) {
            self.url = url
            self.maximumConnections = maximumConnections
            self.ingest = ingest
            self.leaseTimeout = leaseTimeout
            self.retryAfterSeconds = retryAfterSeconds
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

    /// The connection pool, to run in the server's `ServiceGroup` (it stops on graceful shutdown).
    public var service: any Service { client }

    /// Brings the schema up to date (see ``PostgresSchema``); safe when several sinks start at once.
    @discardableResult
    public func migrate() async throws -> [Int] {
        try await withConnection { _ in }  // fail fast (503-style) when the database is not there
        return try await PostgresSchema.migrate(client, logger: logger)
    }

    /// Runs `body` with a storage whose pool runs for the duration (the `clients` commands, tests, benchmarks):
    /// migrates first, and stops the pool on every path.
    public static func withStorage<R: Sendable>(
        configuration: Configuration, logger: Logger, migrate: Bool = true,
        _ body: @Sendable (PostgresSampleStorage) async throws -> R
    ) async throws -> R {
        let storage = PostgresSampleStorage(configuration: configuration, logger: logger)
        return try await withThrowingTaskGroup(of: R?.self) { group in
            group.addTask {
                await storage.client.run()
                return nil
            }
            defer { group.cancelAll() }
            if migrate { try await storage.migrate() }
            let result = try await body(storage)
            return result
        }
    }

    // MARK: - Connections

    /// Leases a connection for `body`, waiting at most ``Configuration/leaseTimeout`` for one.
    ///
    /// The pool itself would queue a request for up to a minute while the database is down; a sink should say 503
    /// long before that. Once a connection is leased the timer no longer applies: `body` runs to its end (a query on
    /// a connection that dies fails promptly by itself). Errors come out as ``PostgresStorageError``.
    func withConnection<R: Sendable>(
        timeout: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> R
    ) async throws -> R {
        do {
            return try await withConnectionUnmapped(timeout: timeout, body)
        } catch {
            throw PostgresStorageError.from(error)
        }
    }

    /// ``withConnection(_:)`` leaving PostgresNIO's errors as they are (``transaction(_:)`` reads their SQLSTATE).
    private func withConnectionUnmapped<R: Sendable>(
        timeout: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> R
    ) async throws -> R {
        let leased = LeaseFlag()
        let client = self.client
        let timeout = timeout ?? configuration.leaseTimeout
        return try await withThrowingTaskGroup(of: LeaseOutcome<R>.self) { group in
            group.addTask {
                .done(try await client.withConnection { connection in
                    leased.value.store(true, ordering: .releasing)
                    return try await body(connection)
                })
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return .timer
            }
            defer { group.cancelAll() }
            while let outcome = try await group.next() {
                switch outcome {
                case .done(let value):
                    return value
                case .timer:
                    if !leased.value.load(ordering: .acquiring) {
                        throw PostgresStorageError.unavailable("no connection within \(timeout)")
                    }
                }
            }
            throw PostgresStorageError.unavailable("the connection task ended")
        }
    }

    /// Runs `body` in one transaction (committed before returning) on a leased connection, retrying up to three
    /// times on a deadlock or serialization failure; errors come out as ``PostgresStorageError``.
    func transaction<R: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> R) async throws -> R {
        let logger = self.logger
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await withConnectionUnmapped { connection in
                    try await connection.withTransaction(logger: logger) { try await body($0) }
                }
            } catch {
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

/// Set once a connection is leased (the lease timer then no longer applies).
private final class LeaseFlag: Sendable {
    let value = Atomic<Bool>(false)
}
