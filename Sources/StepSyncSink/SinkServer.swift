import Hummingbird
import Logging
import ServiceLifecycle

/// Runs a sink in process for as long as a closure runs: used by `stepsync demo`, the sync helper and tests.
public enum SinkServer {
    /// Starts a sink on `configuration.host`/`port` (port 0: a free one), waits until it listens, calls `body` with
    /// the bound port, then shuts the sink down gracefully (in-flight requests finish and are committed), also when
    /// `body` throws.
    ///
    /// - Throws: what `body` throws; ``SampleLogError`` or a bind error when the sink cannot start.
    public static func withRunningSink<T: Sendable>(
        configuration: SinkConfiguration,
        logger: Logger,
        _ body: @Sendable (_ port: Int) async throws -> T
    ) async throws -> T {
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let app = try await buildSinkApplication(configuration: configuration, logger: logger) { port in
            portContinuation.yield(port)
            portContinuation.finish()
        }
        return try await run(app, configuration: configuration, ports: ports, portContinuation: portContinuation,
                             logger: logger, body)
    }

    /// ``withRunningSink(configuration:logger:_:)`` over any storage and authenticator (the PostgreSQL sink, tests).
    public static func withRunningSink<T: Sendable>(
        configuration: SinkConfiguration,
        storage: some SampleStorage,
        authenticator: some SinkAuthenticator,
        logger: Logger,
        _ body: @Sendable (_ port: Int) async throws -> T
    ) async throws -> T {
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let app = try buildSinkApplication(configuration: configuration, storage: storage, authenticator: authenticator,
                                           logger: logger) { port in
            portContinuation.yield(port)
            portContinuation.finish()
        }
        return try await run(app, configuration: configuration, ports: ports, portContinuation: portContinuation,
                             logger: logger, body)
    }

    private static func run<T: Sendable>(
        _ app: some ApplicationProtocol, configuration: SinkConfiguration, ports: AsyncStream<Int>,
        portContinuation: AsyncStream<Int>.Continuation, logger: Logger,
        _ body: @Sendable (_ port: Int) async throws -> T
    ) async throws -> T {
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { portContinuation.finish() }
                try await group.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                // The server stopped before listening: surface its error.
                try await tasks.waitForAll()
                throw SinkServerError(description: "the sink stopped before it listened on \(configuration.host):\(configuration.port)")
            }
            do {
                let result = try await body(port)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
    }
}

/// The in-process sink could not be started.
public struct SinkServerError: Error, CustomStringConvertible {
    /// What happened.
    public let description: String
}
