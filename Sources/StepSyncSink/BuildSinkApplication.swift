import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Builds the sink server: opens (and repairs) the data file, rebuilds the uuid index, and returns the application
/// `stepsync serve` runs and the tests start on port 0. Run it in a `ServiceGroup`; stop it with
/// `triggerGracefulShutdown()` (in-flight requests finish and are committed).
///
/// - Throws: ``SampleLogError`` when the data file cannot be opened or holds a corrupt line.
public func buildSinkApplication(configuration: SinkConfiguration, logger: Logger) async throws -> some ApplicationProtocol {
    try await buildSinkApplication(configuration: configuration, logger: logger, onServerRunning: { _ in })
}

/// ``buildSinkApplication(configuration:logger:)`` with a callback told the bound port once the server listens
/// (`serve` prints it; with port 0 it is the only way to learn it).
public func buildSinkApplication(
    configuration: SinkConfiguration,
    logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void
) async throws -> some ApplicationProtocol {
    let log = try SampleLog(path: configuration.dataPath, durable: configuration.durable, onSync: configuration.onSync,
                            logger: logger)
    var app = Application(
        responder: SinkResponder(log: log, configuration: configuration),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "stepsync"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger
    )
    app.addServices(SampleLogService(log: log))
    return app
}

/// Keeps the data file open for the server's lifetime. Shut down after the server (services stop in reverse
/// order), when every in-flight request has been committed.
struct SampleLogService: Service {
    let log: SampleLog

    func run() async throws {
        try? await gracefulShutdown()
        _ = log // the last reference goes with the application; the descriptor closes in `SampleLogFile.deinit`
    }
}
