import Benchmark
import Foundation
import StepSyncCore
import StepSyncStore

// Daily step totals without double counting: the pure sweep over ten realistic years held in memory, and the
// store's answer (the look-back query, one indexed range query streamed into the sweep) for ten years and for the
// 30 days `stepsync stats --daily` shows by default. Wall clock is for people.

/// The end of the generated history, fixed so runs compare.
let historyEnd = CivilDate(year: 2025, month: 6, day: 30)
let historyStart = historyEnd.advanced(by: -3_652)

/// Samples per second as a custom metric (larger is better).
let samplesPerSecond = BenchmarkMetric.custom("samples/s", polarity: .prefersLarger, useScalingFactor: false)

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

/// Ten realistic years (iPhone + Watch, ≈ 625k samples), in start order, as the sweep takes them.
let tenYears: [DailyStepTotals.Sample] = SampleGenerator(profile: .realistic, seed: 42, years: 10, end: historyEnd)
    .joined()
    .sorted { $0.startMs < $1.startMs }
    .map { DailyStepTotals.Sample(startMs: $0.startMs, endMs: $0.endMs, value: $0.value, deviceName: $0.deviceName) }

let tenYearsRequest = try! DailyStepsRequest(from: historyStart, to: historyEnd, timeZoneName: "Europe/Berlin")
let lastMonthRequest = try! DailyStepsRequest(from: historyEnd.advanced(by: -29), to: historyEnd, timeZoneName: "Europe/Berlin")

/// The same ten years in a store, made once, for the store benchmarks.
let storeDirectory: URL = {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stepsync-bench-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}()
let tenYearStore: StepStore = {
    let store = try! StepStore(path: storeDirectory.appendingPathComponent("health.sqlite").path)
    try! store.insert(SampleGenerator(profile: .realistic, seed: 42, years: 10, end: historyEnd).joined())
    return store
}()

let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "Daily totals: the pure sweep over ten realistic years (3,653 Berlin days)",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident, samplesPerSecond],
                             warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 20),
        closure: { benchmark in
            // Fed one sample at a time through `add`, as the store and the sink stream them.
            let start = ContinuousClock.now
            var totals = DailyStepTotals(request: tenYearsRequest)
            for sample in tenYears { try totals.add(sample) }
            let result = try totals.finish()
            benchmark.measurement(samplesPerSecond, Int(Double(tenYears.count) / seconds(ContinuousClock.now - start)))
            blackHole(result)
        },
        setup: { _ = tenYears.count })

    Benchmark(
        "Daily totals: day boundaries of ten years in Europe/Berlin",
        configuration: .init(metrics: [.wallClock], warmupIterations: 1, maxDuration: .seconds(5), maxIterations: 50)
    ) { _ in
        blackHole(tenYearsRequest.days)
    }

    Benchmark(
        "Daily totals: store, ten realistic years",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident, samplesPerSecond],
                             warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 20),
        closure: { benchmark in
            let start = ContinuousClock.now
            let result = try tenYearStore.dailyStepTotals(tenYearsRequest)
            benchmark.measurement(samplesPerSecond, Int(Double(tenYears.count) / seconds(ContinuousClock.now - start)))
            blackHole(result)
        },
        setup: { _ = tenYearStore.path })

    Benchmark(
        "Daily totals: store, the last 30 days of ten years",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal], warmupIterations: 1, maxDuration: .seconds(5),
                             maxIterations: 200),
        closure: { _ in blackHole(try tenYearStore.dailyStepTotals(lastMonthRequest)) },
        setup: { _ = tenYearStore.path })

    Benchmark(
        "Daily totals: store, the look-back bound (longest step sample over an hour)",
        configuration: .init(metrics: [.wallClock], warmupIterations: 1, maxDuration: .seconds(5), maxIterations: 200),
        closure: { _ in blackHole(try tenYearStore.durationBound(of: .stepCount)) },
        setup: { _ = tenYearStore.path },
        teardown: { try? FileManager.default.removeItem(at: storeDirectory) })
}
