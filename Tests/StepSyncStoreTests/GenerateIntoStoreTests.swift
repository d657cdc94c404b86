import Foundation
import StepSyncCore
import StepSyncStore
import Testing
import StepSyncTestSupport

@Suite("Generated history in a real store")
struct GenerateIntoStoreTests {
    static func temporaryStore() throws -> (StepStore, URL) {
        let dir = URL(fileURLWithPath: TemporaryDirectory.uniquePath("stepsync-gen"))
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (try StepStore(path: dir.appendingPathComponent("health.sqlite").path), dir)
    }

    static let everything = TimeRange(start: 0, end: 4_102_444_800_000)  // 1970 … 2100

    @Test("Generated samples land in the store unchanged; day buckets equal the generator's day sums; re-running adds only duplicates")
    func roundTrip() throws {
        let (store, dir) = try Self.temporaryStore()
        defer { try? FileManager.default.removeItem(at: dir) }
        let days = CivilDate(year: 2024, month: 3, day: 25)...CivilDate(year: 2024, month: 4, day: 7)  // spans the March change
        let generator = SampleGenerator(profile: .realistic, seed: 11, days: days)
        let generated = Array(generator)

        let (_, summary) = try store.insertSamples { inserter in
            for day in generator { for s in day { try inserter.insert(s) } }
        }
        let all = generated.flatMap { $0 }
        #expect(summary.inserted == all.count)
        #expect(summary.duplicates == 0)
        #expect(summary.insertedSteps == all.reduce(0) { $0 + $1.value })

        var stored: [HealthSample] = []
        try store.forEachSamplePage(of: .stepCount, in: Self.everything, pageSize: 1_000) { stored += $0 }
        #expect(Set(stored) == Set(all))

        // Statistics per local day (one bucket per UTC range of each local day) equal the generator's day sums.
        for (day, samples) in zip(days, generated) {
            let r = EuropeBerlinTime.utcRangeMs(of: day)
            let total = try store.total(of: .stepCount, in: TimeRange(start: r.lowerBound, end: r.upperBound))
            #expect(total.count == samples.count)
            #expect(total.sum == samples.reduce(0) { $0 + $1.value })
        }

        let again = try store.insert(generator.joined())
        #expect(again.inserted == 0)
        #expect(again.duplicates == all.count)
    }

    @Test("Two stores filled from the same seed hold identical samples; another seed shares none")
    func identicalStores() throws {
        let (a, dirA) = try Self.temporaryStore()
        let (b, dirB) = try Self.temporaryStore()
        let (c, dirC) = try Self.temporaryStore()
        defer { for d in [dirA, dirB, dirC] { try? FileManager.default.removeItem(at: d) } }
        let end = CivilDate(year: 2024, month: 12, day: 31)
        try a.insert(SampleGenerator(profile: .seed, seed: 4, years: 2, end: end).joined())
        try b.insert(SampleGenerator(profile: .seed, seed: 4, years: 2, end: end).joined())
        try c.insert(SampleGenerator(profile: .seed, seed: 5, years: 2, end: end).joined())
        func contents(_ s: StepStore) throws -> [HealthSample] {
            var out: [HealthSample] = []
            try s.forEachSamplePage(of: .stepCount, in: Self.everything) { out += $0 }
            return out
        }
        let sa = try contents(a)
        #expect(sa.count > 3_000)
        #expect(try contents(b) == sa)
        #expect(Set(try contents(c).map(\.uuid)).isDisjoint(with: sa.map(\.uuid)))
    }

    @Test("Every generated type lands in the store's inserter (it validates each sample) and reads back unchanged, details included")
    func everyTypeRoundTrip() throws {
        let (store, dir) = try Self.temporaryStore()
        defer { try? FileManager.default.removeItem(at: dir) }
        let days = CivilDate(year: 2024, month: 10, day: 1)...CivilDate(year: 2024, month: 11, day: 10)  // the autumn change
        let generated = Array(SampleGenerator(profile: .realistic, seed: 42, days: days, types: Set(GeneratedType.allCases)).joined())
        let summary = try store.insert(generated)
        #expect(summary.inserted == generated.count)
        #expect(summary.insertedSteps == generated.filter { $0.type == .stepCount }.reduce(0) { $0 + $1.value })
        for type in GeneratedType.allCases {
            var stored: [HealthSample] = []
            try store.forEachSamplePage(of: type.sampleType, in: Self.everything, pageSize: 700) { stored += $0 }
            let expected = generated.filter { $0.type == type.sampleType }
            #expect(!expected.isEmpty, "\(type)")
            #expect(Set(stored) == Set(expected), "\(type)")
        }
        #expect(generated.contains { $0.type == .workout && $0.details?.hasPrefix(#"{"activityType":"#) == true })
    }
}
