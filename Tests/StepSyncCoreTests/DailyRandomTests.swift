import DailyReference
import Foundation
import StepSyncCore
import Testing

@Suite("Daily step totals: the sweep equals the brute-force reference on seeded random histories")
struct DailyRandomTests {
    @Test("600 random histories around daylight-saving changes in seven zones give the reference's exact millionths",
          arguments: 0..<6)
    func randomHistories(batch: Int) throws {
        var nonZeroDays = 0, hiddenSomething = 0
        for seed in UInt64(batch * 100)..<UInt64(batch * 100 + 100) {
            let dailyCase = DailyCase.random(seed: seed)
            let result = try DailyStepTotals.compute(dailyCase.samples, request: dailyCase.request())
            let reference = dailyCase.referenceMicroSteps()
            #expect(result.days.map(\.microSteps) == reference, "seed \(seed): \(dailyCase)")
            #expect(result.days.map(\.steps) == reference.map(DailyReference.steps), "seed \(seed)")
            nonZeroDays += reference.filter { $0 > 0 }.count
            // The priority mattered in this case when the plain sum of the samples inside the days is larger.
            let everything = DailyReference.microSteps(dailyCase.samples, from: dailyCase.from, to: dailyCase.to,
                                                       timeZone: TimeZone(identifier: dailyCase.timeZoneName)!,
                                                       priority: [], grainMs: dailyCase.grainMs)
            if everything.reduce(0, +) > reference.reduce(0, +) + 1_000 { hiddenSomething += 1 }
        }
        // The cases are not trivial: most have steps, and in many the priority hid something.
        #expect(nonZeroDays > 150)
        #expect(hiddenSomething > 30)
    }

    @Test("samples in any order give the same answer through compute(unordered:), which sorts them first")
    func unordered() throws {
        for seed in UInt64(900)..<920 {
            let dailyCase = DailyCase.random(seed: seed)
            var rng = SplitMix64(seed: seed)
            let shuffled = dailyCase.samples.shuffled(using: &rng)
            let result = try DailyStepTotals.compute(unordered: shuffled, request: dailyCase.request())
            #expect(result.days.map(\.microSteps) == dailyCase.referenceMicroSteps(), "seed \(seed)")
        }
    }

    @Test("random histories at millisecond precision around a local midnight give the reference's exact millionths")
    func millisecondHistories() throws {
        let zones = ["Europe/Berlin", "Asia/Kathmandu", "America/New_York"]
        for seed in UInt64(0)..<60 {
            var rng = SplitMix64(seed: 0xDA11 &+ seed)
            let zoneName = zones[Int(seed) % zones.count]
            let zone = TimeZone(identifier: zoneName)!
            let from = CivilDate(year: 2024, month: 3, day: 9 + Int.random(in: 0...24, using: &rng))
            let midnight = LocalDays.startOfDay(daysSinceEpoch: from.daysSinceEpoch + 1, in: zone)
            // 0–25 samples within ±3 s of the midnight after `from`, at any millisecond.
            var samples: [DailyStepTotals.Sample] = []
            for _ in 0..<Int.random(in: 0...25, using: &rng) {
                let start = midnight + Int64.random(in: -3_000...2_500, using: &rng)
                let length = Bool.random(using: &rng) ? Int64.random(in: 0...10, using: &rng) : Int64.random(in: 0...3_000, using: &rng)
                samples.append(DailyStepTotals.Sample(
                    startMs: start, endMs: start + length, value: Double(Int.random(in: 0...500, using: &rng)),
                    deviceName: ["Apple Watch", "iPhone", nil][Int.random(in: 0...2, using: &rng)]))
            }
            samples.sort { $0.startMs < $1.startMs }
            let dailyCase = DailyCase(samples: samples, from: from, to: from.advanced(by: 1), timeZoneName: zoneName,
                                      priority: ["Apple Watch", "iPhone"], grainMs: 1)
            let result = try DailyStepTotals.compute(samples, request: dailyCase.request())
            #expect(result.days.map(\.microSteps) == dailyCase.referenceMicroSteps(), "seed \(seed): \(dailyCase)")
        }
    }
}
