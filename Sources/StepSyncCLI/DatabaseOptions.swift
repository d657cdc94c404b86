import ArgumentParser
import Foundation
import Logging
import StepSyncPostgres

/// `--database URL` (or `STEPSYNC_DATABASE_URL`): the PostgreSQL database of a multi-client sink.
struct DatabaseOptions: ParsableArguments {
    /// The database URL as given.
    @Option(name: .customLong("database"), help: ArgumentHelp(
        "The PostgreSQL database, as postgresql://user[:password]@host[:port]/database[?sslmode=disable].",
        discussion: "Defaults to STEPSYNC_DATABASE_URL.", valueName: "url"))
    var databaseURL: String?

    /// `--database`, else `STEPSYNC_DATABASE_URL`, else nil.
    var givenURL: String? {
        EnvironmentValue.or(databaseURL, "STEPSYNC_DATABASE_URL")
    }

    /// The parsed URL; throws a `ValidationError` naming the problem when absent or malformed.
    func url() throws -> DatabaseURL {
        guard let text = givenURL else {
            throw ValidationError("Name the database: --database postgresql://user@host:5432/database (or STEPSYNC_DATABASE_URL).")
        }
        do {
            return try DatabaseURL(text)
        } catch let error as PostgresStorageError {
            throw ValidationError(error.message)
        }
    }

    /// Runs `body` with a migrated storage on that database; a storage error becomes a message on stderr and a
    /// non-zero exit.
    func withStorage<R: Sendable>(_ body: @Sendable (PostgresSampleStorage) async throws -> R) async throws -> R {
        let url = try self.url()
        var logger = Logger(label: "stepsync.clients") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        do {
            return try await PostgresSampleStorage.withStorage(configuration: .init(url: url, maximumConnections: 2, time: .system),
                                                               logger: logger, body)
        } catch let error as PostgresStorageError {
            FileHandle.standardError.write(Data("error: \(Self.message(error, url: url))\n".utf8))
            throw ExitCode.failure
        }
    }

    /// `error` for people: when the database cannot be reached, which one (host and port, or socket directory).
    static func message(_ error: PostgresStorageError, url: DatabaseURL) -> String {
        guard error.isUnavailable else { return error.message }
        var place = "the socket in \(url.socketDirectory ?? "?") (port \(url.port))"
        if let host = url.host { place = "\(host):\(url.port)" }
        return "cannot reach the PostgreSQL database \(url.database) at \(place): \(error.message) — is the server running, and are host and port in --database right?"
    }
}
