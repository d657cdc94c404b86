// Layering benchmarks (issues 12 and 14): `stepsync layer` on the realistic decade of `stepsync demo` (steps only),
// on the seed-profile decade, and on an export-like decade where steps are a quarter of the samples (heart rate,
// distance, energy, sleep stages, workouts beside them) — steps alone next to every type.
//
// Run: cd Benchmarks && swift package --disable-sandbox benchmark --target LayeringBenchmarks
import Benchmark
import Foundation
import Issue14Support
import StepSyncCore
import StepSyncStore

/// The end of every history: the day `stepsync demo --types steps` measured in issue 14 (624,752 step samples).
let historyEnd = CivilDate(year: 2026, month: 11, day: 23)

/// A store under the temp dir, built once and reused by later runs (the name says what it holds and the schema).
func cachedStore(_ name: String, fill: (StepStore) throws -> Void) -> StepStore {
    let path = NSTemporaryDirectory() + "stepsync-bench-layering-v6-\(name).sqlite"
    do {
        var store = try StepStore(path: path)
        if try store.changeSequence() == 0 {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            store = try StepStore(path: path)
            try fill(store)
        }
        try store.deleteIntervals()
        return store
    } catch {
        fatalError("cannot build the benchmark store \(path): \(error)")
    }
}

func decade(_ profile: GeneratorProfile) -> StepStore {
    cachedStore("\(profile.rawValue)-\(historyEnd)") { store in
        _ = try store.insertSamples { inserter in
            for day in SampleGenerator(profile: profile, seed: 42, years: 10, end: historyEnd) {
                for sample in day { try inserter.insert(sample) }
            }
        }
    }
}

/// The realistic decade's steps with what a Watch and an iPhone record beside them: a distance and an energy sample
/// for each step sample, a heart rate every 4–6 minutes from 07:00 to 23:00 UTC, 8–14 sleep stages a night and a
/// 20–80-minute workout every third day. About 2.9 M samples.
func exportLike() -> StepStore {
    cachedStore("export-\(historyEnd)") { store in
        var rng = SplitMix64(seed: 1_234)
        func uuid() -> UUID {
            let a = rng.next(), b = rng.next()
            return withUnsafeBytes(of: (a, b)) { UUID(uuid: $0.load(as: uuid_t.self)) }
        }
        func sample(_ type: SampleType, _ start: Int64, _ end: Int64, _ value: Double, _ unit: String) -> HealthSample {
            HealthSample(uuid: uuid(), type: type, startMs: start, endMs: end, utcOffsetSeconds: 3_600, value: value,
                         unit: unit, sourceName: "Apple Watch", sourceBundleId: "com.apple.health.watch",
                         deviceName: "Apple Watch", deviceModel: "Watch6,2")
        }
        _ = try store.insertSamples { inserter in
            var dayIndex = 0
            for day in SampleGenerator(profile: .realistic, seed: 42, years: 10, end: historyEnd) {
                guard let first = day.first else { continue }
                let midnight = LayeringEngine.floorMultiple(first.startMs, of: Milliseconds.day)
                for step in day {
                    try inserter.insert(step)
                    try inserter.insert(sample(.distanceWalkingRunning, step.startMs, step.endMs,
                                               (step.value * 0.75).rounded() / 1_000, "km"))
                    try inserter.insert(sample(.activeEnergyBurned, step.startMs, step.endMs,
                                               (step.value * 0.4).rounded() / 10, "kcal"))
                }
                var t = midnight + 7 * Milliseconds.hour
                while t < midnight + 23 * Milliseconds.hour {
                    try inserter.insert(sample(.heartRate, t, t, Double(55 + rng.next() % 90), "count/min"))
                    t += 240_000 + Int64(rng.next() % 120_000)
                }
                var night = midnight - Milliseconds.hour
                for _ in 0..<(8 + rng.next() % 7) {
                    let length = Int64(10 + rng.next() % 50) * Milliseconds.minute
                    try inserter.insert(sample(.sleepAnalysis, night, night + length, Double(2 + rng.next() % 4), ""))
                    night += length
                }
                if dayIndex % 3 == 0 {
                    let start = midnight + 18 * Milliseconds.hour, minutes = Int64(20 + rng.next() % 61)
                    try inserter.insert(sample(.workout, start, start + minutes * Milliseconds.minute,
                                               Double(minutes * 60), "s"))
                }
                dayIndex += 1
            }
        }
    }
}

let realisticStore = decade(.realistic)
let seedStore = decade(.seed)
let exportStore = exportLike()

/// Prints what the run produced, once per store and selection (intervals, lower bound, queries).
func describe(_ name: String, _ store: StepStore, types: Set<SampleType>?) {
    do {
        let plan = try store.planLayering(types: types)
        let steps = plan[.stepCount]?.sampleIntervals ?? []
        let total = steps.reduce(0.0) { $0 + $1.steps }
        print("""
            layering \(name): \(plan.types.reduce(0) { $0 + $1.sampleIntervals.reduce(0) { $0 + $1.samples } }) samples \
            of \(plan.types.count) types → \(plan.intervals.count) intervals (steps: \(steps.count), lower bound \
            \(Int((total / 10_000).rounded(.up))), oversize \(steps.filter(\.oversize).count)), \(plan.queries) queries
            """)
    } catch {
        fatalError("\(error)")
    }
}

let benchmarks: @Sendable () -> Void = {
    let cases: [(String, @Sendable () -> StepStore, Set<SampleType>?)] = [
        ("the realistic decade (steps, 624,752 samples)", { realisticStore }, nil),
        ("the seed decade (steps)", { seedStore }, nil),
        ("an export-like decade: steps alone", { exportStore }, [.stepCount]),
        ("an export-like decade: every type", { exportStore }, nil),
    ]
    for (name, store, types) in cases {
        Benchmark("layer \(name)", configuration: .init(
            metrics: [.wallClock, .mallocCountTotal], warmupIterations: 1, maxDuration: .seconds(20), maxIterations: 15,
            setup: { describe(name, store(), types: types) }
        )) { benchmark in
            for _ in benchmark.scaledIterations {
                let start = ContinuousClock.now
                benchmark.startMeasurement()
                let report = try store().layer(types: types)
                benchmark.stopMeasurement()
                if name.hasPrefix("the realistic decade") {
                    Issue14.record("layering", input: "\(name): \(report.intervals.count) intervals, \(report.queries) queries",
                                   ["seconds": Issue14.seconds(ContinuousClock.now - start)])
                }
                blackHole(report)
                try store().deleteIntervals()
            }
        }
    }
    // The engine alone over the store's statistics (each query its own read), steps of the realistic decade: the
    // answer size the engine aims for per query decides how much of the samples it reads (layering.md).
    for budget in [16, 16_384] {
        Benchmark("engine over the realistic decade's steps, \(budget) buckets per query", configuration: .init(
            metrics: [.wallClock, .mallocCountTotal], warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 10,
            setup: {
                let result = try LayeringEngine(maxBucketsPerQuery: budget)
                    .layer(realisticStore.statisticsSource(for: .stepCount), type: .stepCount)
                print("engine, \(budget) buckets per query: \(result.intervals.count) intervals, \(result.queries) queries")
            }
        )) { benchmark in
            let engine = LayeringEngine(maxBucketsPerQuery: budget)
            for _ in benchmark.scaledIterations {
                blackHole(try engine.layer(realisticStore.statisticsSource(for: .stepCount), type: .stepCount))
            }
        }
    }
    Benchmark("plan the realistic decade (read only, no commit)", configuration: .init(
        metrics: [.wallClock, .mallocCountTotal], warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 20
    )) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try realisticStore.planLayering()) }
    }
}
