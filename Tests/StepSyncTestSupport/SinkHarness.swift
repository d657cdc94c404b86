import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import StepSyncCore
import StepSyncSink

/// The real sink for tests: in process on 127.0.0.1, an ephemeral port, data in its own temp dir.
public enum SinkHarness {
    public static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    public static func withSink<R: Sendable>(_ body: @Sendable (_ port: Int) async throws -> R) async throws -> R {
        let dir = TemporaryDirectory.uniquePath("stepsync-sink")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let configuration = SinkConfiguration(
            host: "127.0.0.1", port: 0, dataPath: (dir as NSString).appendingPathComponent("steps.jsonl"), time: .system)
        return try await SinkServer.withRunningSink(configuration: configuration, logger: quiet) { port in
            try await body(port)
        }
    }

    /// Every uuid the sink holds, read back through `GET /steps` pages; fails the test on a uuid seen twice.
    public static func storedUUIDs(port: Int) async throws -> (uuids: Set<UUID>, count: Int) {
        try await storedUUIDs(port: port, path: "/steps?")
    }

    /// Every uuid of `type` the sink holds, read back through `GET /samples?type=` pages (step counts from both
    /// doors for `HKQuantityTypeIdentifierStepCount`).
    public static func storedUUIDs(port: Int, type: String) async throws -> (uuids: Set<UUID>, count: Int) {
        try await storedUUIDs(port: port, path: "/samples?type=\(type)&")
    }

    /// Posts `samples` to `POST /samples` of the sink at `port` (with `token`, if any), `batch` a request; throws
    /// naming the answer when one is not 200.
    public static func post(_ samples: [HealthSample], port: Int, token: String?, batch: Int = 2_000) async throws {
        let client = SinkClient(port: port, token: token)
        for start in stride(from: 0, to: samples.count, by: batch) {
            let reply = try await client.post(Array(samples[start..<min(samples.count, start + batch)]))
            guard reply.status == 200 else {
                throw HarnessError(message: "POST /samples answered \(reply.status): \(reply.text.prefix(300))")
            }
        }
    }

    /// Sends `method path` (`GET`, `POST` or `DELETE`) to the sink at `port` (with `token`, if any, and `headers`), a JSON `body` if given;
    /// returns the status and the body whatever the status.
    public static func request(_ method: String, _ path: String, port: Int, token: String?, body: [UInt8]? = nil,
                               headers: [(String, String)] = []) async throws -> (status: Int, body: [UInt8]) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method == "GET" ? .GET : method == "DELETE" ? .DELETE : .POST
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(body)
        }
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        let buffer = try await response.body.collect(upTo: 64 << 20)
        return (Int(response.status.code), Array(buffer: buffer))
    }

    /// The sink's sample counts per type (`GET /samples/types`).
    public static func typeCounts(port: Int) async throws -> [String: Int] {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(port)/samples/types"), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code == 200,
              let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
              let types = object["types"] as? [String: Int]
        else { throw HarnessError(message: "GET /samples/types answered \(response.status): \(String(buffer: body))") }
        return types
    }

    private static func storedUUIDs(port: Int, path: String) async throws -> (uuids: Set<UUID>, count: Int) {
        var uuids = Set<UUID>()
        var count = 0
        for sample in try await SinkClient(port: port).allPages(String(path.dropLast())) {
            guard let text = sample["uuid"] as? String, let uuid = UUID(uuidString: text) else {
                throw HarnessError(message: "a sample without a uuid: \(sample)")
            }
            uuids.insert(uuid)
            count += 1
        }
        return (uuids, count)
    }

    public struct HarnessError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
        public init(message: String) { self.message = message }
    }
}

extension TimeAmount {
    /// The network deadlines (connect, request, `/health` probe) of a test's uploader: long enough that a suite of
    /// hundreds of tests sharing two cores never fires one, so only a test's clock decides when the engine waits.
    public static let patient: TimeAmount = .minutes(10)
}
