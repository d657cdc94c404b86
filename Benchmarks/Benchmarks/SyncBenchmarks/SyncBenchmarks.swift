// Sync benchmarks (issue 14's first two rows): ten years of each generator profile's step samples (seed 42, ending
// 2026-11-23, the day issue 14 measured `stepsync demo --types steps`), layered into ≤ 10,000-step intervals, synced
// end to end (store → encode → HTTP POST → the bundled sink with durable acknowledgements, fdatasync before every
// 2xx → markSynced) with 3 concurrent requests, in process on loopback: small intervals packed into requests of
// ≤ 5,000 samples (the default), and, for comparison, one interval per request and gzip. Each iteration builds a
// fresh store and a fresh sink (not measured); the measurement is `SyncEngine.run()` alone.
//
// Run: cd Benchmarks && swift package --disable-sandbox benchmark --target SyncBenchmarks
import Benchmark
import Foundation
import Issue14Support
import Logging
import StepSyncCore
import StepSyncEngine
import StepSyncSink
import StepSyncStore

/// The last day of every generated decade.
let historyEnd = CivilDate(year: 2026, month: 11, day: 23)

/// What each profile's decade holds, checked on every run (the benchmark names quote them).
let expectedSamples: [GeneratorProfile: Int] = [.realistic: 624_752, .seed: 40_429]

let samplesPerSecond = BenchmarkMetric.custom("samples/s", polarity: .prefersLarger, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    let packed = SyncConfiguration.defaultMaxSamplesPerRequest
    let runs: [(GeneratorProfile, Bool, Int)] = GeneratorProfile.allCases.flatMap { [($0, false, packed), ($0, false, 0)] }
        + [(.realistic, true, packed)]
    for (profile, gzip, maxSamples) in runs {
        let input = "the \(profile.rawValue) decade (steps, \(profile == .realistic ? "624,752" : "40,429") samples)"
        Benchmark(
            "sync \(input), concurrency 3, durable\(gzip ? ", gzip" : "")"
                + (maxSamples == 0 ? ", one interval per request" : ""),
            configuration: .init(
                metrics: [.wallClock, .cpuTotal, .mallocCountTotal, samplesPerSecond],
                timeUnits: .milliseconds,
                warmupIterations: 0,
                maxDuration: .seconds(60),
                maxIterations: profile == .seed ? 5 : 3)
        ) { benchmark in
            let fixture = try SyncBenchmarkFixture(profile: profile)
            defer { fixture.remove() }
            let cpuBefore = Issue14.cpuSeconds()
            let report = try await fixture.syncOnce(benchmark: benchmark, gzip: gzip, maxSamplesPerRequest: maxSamples)
            let cpu = Issue14.cpuSeconds() - cpuBefore
            precondition(fixture.sampleCount == expectedSamples[profile],
                         "the \(profile.rawValue) decade holds \(fixture.sampleCount) samples, not \(expectedSamples[profile]!)")
            precondition(report.isComplete && report.inserted == fixture.sampleCount,
                         "the sink did not store every sample: \(report)")
            let rate = Double(report.samples) / report.seconds
            benchmark.measurement(samplesPerSecond, Int(rate))
            FileHandle.standardError.write(Data(
                "sync \(profile.rawValue)\(gzip ? " gzip" : "")\(maxSamples == 0 ? " one interval per request" : ""): \(report.samples) samples, \(fixture.intervals) intervals in \(report.seconds) s = \(Int(rate)) samples/s, \(cpu) CPU-s\n".utf8))
            if !gzip && maxSamples == packed {
                Issue14.record("sync-\(profile.rawValue)", input: "\(input), \(fixture.intervals) intervals",
                               ["seconds": report.seconds, "samplesPerSecond": rate, "cpuSeconds": cpu])
            }
            blackHole(report)
        }
    }
}

/// A store of ten generated years layered into ≤ 10,000-step intervals, in a temp dir (setup, not measured).
struct SyncBenchmarkFixture {
    let path: String
    let store: StepStore
    let sampleCount: Int
    let intervals: Int

    init(profile: GeneratorProfile) throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("stepsync-syncbench-\(UUID().uuidString)")
        store = try StepStore(dataDirectory: DataDirectory(path: path))
        let generator = SampleGenerator(profile: profile, seed: 42, years: 10, end: historyEnd)
        let (count, _) = try store.insertSamples { inserter in
            var count = 0
            for day in generator {
                for sample in day { try inserter.insert(sample); count += 1 }
            }
            return count
        }
        sampleCount = count
        intervals = try store.layer(type: .stepCount, engine: LayeringEngine()).intervals.count
    }

    /// Starts a fresh sink, syncs the whole ledger into it (measured), stops the sink.
    func syncOnce(benchmark: Benchmark, gzip: Bool, maxSamplesPerRequest: Int) async throws -> SyncReport {
        let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
        let sinkPath = (path as NSString).appendingPathComponent("sink/steps.jsonl")
        let configuration = SinkConfiguration(host: "127.0.0.1", port: 0, dataPath: sinkPath)
        precondition(configuration.durable, "the sink must acknowledge durably")
        let box = BenchmarkBox(benchmark: benchmark)
        return try await SinkServer.withRunningSink(configuration: configuration, logger: logger) { port in
            try await HTTPUploader.withUploader(server: "http://127.0.0.1:\(port)", gzip: gzip, concurrency: 3, logger: logger) { uploader in
                let engine = SyncEngine(store: store, uploader: uploader,
                                        configuration: SyncConfiguration(concurrency: 3,
                                                                         maxSamplesPerRequest: maxSamplesPerRequest),
                                        logger: logger)
                box.benchmark.startMeasurement()
                let report = try await engine.run()
                box.benchmark.stopMeasurement()
                return report
            }
        }
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// `Benchmark` is not `Sendable`; the sink's lifetime closure is. The benchmark runs one iteration at a time on one
/// task, so handing it across is safe here (benchmark code only).
struct BenchmarkBox: @unchecked Sendable {
    let benchmark: Benchmark
}
