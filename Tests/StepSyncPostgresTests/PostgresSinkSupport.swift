import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StepSyncCore
import StepSyncEngine
import StepSyncPostgres
import StepSyncSink
import StepSyncTestSupport
import Synchronization

/// Runs an in-process sink over the PostgreSQL database at `url` (migrated first) on 127.0.0.1 port 0, with the
/// authenticator's cache on `clock`; `body` gets the port.
func withPostgresSink<R: Sendable, C: Clock>(
    url: String, clock: C, logger: Logger = quietLogger, leaseTimeout: Duration = PostgresHarness.patientLeaseTimeout,
    healthTimeout: Duration = PostgresHarness.patientLeaseTimeout, maxTypes: Int = 256,
    operationTimeout: Duration = .seconds(6),
    _ body: @Sendable (_ port: Int) async throws -> R
) async throws -> R where C.Duration == Duration {
    // Migrating is set-up, not the behaviour under test: it waits as long as the machine needs.
    let setUp = PostgresSampleStorage.Configuration(url: try DatabaseURL(url), leaseTimeout: PostgresHarness.patientLeaseTimeout, time: .system)
    _ = try await PostgresSampleStorage.withStorage(configuration: setUp, logger: logger) { _ in }
    let configuration = PostgresSampleStorage.Configuration(url: try DatabaseURL(url), leaseTimeout: leaseTimeout,
                                                            operationTimeout: operationTimeout,
                                                            healthTimeout: healthTimeout, maxTypes: maxTypes, time: .system)
    let storage = PostgresSampleStorage(configuration: configuration, logger: logger)
    let authenticator = ClientAuthenticator(storage: storage, time: TimeSource(clock))
    return try await SinkServer.withRunningSink(
        configuration: SinkConfiguration(port: 0, dataPath: "/nonexistent/unused", time: .system), storage: storage,
        authenticator: authenticator, logger: logger, body)
}

/// ``withPostgresSink(url:clock:logger:_:)`` with the real clock.
func withPostgresSink<R: Sendable>(url: String, logger: Logger = quietLogger,
                                   leaseTimeout: Duration = PostgresHarness.patientLeaseTimeout,
                                   healthTimeout: Duration = PostgresHarness.patientLeaseTimeout, maxTypes: Int = 256,
                                   operationTimeout: Duration = .seconds(6),
                                   _ body: @Sendable (_ port: Int) async throws -> R) async throws -> R {
    try await withPostgresSink(url: url, clock: ContinuousClock(), logger: logger, leaseTimeout: leaseTimeout,
                               healthTimeout: healthTimeout, maxTypes: maxTypes, operationTimeout: operationTimeout,
                               body)
}

/// Adds clients directly through the storage; returns their tokens by name.
func addClients(_ names: [String], url: String) async throws -> [String: String] {
    let configuration = PostgresSampleStorage.Configuration(url: try DatabaseURL(url), maximumConnections: 1,
                                                            leaseTimeout: PostgresHarness.patientLeaseTimeout, time: .system)
    return try await PostgresSampleStorage.withStorage(configuration: configuration, logger: quietLogger) { storage in
        var tokens: [String: String] = [:]
        for name in names {
            let token = ClientToken.random()
            _ = try await storage.addClient(name: name, token: token)
            tokens[name] = token.text
        }
        return tokens
    }
}

/// The PostgreSQL suites' name for the one test client (``SinkClient`` in StepSyncTestSupport).
typealias SinkCaller = SinkClient

/// Runs the real sync engine over `fixture` against a sink as the client holding `token`.
func sync(_ fixture: SyncFixture, port: Int, token: String?, concurrency: Int = 3,
          policy: RetryPolicy = RetryPolicy(maxAttempts: 60, baseSeconds: 0.02, maxDelaySeconds: 0.25),
          progress: (SyncProgress) -> Void = { _ in }) async throws -> SyncReport {
    try await HTTPUploader.withUploader(server: "http://127.0.0.1:\(port)", token: token, concurrency: concurrency,
                                       requestTimeout: .patient, connectTimeout: .patient, probeTimeout: .patient,
                                           time: .system, logger: quietLogger) { uploader in
        let engine = SyncEngine(store: fixture.store, uploader: uploader,
                                configuration: SyncConfiguration(concurrency: concurrency, retryPolicy: policy),
                                logger: quietLogger, time: .system)
        return try await engine.run(progress: progress)
    }
}

