import AsyncHTTPClient
import CompressNIO
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StepSyncCore
import StepSyncSink
import StepSyncTestSupport
import Synchronization

let quietLogger: Logger = {
    var logger = Logger(label: "sink-test")
    logger.logLevel = .critical
    return logger
}()

/// The storages the sink suite runs against: each test that speaks HTTP only takes a backend argument, so a new
/// ``SampleStorage`` (PostgreSQL) joins the whole suite by adding a case here and its `makeStorage`.
enum SinkBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    /// The JSONL files (`JSONLStorage`).
    case jsonl
    /// PostgreSQL (`PostgresSampleStorage`) on the test server (`SinkBackend+Postgres.swift`).
    case postgres

    /// The backends this machine runs: PostgreSQL wherever its server is installed, and always on CI.
    static var allCases: [SinkBackend] { PostgresHarness.shouldRun ? [.jsonl, .postgres] : [.jsonl] }

    var description: String { rawValue }

    /// A fresh storage for one test, keeping its data under `directory` when it keeps files, with the
    /// authenticator and the token a client must send (`nil`: none).
    func makeStorage(directory: String, configuration: SinkConfiguration) async throws
        -> (storage: any SampleStorage, authenticator: any SinkAuthenticator, token: String?)
    {
        switch self {
        case .jsonl:
            let storage = try JSONLStorage(stepsPath: configuration.dataPath, durable: configuration.durable,
                                           retryAfterSeconds: configuration.retryAfterSeconds,
                                           maxTypes: configuration.maxTypes, onSync: configuration.onSync,
                                           time: .system, logger: quietLogger)
            return (storage, SharedTokenAuthenticator(token: configuration.token), configuration.token)
        case .postgres:
            return try await makePostgresStorage(directory: directory, configuration: configuration)
        }
    }
}

/// The sink suites' name for the one test client (``SinkClient`` in StepSyncTestSupport).
typealias SinkTestClient = SinkClient

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The `POST /samples` body of `samples`.
func samplesBody(_ samples: [HealthSample]) -> [UInt8] { SinkClient.samplesBody(samples) }

/// Runs a sink on 127.0.0.1 port 0 over `backend`, storing in `<dir>/sink/steps.jsonl` (JSONL); `body` gets a
/// client and that path.
func withSink<T: Sendable>(
    _ backend: SinkBackend = .jsonl,
    directory: String, token: String? = nil, configure: (inout SinkConfiguration) -> Void = { _ in },
    _ body: @Sendable (SinkTestClient, String) async throws -> T
) async throws -> T {
    let path = directory + "/sink/steps.jsonl"
    var configuration = SinkConfiguration(port: 0, dataPath: path, token: token, time: .system)
    configure(&configuration)
    let (storage, authenticator, clientToken) = try await backend.makeStorage(directory: directory,
                                                                              configuration: configuration)
    return try await SinkServer.withRunningSink(configuration: configuration, storage: storage,
                                                authenticator: authenticator, logger: quietLogger) { port in
        try await body(SinkTestClient(port: port, token: clientToken), path)
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

/// Deterministic samples of any type: `n` from `first` (uuids from `uuid(first)`), ten minutes apart from
/// 2025-05-11, value = index + 1.
func makeHealthSamples(_ n: Int, first: Int = 0, type: SampleType = .heartRate, unit: String = "count/min",
                       details: String? = nil) -> [HealthSample] {
    let base = ISO8601Millis.parse("2025-05-11T00:00:00.000Z")!
    return (first..<(first + n)).map { i in
        HealthSample(uuid: uuid(i), type: type, startMs: base + Int64(i) * 600_000,
                     endMs: base + Int64(i) * 600_000 + (type == .heartRate ? 0 : 60_000), value: Double(i + 1),
                     unit: unit, sourceName: "Anna's Apple Watch", sourceBundleId: "com.apple.health.8B0C",
                     sourceVersion: "10.1", deviceName: "Apple Watch", deviceModel: "Watch6,2", details: details)
    }
}

/// A fixed uuid for index `i`.
func uuid(_ i: Int) -> UUID {
    UUID(uuidString: String(format: "00000000-0000-4000-8000-%012X", i))!
}

func fileBytes(_ path: String) -> [UInt8] {
    (FileManager.default.contents(atPath: path)).map(Array.init) ?? []
}

/// The bytes of `Sources/StepSyncSink/Resources/<name>` in this checkout: the file SwiftPM compiles into the sink
/// (`.embedInCode`), which it must serve byte for byte.
func sinkResourceBytes(_ name: String) -> [UInt8] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    return fileBytes(root.appendingPathComponent("Sources/StepSyncSink/Resources/\(name)").path)
}

/// The stored sample lines of the file, decoded (tombstones left out).
func storedSamples(_ path: String) throws -> [WireSample] {
    try String(decoding: fileBytes(path), as: UTF8.self).split(separator: "\n")
        .filter { !$0.hasPrefix(#"{"deleted""#) }
        .map { try WireDecoder.decodeSample(Data($0.utf8)) }
}

/// Counts calls (the sink's sync hook).
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}
