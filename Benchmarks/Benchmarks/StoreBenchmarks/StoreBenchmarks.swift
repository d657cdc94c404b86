import Benchmark
import Foundation
import StepSyncCore
import StepSyncStore

// Store and generator benchmarks: generation of ten realistic years, the insert rate into a fresh store (one
// transaction, as `stepsync generate` writes), and a full-history statistics query (day buckets over ten years).
// Wall clock is for people; `samples/s` is computed from the samples each iteration handles.

/// The end of every generated history, fixed so runs compare.
let historyEnd = CivilDate(year: 2025, month: 6, day: 30)

/// Samples per second as a custom metric (larger is better).
let samplesPerSecond = BenchmarkMetric.custom("samples/s", polarity: .prefersLarger, useScalingFactor: false)

/// A fresh temporary directory for one store.
func temporaryDirectory() -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stepsync-bench-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

/// Ten realistic years in a store, made once, for the query benchmarks.
let statisticsStoreDirectory = temporaryDirectory()
let statisticsStore: StepStore = {
    let store = try! StepStore(path: statisticsStoreDirectory.appendingPathComponent("health.sqlite").path)
    try! store.insert(SampleGenerator(profile: .realistic, seed: 42, years: 10, end: historyEnd).joined())
    return store
}()

let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "Generate ten realistic years",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal, samplesPerSecond],
                             warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 10)
    ) { benchmark in
        let start = ContinuousClock.now
        var samples = 0
        for day in SampleGenerator(profile: .realistic, seed: 42, years: 10, end: historyEnd) {
            samples += day.count
            blackHole(day)
        }
        benchmark.measurement(samplesPerSecond, Int(Double(samples) / seconds(ContinuousClock.now - start)))
    }

    Benchmark(
        "Generate ten seed-profile years",
        configuration: .init(metrics: [.wallClock, samplesPerSecond], warmupIterations: 1, maxDuration: .seconds(5), maxIterations: 20)
    ) { benchmark in
        let start = ContinuousClock.now
        var samples = 0
        for day in SampleGenerator(profile: .seed, seed: 42, years: 10, end: historyEnd) { samples += day.count }
        benchmark.measurement(samplesPerSecond, Int(Double(samples) / seconds(ContinuousClock.now - start)))
    }

    Benchmark(
        "Generate and insert ten realistic years into a fresh store (one transaction)",
        configuration: .init(metrics: [.wallClock, samplesPerSecond], warmupIterations: 0, maxDuration: .seconds(30), maxIterations: 3)
    ) { benchmark in
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try StepStore(path: dir.appendingPathComponent("health.sqlite").path)
        benchmark.startMeasurement()
        let start = ContinuousClock.now
        let summary = try store.insert(SampleGenerator(profile: .realistic, seed: 42, years: 10, end: historyEnd).joined())
        benchmark.measurement(samplesPerSecond, Int(Double(summary.inserted) / seconds(ContinuousClock.now - start)))
        benchmark.stopMeasurement()
        blackHole(summary)
    }

    Benchmark(
        "Insert one pre-generated realistic year into a fresh store (one transaction)",
        configuration: .init(metrics: [.wallClock, samplesPerSecond], warmupIterations: 0, maxDuration: .seconds(20), maxIterations: 5)
    ) { benchmark in
        let samples = Array(SampleGenerator(profile: .realistic, seed: 42, years: 1, end: historyEnd).joined())
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try StepStore(path: dir.appendingPathComponent("health.sqlite").path)
        benchmark.startMeasurement()
        let start = ContinuousClock.now
        let summary = try store.insert(samples)
        benchmark.measurement(samplesPerSecond, Int(Double(summary.inserted) / seconds(ContinuousClock.now - start)))
        benchmark.stopMeasurement()
        blackHole(summary)
    }

    Benchmark(
        "Statistics: day buckets over ten realistic years",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal], warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 20),
        closure: { _ in
            let range = TimeRange(start: 1_400_000_000_000, end: 1_800_000_000_000)
            let buckets = try statisticsStore.statistics(of: .stepCount, in: range, bucketMs: 86_400_000)
            blackHole(buckets)
        },
        setup: { _ = statisticsStore.path },
        teardown: { try? FileManager.default.removeItem(at: statisticsStoreDirectory) }
    )
}
