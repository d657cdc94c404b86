import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// What the fault-injecting front does to `POST /steps` before (or instead of) forwarding it to the real sink.
public struct FaultPlan: Sendable {
    /// Answer 503 to the first N POSTs.
    public var unavailableFirst = 0
    /// The `Retry-After` sent with those 503s.
    public var retryAfter: String?
    /// Answer 400 to every POST whose body holds this uuid.
    public var rejectUUID: UUID?
    /// Hold every POST this long before answering (so that requests overlap and signals land mid-sync).
    public var delay: Duration = .zero

    /// A plan; every fault is off unless given.
    public init(unavailableFirst: Int = 0, retryAfter: String? = nil, rejectUUID: UUID? = nil, delay: Duration = .zero) {
        self.unavailableFirst = unavailableFirst
        self.retryAfter = retryAfter
        self.rejectUUID = rejectUUID
        self.delay = delay
    }
}

/// Counters kept by the front.
public actor FrontCounters {
    public private(set) var posts = 0
    public private(set) var inFlight = 0
    public private(set) var maxInFlight = 0
    public private(set) var unavailableAnswers = 0
    public private(set) var rejections = 0

    func begin() -> Int {
        posts += 1
        inFlight += 1
        maxInFlight = max(maxInFlight, inFlight)
        return posts
    }

    func end() { inFlight -= 1 }
    func countUnavailable() { unavailableAnswers += 1 }
    func countRejection() { rejections += 1 }
}

/// A small Hummingbird front on 127.0.0.1 (port 0 unless given) in front of the real sink: it counts requests in flight and
/// injects the faults of a ``FaultPlan``; every other request is forwarded to the sink unchanged.
public enum FaultFront {
    public static func withFront<R>(
        sinkPort: Int,
        plan: FaultPlan,
        port requestedPort: Int = 0,
        _ body: (_ port: Int, _ counters: FrontCounters) async throws -> R
    ) async throws -> R {
        let counters = FrontCounters()
        let router = Router()
        router.post("/steps") { request, _ -> Response in
            let number = await counters.begin()
            do {
                let bytes = try await request.body.collect(upTo: 64 << 20)
                if plan.delay > .zero { try await Task.sleep(for: plan.delay) }
                if number <= plan.unavailableFirst {
                    await counters.countUnavailable()
                    await counters.end()
                    var headers: HTTPFields = [.contentType: "application/json"]
                    if let retryAfter = plan.retryAfter { headers[.retryAfter] = retryAfter }
                    return Response(status: .serviceUnavailable, headers: headers,
                                    body: .init(byteBuffer: ByteBuffer(string: #"{"error":{"message":"down for maintenance"}}"#)))
                }
                if let reject = plan.rejectUUID, String(buffer: bytes).lowercased().contains(reject.uuidString.lowercased()) {
                    await counters.countRejection()
                    await counters.end()
                    return Response(status: .badRequest, headers: [.contentType: "application/json"],
                                    body: .init(byteBuffer: ByteBuffer(string: #"{"error":{"message":"sample rejected by the test front"}}"#)))
                }
                var forward = HTTPClientRequest(url: "http://127.0.0.1:\(sinkPort)/steps")
                forward.method = .POST
                for field in request.headers
                where ["content-type", "content-encoding", "authorization"].contains(field.name.canonicalName) {
                    forward.headers.add(name: field.name.canonicalName, value: field.value)
                }
                forward.body = .bytes(bytes)
                let response = try await HTTPClient.shared.execute(forward, timeout: .seconds(30))
                let answer = try await response.body.collect(upTo: 1 << 20)
                await counters.end()
                return Response(status: .init(code: Int(response.status.code)), headers: [.contentType: "application/json"],
                                body: .init(byteBuffer: answer))
            } catch {
                await counters.end()
                throw error
            }
        }
        let logger = Logger(label: "fault-front") { _ in SwiftLogNoOpLogHandler() }
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: requestedPort)),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger)
        let services = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            var iterator = ports.makeAsyncIterator()
            let port = await iterator.next() ?? 0
            do {
                let result = try await body(port, counters)
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
