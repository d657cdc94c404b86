import StepSyncCore
import Testing

@Suite("Layering engine")
struct LayeringEngineTests {
    static let limits: [(steps: Double, samples: Int)] = [(10_000, 5_000), (500, 7), (2_500.5, 50), (1, 1)]

    @Test("random histories keep every invariant and pack as tightly as any partition can", arguments: 0..<120)
    func randomHistories(seed: UInt64) throws {
        let source = InMemoryStatisticsSource(RandomHistory.adversarial(seed: seed))
        let (maxSteps, maxSamples) = Self.limits[Int(seed) % Self.limits.count]
        let result = try LayeringEngine(maxSteps: maxSteps, maxSamples: maxSamples).layer(source, type: .stepCount)
        #expect(LayeringInvariants.check(result.intervals, samples: source, maxSteps: maxSteps, maxSamples: maxSamples) == [])
        #expect(result.intervals.count == LayeringInvariants.optimalCount(source, maxSteps: maxSteps, maxSamples: maxSamples))
        #expect(result.queries == source.queries)
        #expect(result.samples == source.starts.count)
    }

    @Test("small query budgets refine only where a cut must land: the same invariants and the same optimal count",
          arguments: 0..<120)
    func smallBudgets(seed: UInt64) throws {
        let source = InMemoryStatisticsSource(RandomHistory.adversarial(seed: seed))
        let (maxSteps, maxSamples) = Self.limits[Int(seed) % Self.limits.count]
        let budget = [1, 16, 64][Int(seed / 4) % 3]
        let engine = LayeringEngine(maxSteps: maxSteps, maxSamples: maxSamples, maxBucketsPerQuery: budget)
        let result = try engine.layer(source, type: .stepCount)
        #expect(LayeringInvariants.check(result.intervals, samples: source, maxSteps: maxSteps, maxSamples: maxSamples) == [])
        #expect(result.intervals.count == LayeringInvariants.optimalCount(source, maxSteps: maxSteps, maxSamples: maxSamples))
        #expect(source.bucketLengths.allSatisfy(LayeringEngine.layers.contains))
    }

    @Test("a sample-count limit alone (heart rates): a small budget reads far fewer buckets than a large one")
    func countOnlyLimitReadsLittle() throws {
        var samples: [(start: Int64, value: Double)] = []
        var t: Int64 = 1_500_000_000_000
        for i in 0..<50_000 { t += 300_000 + Int64(i % 7) * 1_000; samples.append((t, Double(60 + i % 90))) }
        let large = InMemoryStatisticsSource(samples), small = InMemoryStatisticsSource(samples)
        let a = try LayeringEngine(maxSteps: .infinity, maxSamples: 5_000).layer(large, type: .heartRate)
        let b = try LayeringEngine(maxSteps: .infinity, maxSamples: 5_000, maxBucketsPerQuery: 16).layer(small, type: .heartRate)
        #expect(a.intervals.map(\.samples) == Array(repeating: 5_000, count: 10))
        #expect(b.intervals.map(\.samples) == a.intervals.map(\.samples))
        #expect(LayeringInvariants.check(b.intervals, samples: small, maxSteps: .infinity, maxSamples: 5_000) == [])
        #expect(small.bucketsReturned * 10 < large.bucketsReturned, "\(small.bucketsReturned) vs \(large.bucketsReturned)")
    }

    @Test("only statistics queries, every one counted, on the layers' grid, each answer bounded", arguments: [1, 2, 3] as [UInt64])
    func statisticsOnly(seed: UInt64) throws {
        // The source has no way to return a sample: the protocol only has statistics and totals.
        let source = InMemoryStatisticsSource(RandomHistory.decade(seed: seed, years: 1))
        let engine = LayeringEngine(maxBucketsPerQuery: 2_000)
        let result = try engine.layer(source, type: .stepCount)
        #expect(result.queries == source.queries)
        #expect(result.queries >= 2)
        #expect(source.bucketLengths.allSatisfy(LayeringEngine.layers.contains))
        #expect(source.bucketLengths.first == LayeringEngine.layers[0])
        #expect(LayeringInvariants.check(result.intervals, samples: source, maxSteps: 10_000, maxSamples: 5_000) == [])
    }

    @Test("appending layers only the new range and starts exactly where the ledger ends", arguments: 0..<30)
    func appending(seed: UInt64) throws {
        let all = RandomHistory.adversarial(seed: seed).sorted { $0.start < $1.start }
        let cut = all.count / 2
        let engine = LayeringEngine(maxSteps: 1_000, maxSamples: 20)
        let before = try engine.layer(InMemoryStatisticsSource(Array(all[..<cut])), type: .stepCount)
        let ledgerEnd = before.range?.end ?? Int64.min
        let later = all[cut...].filter { $0.start >= ledgerEnd }
        let source = InMemoryStatisticsSource(Array(all[..<cut]) + later)
        let again = try engine.layer(source, type: .stepCount, from: before.range?.end)
        if let from = before.range?.end {
            #expect(LayeringInvariants.check(again.intervals, samples: source, maxSteps: 1_000, maxSamples: 20, from: from) == [])
        }
        #expect(LayeringInvariants.check(before.intervals + again.intervals, samples: source, maxSteps: 1_000, maxSamples: 20) == [])
        // With nothing new, nothing is appended.
        let none = try engine.layer(source, type: .stepCount, from: (again.range ?? before.range)?.end)
        #expect(none.intervals.isEmpty || before.range == nil)
    }

    @Test("both generator profiles: invariants and optimal packing (≤ 1.05 × the lower bound when realistic)", arguments: GeneratorProfile.allCases)
    func generatorProfiles(profile: GeneratorProfile) throws {
        var samples: [(start: Int64, value: Double)] = []
        for day in SampleGenerator(profile: profile, seed: 7, years: 2, end: CivilDate(year: 2025, month: 6, day: 30)) {
            samples += day.map { ($0.startMs, $0.value) }
        }
        let source = InMemoryStatisticsSource(samples)
        let result = try LayeringEngine().layer(source, type: .stepCount)
        #expect(LayeringInvariants.check(result.intervals, samples: source, maxSteps: 10_000, maxSamples: 5_000) == [])
        #expect(result.intervals.count == LayeringInvariants.optimalCount(source, maxSteps: 10_000, maxSamples: 5_000))
        let lowerBound = (result.steps / 10_000).rounded(.up)
        // The seed profile puts most of a day's steps in one sample, so no packing reaches 1.05× there.
        if profile == .realistic { #expect(Double(result.intervals.count) <= 1.05 * lowerBound) }
    }

    @Test("a realistic decade fits in 1.05 × ⌈total ÷ max steps⌉ intervals with few queries")
    func realisticDecade() throws {
        var samples: [(start: Int64, value: Double)] = []
        for day in SampleGenerator(profile: .realistic, seed: 42, years: 10, end: CivilDate(year: 2025, month: 6, day: 30)) {
            samples += day.map { ($0.startMs, $0.value) }
        }
        let source = InMemoryStatisticsSource(samples)
        let result = try LayeringEngine().layer(source, type: .stepCount)
        let lowerBound = (result.steps / 10_000).rounded(.up)
        #expect(LayeringInvariants.check(result.intervals, samples: source, maxSteps: 10_000, maxSamples: 5_000) == [])
        #expect(Double(result.intervals.count) <= 1.05 * lowerBound)
        #expect(result.queries < samples.count / 1_000)
    }
}
