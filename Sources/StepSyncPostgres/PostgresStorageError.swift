import PostgresNIO
import StepSyncCore

/// What went wrong with the PostgreSQL storage, in words a user can act on.
///
/// ``isUnavailable`` tells the sink to answer 503 with `Retry-After` (the database could not be reached or was
/// stopped mid-request: nothing was acknowledged, resending is safe). Messages never hold a password, a token or
/// more than a short prefix of what was sent.
public struct PostgresStorageError: Error, CustomStringConvertible, Sendable {
    private let code: ErrorKind
    /// What happened, for people.
    public let message: String
    /// What went wrong, without the advice (`connectionError`, `SQLSTATE 57P01`, …): the reason `/health` gives.
    public let detail: String

    private init(_ code: ErrorKind, _ message: String, detail: String? = nil) {
        self.code = code
        self.message = message
        self.detail = detail ?? message
    }

    /// A stable key for the kind of failure (`database_unavailable`, `client_exists`, …).
    public var kind: String { code.rawValue }

    /// For a batch refused by the type limit: the limit, the client's types and the batch's new ones (the sink
    /// answers 400 `too_many_types`).
    public private(set) var typeCounts: (limit: Int, stored: Int, new: Int)?

    /// True when the database could not be reached or went away: answer 503 with `Retry-After`; the client resends.
    public var isUnavailable: Bool { code == .databaseUnavailable }

    public var description: String { message }

    static func badURL(_ problem: String) -> Self { Self(.badDatabaseURL, "--database URL \(problem)") }

    static func unavailable(_ detail: String) -> Self {
        Self(.databaseUnavailable, "the database is unavailable (\(detail)); nothing was stored, retry later", detail: detail)
    }

    static func migration(_ version: Int, _ name: String, _ detail: String) -> Self {
        Self(.migrationFailed, "schema migration \(version) (\(name)) failed: \(detail)")
    }

    static func newerSchema(_ version: Int, known: Int) -> Self {
        Self(.schemaTooNew, "the database's schema is at version \(version), newer than this stepsync knows (\(known)); "
             + "upgrade stepsync before serving from this database")
    }

    static func clientExists(_ name: String) -> Self {
        Self(.clientExists, "a client named \(name.prefix(64)) already exists; pick another name or revoke it first")
    }

    static func noSuchClient(_ name: String) -> Self {
        Self(.noSuchClient, "no client named \(name.prefix(64)); `stepsync clients list` shows them")
    }

    /// A batch for a client id that `clients` does not hold (what the foreign key of schema v1–v2 refused per row;
    /// the sink only stores for a client its token resolved to, so this is a bug, never a user's doing).
    static func unknownClientID(_ id: Int64) -> Self {
        Self(.noSuchClient, "no client has id \(id); samples are stored only for a client of `stepsync clients list`")
    }

    static func badName(_ problem: String) -> Self { Self(.badClientName, "client name \(problem)") }

    static func tooManyTypes(limit: Int, stored: Int, new: Int) -> Self {
        var error = Self(.tooManyTypes, "the batch would bring the client past \(limit) distinct types")
        error.typeCounts = (limit, stored, new)
        return error
    }

    static func query(_ detail: String) -> Self { Self(.databaseError, "the database refused a query: \(detail)") }

    /// Classifies an error thrown by PostgresNIO or its pool.
    ///
    /// Connection failures, a server shutting down (SQLSTATE class 08, 57P01–57P03), too many connections (53300),
    /// a refused login or a missing database (classes 28 and 3D), a tripped pool circuit breaker and timeouts are
    /// *unavailable*. Anything else is a query error; its SQLSTATE and the server's message are kept, never the
    /// query's bound values. Messages of unavailable errors reach clients (503), so they keep only the SQLSTATE or
    /// PostgresNIO's error code: never the server's text or a socket error, which can name the database's host, port,
    /// user or database.
    static func from(_ error: any Error) -> Self {
        if let error = error as? PostgresStorageError { return error }
        if let error = error as? PostgresTransactionError {
            guard let inner = error.closureError ?? error.commitError ?? error.beginError ?? error.rollbackError else {
                return .unavailable("the transaction failed")
            }
            return from(inner)
        }
        if let error = error as? PSQLError {
            switch error.code {
            case .server:
                let state = error.serverInfo?[.sqlState] ?? "?"
                let text = String((error.serverInfo?[.message] ?? "").prefix(200))
                if state.hasPrefix("08") || state.hasPrefix("28") || state.hasPrefix("3D")
                    || ["57P01", "57P02", "57P03", "53300"].contains(state) {
                    return .unavailable("SQLSTATE \(state)")
                }
                return .query("SQLSTATE \(state): \(text)")
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
                 .queryCancelled, .sslUnsupported, .failedToAddSSLHandler:
                return .unavailable("\(error.code)")
            default:
                return .query("\(error.code)")
            }
        }
        if error is CancellationError { return .unavailable("request cancelled") }
        return .unavailable(String(describing: type(of: error)))
    }

    /// The SQLSTATE of a server error, when it is one (looking inside a failed transaction).
    static func sqlState(_ error: any Error) -> String? {
        if let error = error as? PostgresTransactionError, let inner = error.closureError ?? error.commitError {
            return sqlState(inner)
        }
        return (error as? PSQLError)?.serverInfo?[.sqlState]
    }
}
