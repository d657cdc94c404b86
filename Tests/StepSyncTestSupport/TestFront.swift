import Hummingbird
import Logging
import ServiceLifecycle

/// A small Hummingbird server on 127.0.0.1 for a test's length: what ``FaultFront`` and ``AnswerLossFront`` put in
/// front of the real sink.
enum TestFront {
    /// Runs `router` on 127.0.0.1 (`port`, 0 for any), calls `body` with the port it listens on, then runs
    /// `beforeShutdown` (on every path) and shuts it down gracefully. Throws when the server stops before it listens
    /// (a bind error) rather than waiting for a port.
    static func run<R>(_ router: Router<BasicRequestContext>, name: String, port requestedPort: Int = 0,
                       beforeShutdown: () async -> Void = {}, _ body: (_ port: Int) async throws -> R) async throws -> R {
        let logger = Logger(label: name) { _ in SwiftLogNoOpLogHandler() }
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: requestedPort)),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger)
        let services = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { portContinuation.finish() }
                try await services.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await group.waitForAll()
                throw SinkHarness.HarnessError(message: "\(name) stopped before it listened")
            }
            do {
                let result = try await body(port)
                await beforeShutdown()
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
                return result
            } catch {
                await beforeShutdown()
                await services.triggerGracefulShutdown()
                try? await group.waitForAll()
                throw error
            }
        }
    }
}
