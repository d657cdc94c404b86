// Incremental benchmarks (issue 7): `layer` + `sync` after one new day on a ten-year realistic history that is
// already synced, next to the full backfill (timed once in setup and printed).
//
// Run: cd Benchmarks && swift package --disable-sandbox benchmark --target IncrementalBenchmarks
import Benchmark
import Foundation
import Logging
import StepSyncCore
import StepSyncEngine
import StepSyncSink
import StepSyncStore

/// The synced ten-year history every iteration adds a day to (set up once; iterations run one after another).
nonisolated(unsafe) var history: IncrementalHistory?

let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "layer + sync after one new day (10 realistic years synced)",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal], warmupIterations: 0,
                             maxDuration: .seconds(60), maxIterations: 20),
        closure: { benchmark in
            guard let history else { fatalError("setup did not run") }
            try history.appendDay()
            let report = try await history.layerAndSync(benchmark: benchmark)
            precondition(report.isComplete, "the day was not synced: \(report)")
            blackHole(report)
        },
        setup: { history = try await IncrementalHistory.make() },
        teardown: { history?.remove(); history = nil })
}

/// A data directory with ten synced years and the sink's file beside it.
final class IncrementalHistory {
    static let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
    let directory: DataDirectory
    let store: StepStore
    var nextDay = CivilDate(year: 2025, month: 7, day: 1)

    private init(directory: DataDirectory, store: StepStore) {
        self.directory = directory
        self.store = store
    }

    static func make() async throws -> IncrementalHistory {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("stepsync-incbench-\(UUID().uuidString)")
        let directory = DataDirectory(path: path)
        let history = IncrementalHistory(directory: directory, store: try StepStore(dataDirectory: directory))
        let started = ContinuousClock.now
        let generator = SampleGenerator(profile: .realistic, seed: 42, years: 10, end: CivilDate(year: 2025, month: 6, day: 30))
        _ = try history.store.insertSamples { inserter in
            for day in generator { for sample in day { try inserter.insert(sample) } }
        }
        let generated = ContinuousClock.now
        let layered = try history.store.layer(type: .stepCount, engine: LayeringEngine())
        let layeredAt = ContinuousClock.now
        let report = try await history.sync()
        let done = ContinuousClock.now
        FileHandle.standardError.write(Data("""
            backfill: generate \(generated - started), layer \(layeredAt - generated) (\(layered.intervals.count) intervals), \
            sync \(done - layeredAt) (\(report.samples) samples, \(Int(report.samplesPerSecond)) samples/s)\n
            """.utf8))
        return history
    }

    /// Adds the next day of the same history (not measured).
    func appendDay() throws {
        let day = SampleGenerator(profile: .realistic, seed: 42, days: nextDay...nextDay)
        _ = try store.insertSamples { inserter in
            for samples in day { for sample in samples { try inserter.insert(sample) } }
        }
        nextDay = nextDay.advanced(by: 1)
    }

    /// Layers what changed and syncs it into the bundled sink (measured: layer + sync, not the sink's start).
    func layerAndSync(benchmark: Benchmark) async throws -> SyncReport {
        let configuration = SinkConfiguration(host: "127.0.0.1", port: 0, dataPath: directory.sinkDataPath, time: .system)
        let store = store
        let box = BenchmarkBox(benchmark: benchmark)
        return try await SinkServer.withRunningSink(configuration: configuration, logger: Self.logger) { port in
            box.benchmark.startMeasurement()
            _ = try store.layer(type: .stepCount, engine: LayeringEngine())
            let report = try await Self.sync(store: store, port: port)
            box.benchmark.stopMeasurement()
            return report
        }
    }

    func sync() async throws -> SyncReport {
        let configuration = SinkConfiguration(host: "127.0.0.1", port: 0, dataPath: directory.sinkDataPath, time: .system)
        let store = store
        return try await SinkServer.withRunningSink(configuration: configuration, logger: Self.logger) { port in
            try await Self.sync(store: store, port: port)
        }
    }

    static func sync(store: StepStore, port: Int) async throws -> SyncReport {
        try await HTTPUploader.withUploader(server: "http://127.0.0.1:\(port)", concurrency: 3, logger: logger) { uploader in
            try await SyncEngine(store: store, uploader: uploader, configuration: SyncConfiguration(concurrency: 3),
                                 logger: logger, time: .system).run()
        }
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory.path)
    }
}

/// `Benchmark` is not `Sendable`; the sink's lifetime closure is. The benchmark runs one iteration at a time on one
/// task, so handing it across is safe here (benchmark code only).
struct BenchmarkBox: @unchecked Sendable {
    let benchmark: Benchmark
}
