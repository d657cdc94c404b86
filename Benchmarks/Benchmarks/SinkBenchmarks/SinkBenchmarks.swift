import AsyncHTTPClient
import Benchmark
import Foundation
import Issue14Support
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import StepSyncCore
import StepSyncSink

/// 200 bodies of 1,000 fresh samples (≈ 204 KB each) posted by 3 concurrent posters to an in-process sink on
/// loopback (issue 14's sink row); each iteration starts a fresh sink on an empty file (unmeasured).
/// Samples/s = 200,000 / wall clock.
///
/// The same load side by side with the original HealthStepsSync Flask server, out of process, is
/// `Benchmarks/SinkLoad/compare.sh` (`bodies.py` writes these bodies with seeded uuids, `post.py` posts them). Last
/// figure (2026-11-23, shared 2-core machine at load 19–33, release): the durable sink 102.6k samples/s against
/// Flask's 20.3k in one alternating run, best of 3 (5.1×; 2.9–3.3× before the sink copied stored lines from the
/// body), 0.56–0.68 CPU-s per 200k samples against Flask's 1.67–2.63 (`Planning/sink.md`).
let bodyCount = 200
let samplesPerSecond = BenchmarkMetric.custom("samples/s", polarity: .prefersLarger, useScalingFactor: false)
let bodySize = 1_000
let bodies: [ByteBuffer] = {
    let base = ISO8601Millis.parse("2015-01-01T00:00:00.000Z")!
    return (0..<bodyCount).map { b in
        let samples = (0..<bodySize).map { i -> WireSample in
            let n = Int64(b * bodySize + i)
            return WireSample(uuid: UUID(), startMs: base + n * 600_000, endMs: base + n * 600_000 + 120_000,
                              count: Double(n % 900 + 1), sourceBundleId: "com.apple.health.ABCDEF",
                              sourceDeviceName: n % 3 == 0 ? nil : "iPhone")
        }
        return ByteBuffer(bytes: WireEncoder.encodeRequest(samples))
    }
}()

/// A decade of step samples in a sink data file, written once (not measured): 624,752 lines like the realistic
/// profile's (iPhone and Watch, 1–10 minutes each).
let decadeFile: String = {
    let directory = NSTemporaryDirectory() + "stepsync-sink-decade-\(getpid())"
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/steps.jsonl"
    var generator = SplitMix64(seed: 42)
    var out: [UInt8] = []
    out.reserveCapacity(150 << 20)
    var t = ISO8601Millis.parse("2015-01-01T00:00:00.000Z")!
    for k in 0..<624_752 {
        t += Int64(60_000 + generator.next() % 840_000)
        let uuid = withUnsafeBytes(of: (generator.next(), generator.next())) { UUID(uuid: $0.load(as: uuid_t.self)) }
        WireEncoder.appendLine(WireSample(uuid: uuid, startMs: t, endMs: t + Int64(60_000 + generator.next() % 540_000),
                                          count: Double(1 + generator.next() % 1500),
                                          sourceBundleId: k % 2 == 0 ? "com.apple.health.1A2B3C4D" : "com.apple.health.8B0C1D2E",
                                          sourceDeviceName: k % 2 == 0 ? "iPhone" : "Apple Watch"), to: &out)
    }
    _ = FileManager.default.createFile(atPath: path, contents: Data(out))
    return path
}()

@Sendable func send(port: Int, _ body: ByteBuffer) async throws {
    var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/steps")
    request.method = .POST
    request.body = .bytes(body)
    request.headers.add(name: "Content-Type", value: "application/json")
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
    _ = try await response.body.collect(upTo: 1 << 20)
    precondition(response.status == .ok, "sink answered \(response.status)")
}

/// Starts a sink (not measured), posts every body with 3 posters (measured), shuts it down (not measured).
/// `Benchmark` is not Sendable, so this runs the server itself rather than through `SinkServer.withRunningSink`.
/// Returns the measured seconds.
@discardableResult
func ingest(durable: Bool, benchmark: Benchmark) async throws -> Double {
    let directory = NSTemporaryDirectory() + "stepsync-sink-bench-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var logger = Logger(label: "bench")
    logger.logLevel = .error
    let configuration = SinkConfiguration(port: 0, dataPath: directory + "/steps.jsonl", durable: durable, time: .system)
    let (ports, portContinuation) = AsyncStream<Int>.makeStream()
    let app = try await buildSinkApplication(configuration: configuration, logger: logger) { port in
        portContinuation.yield(port)
        portContinuation.finish()
    }
    let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { fatalError("the sink did not start") }
        let start = ContinuousClock.now
        benchmark.startMeasurement()
        try await withThrowingTaskGroup(of: Void.self) { posters in
            for poster in 0..<3 {
                posters.addTask {
                    for b in stride(from: poster, to: bodyCount, by: 3) { try await send(port: port, bodies[b]) }
                }
            }
            try await posters.waitForAll()
        }
        benchmark.stopMeasurement()
        let seconds = Issue14.seconds(ContinuousClock.now - start)
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
        return seconds
    }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal, .throughput], maxDuration: .seconds(20), maxIterations: 10)

    // Issue 14's sink row: samples/s = 200,000 / wall clock (the posters run in this process, on the same 2 cores).
    Benchmark("Sink ingest 200×1000 samples, 3 posters, fdatasync", configuration: .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, samplesPerSecond], timeUnits: .milliseconds,
        maxDuration: .seconds(20), maxIterations: 10)
    ) { benchmark in
        let cpuBefore = Issue14.cpuSeconds()
        let seconds = try await ingest(durable: true, benchmark: benchmark)
        let cpu = Issue14.cpuSeconds() - cpuBefore
        let rate = Double(bodyCount * bodySize) / seconds
        benchmark.measurement(samplesPerSecond, Int(rate))
        Issue14.record("sink", input: "200 POST /steps bodies × 1,000 fresh samples, 3 posters (AsyncHTTPClient, in process), fdatasync before every 2xx",
                       ["seconds": seconds, "samplesPerSecond": rate, "cpuSeconds": cpu])
    }

    Benchmark("Sink ingest 200×1000 samples, 3 posters, no fsync", configuration: configuration) { benchmark in
        try await ingest(durable: false, benchmark: benchmark)
    }

    Benchmark("WireEncoder.encodeRequest 1000 samples", configuration: .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput], maxDuration: .seconds(5))) { benchmark in
        let samples = (0..<1000).map { i in
            HealthSample(uuid: UUID(), type: .stepCount, startMs: Int64(i) * 600_000, endMs: Int64(i) * 600_000 + 60_000,
                         value: Double(i + 1), unit: "count", sourceName: "iPhone", sourceBundleId: "com.apple.health",
                         deviceName: "iPhone")
        }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(WireEncoder.encodeRequest(samples)) }
    }

    Benchmark("WireDecoder.decodeSamplesRequest 1000 heart-rate samples", configuration: .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput], maxDuration: .seconds(5))) { benchmark in
        var body = Array(#"{"samples":["#.utf8)
        for i in 0..<1000 {
            if i > 0 { body.append(UInt8(ascii: ",")) }
            WireEncoder.appendSampleObject(HealthSample(
                uuid: UUID(), type: .heartRate, startMs: Int64(i) * 300_000, endMs: Int64(i) * 300_000, value: Double(60 + i % 40),
                unit: "count/min", sourceName: "Anna's Apple Watch", sourceBundleId: "com.apple.health.8B0C1D2E",
                sourceVersion: "10.1", deviceName: "Apple Watch", deviceModel: "Watch6,2"), to: &body)
        }
        body += Array("]}".utf8)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try WireDecoder.decodeSamplesRequest(body)) }
    }

    Benchmark("Sink open: rebuild the index of a decade (624,752 step samples)", configuration: .init(
        metrics: [.wallClock, .mallocCountTotal, .peakMemoryResidentDelta], maxDuration: .seconds(30), maxIterations: 5))
    { benchmark in
        let path = decadeFile
        benchmark.startMeasurement()
        let storage = try JSONLStorage(stepsPath: path, time: .system, logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() })
        benchmark.stopMeasurement()
        blackHole(storage)
    } teardown: {
        try? FileManager.default.removeItem(atPath: (decadeFile as NSString).deletingLastPathComponent)
    }

    Benchmark("WireDecoder.decodeRequest 1000 samples", configuration: .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput], maxDuration: .seconds(5))) { benchmark in
        let body = Array(buffer: bodies[0])
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try WireDecoder.decodeRequest(body)) }
    }

    Benchmark("WireDecoder.decodeStepsBody 1000 samples (the sink's path: stored lines kept)", configuration: .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput], maxDuration: .seconds(5))) { benchmark in
        let body = Array(buffer: bodies[0])
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try WireDecoder.decodeStepsBody(body)) }
    }
}
