import Benchmark
import Foundation
import StepSyncCore
import StepSyncStore

/// Ten years of a generator profile in a store under the temp dir, built once (and reused by later runs).
func decadeStore(_ profile: GeneratorProfile) -> StepStore {
    let path = NSTemporaryDirectory() + "stepsync-bench-layering-\(profile.rawValue).sqlite"
    let generator = SampleGenerator(profile: profile, seed: 42, years: 10, end: CivilDate(year: 2025, month: 6, day: 30))
    do {
        var store = try StepStore(path: path)
        if try store.total(of: .stepCount, in: LayeringEngine.domain).count == 0 || store.changeSequence() == 0 {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            store = try StepStore(path: path)
            try store.insertSamples { inserter in
                for day in generator { for sample in day { try inserter.insert(sample) } }
            }
        }
        // The figures the report quotes, once.
        let clock = ContinuousClock()
        let start = clock.now
        let result = try LayeringEngine().layer(store.statisticsSource(for: .stepCount), type: .stepCount)
        let elapsed = clock.now - start
        let lowerBound = Int((result.steps / 10_000).rounded(.up))
        print("""
            layering \(profile.rawValue) decade: \(result.samples) samples, \(Int(result.steps)) steps → \
            \(result.intervals.count) intervals (lower bound \(lowerBound), ratio \
            \(String(format: "%.4f", Double(result.intervals.count) / Double(max(1, lowerBound))))), \
            oversize \(result.oversize), largest \(Int(result.largest?.steps ?? 0)) steps, \
            \(result.queries) statistics queries, first run \(elapsed)
            """)
        return store
    } catch {
        fatalError("cannot build the \(profile.rawValue) benchmark store at \(path): \(error)")
    }
}

let realisticStore = decadeStore(.realistic)
let seedStore = decadeStore(.seed)

let benchmarks: @Sendable () -> Void = {
    for (name, store) in [("realistic", { realisticStore }), ("seed", { seedStore })] as [(String, @Sendable () -> StepStore)] {
        Benchmark("layer a \(name) decade (store-backed)", configuration: .init(
            metrics: [.wallClock, .mallocCountTotal, .throughput], maxDuration: .seconds(10), maxIterations: 30,
            setup: { _ = store() }
        )) { benchmark in
            let source = store().statisticsSource(for: .stepCount)
            for _ in benchmark.scaledIterations {
                blackHole(try LayeringEngine().layer(source, type: .stepCount))
            }
        }
    }
}
