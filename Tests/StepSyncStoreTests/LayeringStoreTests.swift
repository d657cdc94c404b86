import Foundation
import StepSyncCore
import StepSyncStore
import Testing

@Suite("Layering a real store")
struct LayeringStoreTests {
    /// Checks contiguity, limits and conservation of `intervals` against the store's own totals.
    func expectValid(_ intervals: [SyncInterval], store: StepStore, maxSteps: Double, maxSamples: Int) throws {
        for (a, b) in zip(intervals, intervals.dropFirst()) { #expect(a.range.end == b.range.start) }
        for interval in intervals {
            let held = try store.total(of: .stepCount, in: interval.range)
            #expect(held.sum == interval.steps)
            #expect(held.count == interval.samples)
            #expect(interval.oversize == (held.sum > maxSteps || held.count > maxSamples))
        }
        let all = try store.total(of: .stepCount, in: LayeringEngine.domain)
        #expect(intervals.reduce(0) { $0 + $1.samples } == all.count)
        #expect(intervals.reduce(0.0) { $0 + $1.steps } == all.sum)
    }

    @Test("a store of random samples layers within the limits, conserving its total, then appends nothing")
    func randomStore() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        try store.insert(StoreTestData.samples(count: 3_000, seed: 11))
        let engine = LayeringEngine(maxSteps: 5_000, maxSamples: 40)
        let result = try engine.layer(store.statisticsSource(for: .stepCount), type: .stepCount)
        try expectValid(result.intervals, store: store, maxSteps: 5_000, maxSamples: 40)
        let stored = try store.appendIntervals(result.intervals)
        #expect(try store.intervals(of: .stepCount).map(\.id) == stored.map(\.id))
        let again = try engine.layer(store.statisticsSource(for: .stepCount), type: .stepCount,
                                     from: try store.lastInterval(of: .stepCount)?.range.end)
        #expect(again.intervals.isEmpty)
        #expect(again.queries == 1)
    }

    @Test("both generator profiles, a year each, layered from the store", arguments: GeneratorProfile.allCases)
    func generatedStore(profile: GeneratorProfile) throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        try store.insertSamples { inserter in
            for day in SampleGenerator(profile: profile, seed: 3, years: 1, end: CivilDate(year: 2024, month: 12, day: 31)) {
                for sample in day { try inserter.insert(sample) }
            }
        }
        let result = try LayeringEngine().layer(store.statisticsSource(for: .stepCount), type: .stepCount)
        try expectValid(result.intervals, store: store, maxSteps: 10_000, maxSamples: 5_000)
        if profile == .realistic {
            #expect(Double(result.intervals.count) <= 1.05 * (result.steps / 10_000).rounded(.up))
        }
        #expect(result.queries < 50)
    }
}
