import AsyncHTTPClient
import CompressNIO
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StepSyncCore
import StepSyncSink
import Synchronization

/// A temporary directory removed after `body`.
func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = NSTemporaryDirectory() + "stepsync-sink-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

let quietLogger: Logger = {
    var logger = Logger(label: "sink-test")
    logger.logLevel = .critical
    return logger
}()

/// A client talking to one running sink.
struct SinkClient: Sendable {
    let port: Int
    var token: String?

    struct Reply: Sendable {
        var status: Int
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) ?? [:] }
    }

    func send(_ method: HTTPMethod, _ path: String, body: [UInt8]? = nil, contentType: String? = "application/json",
              headers extra: [(String, String)] = []) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
            if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        }
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in extra { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let buffer = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), body: Array(buffer: buffer))
    }

    func post(_ samples: [WireSample]) async throws -> Reply {
        try await send(.POST, "/steps", body: WireEncoder.encodeRequest(samples))
    }
}

/// Runs a sink on 127.0.0.1 port 0 storing in `<dir>/sink/steps.jsonl`.
func withSink<T: Sendable>(
    directory: String, token: String? = nil, configure: (inout SinkConfiguration) -> Void = { _ in },
    _ body: @Sendable (SinkClient, String) async throws -> T
) async throws -> T {
    let path = directory + "/sink/steps.jsonl"
    var configuration = SinkConfiguration(port: 0, dataPath: path, token: token)
    configure(&configuration)
    return try await SinkServer.withRunningSink(configuration: configuration, logger: quietLogger) { port in
        try await body(SinkClient(port: port, token: token), path)
    }
}

/// Deterministic samples: `n` from `first`, ten minutes apart from 2025-05-11, count = index + 1.
func makeSamples(_ n: Int, first: Int = 0, device: String? = "iPhone") -> [WireSample] {
    let base = ISO8601Millis.parse("2025-05-11T00:00:00.000Z")!
    return (first..<(first + n)).map { i in
        WireSample(uuid: uuid(i), startMs: base + Int64(i) * 600_000, endMs: base + Int64(i) * 600_000 + 60_000,
                   count: Double(i + 1), sourceBundleId: "com.apple.health", sourceDeviceName: device)
    }
}

/// A fixed uuid for index `i`.
func uuid(_ i: Int) -> UUID {
    UUID(uuidString: String(format: "00000000-0000-4000-8000-%012X", i))!
}

func fileBytes(_ path: String) -> [UInt8] {
    (FileManager.default.contents(atPath: path)).map(Array.init) ?? []
}

/// The stored sample lines of the file, decoded (tombstones left out).
func storedSamples(_ path: String) throws -> [WireSample] {
    try String(decoding: fileBytes(path), as: UTF8.self).split(separator: "\n")
        .filter { !$0.hasPrefix(#"{"deleted""#) }
        .map { try WireDecoder.decodeSample(Data($0.utf8)) }
}

/// Counts calls (the sink's fdatasync hook).
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}
