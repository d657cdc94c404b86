import Logging
import StepSyncStorage

/// What `stepsync serve --database URL` runs: a migrated PostgreSQL storage and the authenticator of its clients,
/// for ``buildSinkApplication(configuration:storage:authenticator:logger:onServerRunning:)``.
public enum PostgresSink {
    /// Brings the schema up to date (on a short-lived pool of its own, so a database that cannot be reached fails
    /// the start with a clear message), then returns the storage to serve from and its authenticator.
    ///
    /// - Throws: ``PostgresStorageError`` when the database cannot be reached or its schema cannot be migrated.
    public static func prepare(
        configuration: PostgresSampleStorage.Configuration, logger: Logger
    ) async throws -> (storage: PostgresSampleStorage, authenticator: ClientAuthenticator) {
        let identity = try await PostgresSampleStorage.withStorage(configuration: configuration, logger: logger) {
            $0.sinkIdentity
        }
        let storage = PostgresSampleStorage(configuration: configuration, logger: logger)
        storage.identity.withLock { $0 = identity }
        logger.info("Serving from PostgreSQL", metadata: ["postgres.url": "\(configuration.url.redacted)"])
        return (storage, ClientAuthenticator(storage: storage, time: storage.configuration.time))
    }
}
