import AsyncHTTPClient
import Benchmark
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import StepSyncCore
import StepSyncPostgres
import StepSyncSink
import StepSyncTestSupport

/// Ingest into the PostgreSQL sink next to the JSONL sink: 90 bodies of 1,000 fresh step samples (≈ 204 KB each)
/// posted to `POST /steps` by 3 or 30 concurrent posters over loopback, durable acknowledgements (fdatasync for
/// JSONL; COMMIT with synchronous_commit=on and fsync=on for PostgreSQL). Each iteration starts a fresh sink on a
/// fresh database (or file), unmeasured. Samples/s = 90,000 / wall clock. Besides wall clock, two CPU figures per
/// iteration say where the time goes: this process (poster + HTTP server + parser + PostgresNIO) and the
/// PostgreSQL server (every backend, the WAL writer and checkpointer), both in ms.
let bodyCount = 90
let bodySize = 1_000
let batches: [[HealthSample]] = {
    let base = ISO8601Millis.parse("2015-01-01T00:00:00.000Z")!
    return (0..<bodyCount).map { b in
        (0..<bodySize).map { i -> HealthSample in
            let n = Int64(b * bodySize + i)
            return HealthSample(uuid: UUID(), type: .stepCount, startMs: base + n * 600_000,
                                endMs: base + n * 600_000 + 120_000, value: Double(n % 900 + 1), unit: "count",
                                sourceName: "", sourceBundleId: "com.apple.health.ABCDEF",
                                deviceName: n % 3 == 0 ? nil : "iPhone")
        }
    }
}()
let bodies: [ByteBuffer] = batches.map { ByteBuffer(bytes: WireEncoder.encodeRequest($0.map(WireSample.init))) }

let quiet: Logger = {
    var logger = Logger(label: "bench")
    logger.logLevel = .error
    return logger
}()

let selfCPU = BenchmarkMetric.custom("CPU of this process (ms)", useScalingFactor: false)
let serverCPU = BenchmarkMetric.custom("CPU of PostgreSQL (ms)", useScalingFactor: false)
let samplesPerSecond = BenchmarkMetric.custom("samples/s", polarity: .prefersLarger, useScalingFactor: false)

/// Runs `body` between the benchmark's start and stop, and records samples/s (`samples` over its wall clock).
func measured(_ box: BenchmarkBox, samples: Int = bodyCount * bodySize, _ body: () async throws -> Void) async rethrows {
    let clock = ContinuousClock()
    box.benchmark.startMeasurement()
    let start = clock.now
    try await body()
    let elapsed = clock.now - start
    box.benchmark.stopMeasurement()
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    box.benchmark.measurement(samplesPerSecond, Int(Double(samples) / max(seconds, 1e-9)))
}

/// The `Benchmark` of an iteration (it is not Sendable; the closures below only run inside its own iteration).
final class BenchmarkBox: @unchecked Sendable {
    let benchmark: Benchmark
    init(_ benchmark: Benchmark) { self.benchmark = benchmark }
}

@Sendable func send(port: Int, token: String?, _ body: ByteBuffer) async throws {
    var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/steps")
    request.method = .POST
    request.body = .bytes(body)
    request.headers.add(name: "Content-Type", value: "application/json")
    if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
    _ = try await response.body.collect(upTo: 1 << 20)
    precondition(response.status == .ok, "sink answered \(response.status)")
}

/// Posts every body with `posters` concurrent posters (each takes the next body when its last is answered).
func postAll(port: Int, token: String?, posters: Int) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for poster in 0..<posters {
            group.addTask {
                for b in stride(from: poster, to: bodyCount, by: posters) { try await send(port: port, token: token, bodies[b]) }
            }
        }
        try await group.waitForAll()
    }
}

/// CPU time of this process, in ms.
func processCPU() -> Int {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    return (Int(usage.ru_utime.tv_sec) + Int(usage.ru_stime.tv_sec)) * 1000
        + (Int(usage.ru_utime.tv_usec) + Int(usage.ru_stime.tv_usec)) / 1000
}

/// CPU time of the PostgreSQL server (the postmaster, its children, and the children it has reaped), in ms.
func postgresCPU(_ server: PostgresServer) -> Int {
    guard let pidfile = try? String(contentsOfFile: server.directory + "/data/postmaster.pid", encoding: .utf8),
          let postmaster = pidfile.split(separator: "\n").first.flatMap({ Int($0) })
    else { return 0 }
    let ticks = Int(sysconf(Int32(_SC_CLK_TCK)))
    func fields(_ pid: String) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")  // fields from 3 (state) on
    }
    var total = 0
    for pid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(pid) != nil {
        guard let f = fields(pid), f.count > 14 else { continue }
        let ppid = Int(f[1]) ?? 0
        let utime = Int(f[11]) ?? 0, stime = Int(f[12]) ?? 0, cutime = Int(f[13]) ?? 0, cstime = Int(f[14]) ?? 0
        if Int(pid) == postmaster {
            total += utime + stime + cutime + cstime
        } else if ppid == postmaster {
            total += utime + stime
        }
    }
    return total * 1000 / max(ticks, 1)
}

/// One iteration over PostgreSQL: a fresh database, migrated, one client; a sink in process; posts measured.
func ingestPostgres(method: PostgresSampleStorage.IngestMethod, posters: Int, box: BenchmarkBox) async throws {
    let server = try await PostgresHarness.sharedServer()
    let url = try await server.createDatabase()
    defer { Task { await server.dropDatabase(url: url) } }
    let configuration = PostgresSampleStorage.Configuration(url: try DatabaseURL(url), ingest: method, time: .system)
    let token = ClientToken.random()
    _ = try await PostgresSampleStorage.withStorage(configuration: configuration, logger: quiet) {
        try await $0.addClient(name: "bench", token: token)
    }
    let storage = PostgresSampleStorage(configuration: configuration, logger: quiet)
    let authenticator = ClientAuthenticator(storage: storage, time: .system)
    try await SinkServer.withRunningSink(configuration: SinkConfiguration(port: 0, dataPath: "/unused", time: .system),
                                         storage: storage, authenticator: authenticator, logger: quiet) { port in
        let (cpu, pg) = (processCPU(), postgresCPU(server))
        try await measured(box) { try await postAll(port: port, token: token.text, posters: posters) }
        box.benchmark.measurement(selfCPU, processCPU() - cpu)
        box.benchmark.measurement(serverCPU, postgresCPU(server) - pg)
    }
}

/// One iteration over the JSONL sink (fdatasync on), same bodies and posters.
func ingestJSONL(posters: Int, box: BenchmarkBox) async throws {
    let directory = NSTemporaryDirectory() + "stepsync-pg-bench-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let configuration = SinkConfiguration(port: 0, dataPath: directory + "/steps.jsonl", durable: true, time: .system)
    try await SinkServer.withRunningSink(configuration: configuration, logger: quiet) { port in
        let cpu = processCPU()
        try await measured(box) { try await postAll(port: port, token: nil, posters: posters) }
        box.benchmark.measurement(selfCPU, processCPU() - cpu)
    }
}

/// The storage alone (no HTTP, no parsing): `insert` of the 90 batches by `concurrency` tasks.
func insertDirect(method: PostgresSampleStorage.IngestMethod, concurrency: Int, box: BenchmarkBox) async throws {
    let server = try await PostgresHarness.sharedServer()
    let url = try await server.createDatabase()
    defer { Task { await server.dropDatabase(url: url) } }
    let configuration = PostgresSampleStorage.Configuration(url: try DatabaseURL(url), ingest: method, time: .system)
    try await PostgresSampleStorage.withStorage(configuration: configuration, logger: quiet) { storage in
        let client = try await storage.addClient(name: "bench", token: .random())
        let identity = ClientIdentity(String(client.id))
        let (cpu, pg) = (processCPU(), postgresCPU(server))
        try await measured(box) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<concurrency {
                    group.addTask {
                        for b in stride(from: worker, to: bodyCount, by: concurrency) {
                            let outcome = try await storage.insert(batches[b], for: identity)
                            precondition(outcome.inserted == bodySize)
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        box.benchmark.measurement(selfCPU, processCPU() - cpu)
        box.benchmark.measurement(serverCPU, postgresCPU(server) - pg)
    }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, samplesPerSecond, selfCPU, serverCPU], maxDuration: .seconds(20), maxIterations: 4)

    for posters in [3, 30] {
        for method in PostgresSampleStorage.IngestMethod.allCases {
            Benchmark("PostgreSQL sink ingest 90×1000, \(posters) posters, \(method)", configuration: configuration) {
                try await ingestPostgres(method: method, posters: posters, box: BenchmarkBox($0))
            }
        }
        Benchmark("JSONL sink ingest 90×1000, \(posters) posters, fdatasync", configuration: configuration) {
            try await ingestJSONL(posters: posters, box: BenchmarkBox($0))
        }
        for method in PostgresSampleStorage.IngestMethod.allCases {
            Benchmark("PostgreSQL storage.insert 90×1000, \(posters) tasks, \(method) (no HTTP)",
                      configuration: configuration) {
                try await insertDirect(method: method, concurrency: posters, box: BenchmarkBox($0))
            }
        }
    }
}
