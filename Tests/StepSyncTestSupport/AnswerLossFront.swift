import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A front on 127.0.0.1 (port 0) that forwards `DELETE /steps` to the real sink and then loses the sink's answer:
/// the client gets `502 Bad Gateway` although the sink did the work. This is the one fault between "the sink
/// acted" and "the client knows" that a real network produces but a real sink cannot on demand.
public enum AnswerLossFront {
    public static func withFront<R>(sinkPort: Int, _ body: (_ port: Int) async throws -> R) async throws -> R {
        let router = Router()
        router.delete("/steps") { request, _ -> Response in
            var forward = HTTPClientRequest(url: "http://127.0.0.1:\(sinkPort)/steps")
            forward.method = .DELETE
            if let authorization = request.headers[.authorization] {
                forward.headers.add(name: "Authorization", value: authorization)
            }
            let response = try await HTTPClient.shared.execute(forward, timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 1 << 20)
            return Response(status: .badGateway, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: #"{"error":{"message":"the sink's answer was lost"}}"#)))
        }
        let logger = Logger(label: "answer-loss-front") { _ in SwiftLogNoOpLogHandler() }
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger)
        let services = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            var iterator = ports.makeAsyncIterator()
            let port = await iterator.next() ?? 0
            do {
                let result = try await body(port)
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
                return result
            } catch {
                await services.triggerGracefulShutdown()
                try? await group.waitForAll()
                throw error
            }
        }
    }
}
