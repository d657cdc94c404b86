import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// What the fault-injecting front does to the sync's POSTs (`/steps`, `/samples` and their `/delete`s) before (or
/// instead of) forwarding them to the real sink.
public struct FaultPlan: Sendable {
    /// Answer `failureStatus` (503 unless given) to the first N POSTs.
    public var unavailableFirst = 0
    /// The status of those answers: 503 (the sink is unavailable), 500 (a fault of one request), 429, ….
    public var failureStatus = 503
    /// The `Retry-After` sent with those answers.
    public var retryAfter: String?
    /// Answer 400 (without naming a sample) to every POST whose body holds this uuid.
    public var rejectUUID: UUID?
    /// Answer 400 naming this sample by its index — `{"error":"negative_value",…,"index":i,"field":"count"}`, as the
    /// sink does — to every POST whose body holds this uuid: an older or stricter sink than the engine.
    public var refuseUUIDByIndex: UUID?
    /// Hold every POST this long before answering (so that requests overlap and signals land mid-sync).
    public var delay: Duration = .zero
    /// Hold each POST until every POST of its batch (POSTs 1…n, n+1…2n, …) has arrived: a client that keeps n in
    /// flight passes batch after batch; one that sends more shows it in ``FrontCounters/maxInFlight`` every time.
    public var batch = 0
    /// Paths the front answers 404 as a sink that does not serve them would (HealthStepsSync has no `/samples`).
    public var missingPaths: Set<String> = []
    /// Answer 413 with an HTML body, as nginx's `client_max_body_size` does, to every POST whose body is larger.
    public var maxBodyBytes: Int?
    /// Hold POST number n and every later one until ``FrontCounters/releaseHeld()`` (a test kills the client
    /// meanwhile): the POSTs before it were answered.
    public var holdFromPost: Int?

    /// A plan; every fault is off unless given.
    public init(unavailableFirst: Int = 0, failureStatus: Int = 503, retryAfter: String? = nil, rejectUUID: UUID? = nil,
                refuseUUIDByIndex: UUID? = nil, delay: Duration = .zero, batch: Int = 0,
                missingPaths: Set<String> = [], maxBodyBytes: Int? = nil, holdFromPost: Int? = nil) {
        self.unavailableFirst = unavailableFirst
        self.failureStatus = failureStatus
        self.retryAfter = retryAfter
        self.rejectUUID = rejectUUID
        self.refuseUUIDByIndex = refuseUUIDByIndex
        self.delay = delay
        self.batch = batch
        self.missingPaths = missingPaths
        self.maxBodyBytes = maxBodyBytes
        self.holdFromPost = holdFromPost
    }
}

/// Counters kept by the front, and the bodies it received.
public actor FrontCounters {
    public private(set) var posts = 0
    public private(set) var inFlight = 0
    public private(set) var maxInFlight = 0
    public private(set) var unavailableAnswers = 0
    public private(set) var rejections = 0
    public private(set) var healthProbes = 0
    /// POSTs answered 413 (``FaultPlan/maxBodyBytes``).
    public private(set) var tooLargeAnswers = 0
    /// The size of every POST body forwarded to the sink.
    public private(set) var forwardedSizes: [Int] = []
    /// Every POST body forwarded to the sink (not answered by the front itself), by path, in order.
    public private(set) var forwarded: [String: [Data]] = [:]
    private var held: [CheckedContinuation<Void, Never>] = []
    /// Every POST body received, by path, in order of arrival.
    public private(set) var bodies: [String: [Data]] = [:]

    private var postWaiters: [(id: Int, count: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    private var nextWaiter = 0
    private var batchWaiters: [Int: [CheckedContinuation<Void, Never>]] = [:]

    func begin(path: String, body: Data) -> Int {
        posts += 1
        inFlight += 1
        maxInFlight = max(maxInFlight, inFlight)
        bodies[path, default: []].append(body)
        postWaiters.removeAll { waiter in
            guard posts >= waiter.count else { return false }
            waiter.continuation.resume(returning: true)
            return true
        }
        return posts
    }

    /// Returns once at least `count` POSTs have arrived; throws when `within` passes first (a client that ended, or
    /// had nothing left to send, fails the test instead of hanging it).
    public func waitForPosts(_ count: Int, within: Duration = .seconds(120)) async throws {
        if posts >= count { return }
        nextWaiter += 1
        let id = nextWaiter
        let timer = Task { [weak self] in
            try await Task.sleep(for: within)
            await self?.expire(id)
        }
        defer { timer.cancel() }
        guard await withCheckedContinuation({ postWaiters.append((id, count, $0)) }) else {
            throw SinkHarness.HarnessError(message: "\(posts) POSTs arrived within \(within), not \(count)")
        }
    }

    /// Ends waiter `id`'s wait unfulfilled.
    private func expire(_ id: Int) {
        guard let index = postWaiters.firstIndex(where: { $0.id == id }) else { return }
        postWaiters.remove(at: index).continuation.resume(returning: false)
    }

    private var released = false

    /// Lets every POST held for its batch go, and every later one pass (the front does it before shutting down).
    public func releaseHeld() {
        released = true
        for waiter in held { waiter.resume() }
        held.removeAll()
        for waiter in batchWaiters.values.joined() { waiter.resume() }
        batchWaiters.removeAll()
    }

    /// Holds POST `number` until the last POST of its batch of `size` has arrived.
    func gather(_ number: Int, size: Int) async {
        if released { return }
        let batch = (number - 1) / size
        if number % size == 0 {
            for waiter in batchWaiters.removeValue(forKey: batch) ?? [] { waiter.resume() }
            return
        }
        await withCheckedContinuation { batchWaiters[batch, default: []].append($0) }
    }

    /// Holds a POST until ``releaseHeld()``.
    func hold() async {
        if released { return }
        await withCheckedContinuation { held.append($0) }
    }

    func countTooLarge() { tooLargeAnswers += 1 }
    func countForwarded(_ body: Data, path: String) {
        forwardedSizes.append(body.count)
        forwarded[path, default: []].append(body)
    }
    func end() { inFlight -= 1 }
    func countUnavailable() { unavailableAnswers += 1 }
    func countRejection() { rejections += 1 }
    func countProbe() { healthProbes += 1 }
}

/// A small Hummingbird front on 127.0.0.1 (port 0 unless given) in front of the real sink: it counts requests in flight and
/// injects the faults of a ``FaultPlan``; every other request is forwarded to the sink unchanged.
public enum FaultFront {
    /// The POST paths the front takes.
    public static let paths = ["/steps", "/steps/delete", "/samples", "/samples/delete"]

    /// A real sink (``SinkHarness/withSink(_:)``) with a front before it: `body` gets the front's port and counters, and
    /// the sink's own port, to read back past the front what was stored.
    public static func withSink<R: Sendable>(
        plan: FaultPlan,
        _ body: @Sendable (_ port: Int, _ counters: FrontCounters, _ sinkPort: Int) async throws -> R
    ) async throws -> R {
        try await SinkHarness.withSink { sinkPort in
            try await withFront(sinkPort: sinkPort, plan: plan) { port, counters in try await body(port, counters, sinkPort) }
        }
    }

    /// A front on `port` (0 for any) before the sink on `sinkPort`: `body` gets the front's port and counters.
    public static func withFront<R>(
        sinkPort: Int,
        plan: FaultPlan,
        port requestedPort: Int = 0,
        _ body: (_ port: Int, _ counters: FrontCounters) async throws -> R
    ) async throws -> R {
        let counters = FrontCounters()
        let router = Router()
        for path in paths {
            router.post(RouterPath(path)) { request, _ -> Response in
                let bytes = try await request.body.collect(upTo: 64 << 20)
                let number = await counters.begin(path: path, body: Data(bytes.readableBytesView))
                do {
                    let response = try await answer(path: path, number: number, bytes: bytes, request: request,
                                                    plan: plan, sinkPort: sinkPort, counters: counters)
                    await counters.end()
                    return response
                } catch {
                    await counters.end()
                    throw error
                }
            }
        }
        router.get("/health") { _, _ -> Response in
            await counters.countProbe()
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(sinkPort)/health"), timeout: .seconds(30))
            let answer = try await response.body.collect(upTo: 1 << 16)
            return Response(status: .init(code: Int(response.status.code)), headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: answer))
        }
        return try await TestFront.run(router, name: "fault-front", port: requestedPort,
                                       beforeShutdown: { await counters.releaseHeld() }) { port in
            try await body(port, counters)
        }
    }

    /// The answer to POST number `number` on `path`: a planned fault, or the sink's own answer.
    private static func answer(
        path: String, number: Int, bytes: ByteBuffer, request: Request, plan: FaultPlan, sinkPort: Int,
        counters: FrontCounters
    ) async throws -> Response {
        if plan.batch > 0 { await counters.gather(number, size: plan.batch) }
        if plan.delay > .zero { try await Task.sleep(for: plan.delay) }
        if let hold = plan.holdFromPost, number >= hold { await counters.hold() }
        if let limit = plan.maxBodyBytes, bytes.readableBytes > limit {
            await counters.countTooLarge()
            return Response(status: .contentTooLarge, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(
                string: "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n")))
        }
        if number <= plan.unavailableFirst {
            await counters.countUnavailable()
            var headers: HTTPFields = [.contentType: "application/json"]
            if let retryAfter = plan.retryAfter { headers[.retryAfter] = retryAfter }
            return Response(status: .init(code: plan.failureStatus), headers: headers,
                            body: .init(byteBuffer: ByteBuffer(string: #"{"error":{"message":"down for maintenance"}}"#)))
        }
        let text = String(buffer: bytes).lowercased()
        if let reject = plan.rejectUUID, text.contains(reject.uuidString.lowercased()) {
            await counters.countRejection()
            return Response(status: .badRequest, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: #"{"error":{"message":"sample rejected by the test front"}}"#)))
        }
        if let refuse = plan.refuseUUIDByIndex, text.contains(refuse.uuidString.lowercased()),
           let object = try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any],
           let samples = object["samples"] as? [[String: Any]],
           let index = samples.firstIndex(where: { ($0["uuid"] as? String)?.lowercased() == refuse.uuidString.lowercased() }) {
            await counters.countRejection()
            let field = path == "/steps" ? "count" : "value"
            let message = "sample \(index): field \\\"\(field)\\\" -5 is negative"
            return Response(status: .badRequest, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: #"{"error":"negative_value","message":"\#(message)","index":\#(index),"field":"\#(field)"}"#)))
        }
        if plan.missingPaths.contains(path) {
            return Response(status: .notFound, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: #"{"error":"not_found","message":"no endpoint \#(path)"}"#)))
        }
        var forward = HTTPClientRequest(url: "http://127.0.0.1:\(sinkPort)\(path)")
        forward.method = .POST
        for field in request.headers
        where ["content-type", "content-encoding", "authorization"].contains(field.name.canonicalName) {
            forward.headers.add(name: field.name.canonicalName, value: field.value)
        }
        forward.body = .bytes(bytes)
        await counters.countForwarded(Data(bytes.readableBytesView), path: path)
        let response = try await HTTPClient.shared.execute(forward, timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 1 << 20)
        return Response(status: .init(code: Int(response.status.code)), headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: answer))
    }
}
