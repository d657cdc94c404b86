import DailyReference
import Foundation
import StepSyncCore
import StepSyncStore
import Testing
import StepSyncTestSupport

@Suite("Store: daily step totals from a real SQLite store")
struct DailyTotalsStoreTests {
    func store(_ directory: TemporaryDirectory) throws -> StepStore {
        try StepStore(path: directory.file("health.sqlite"))
    }

    @Test("80 random histories inserted in shuffled order give the brute-force reference's exact millionths")
    func randomHistories() throws {
        for seed in UInt64(1_000)..<1_080 {
            let directory = try TemporaryDirectory("stepsync-daily")
            let store = try store(directory)
            let dailyCase = DailyCase.random(seed: seed)
            var rng = SplitMix64(seed: seed)
            try store.insert(dailyCase.healthSamples().shuffled(using: &rng))
            let result = try store.dailyStepTotals(dailyCase.request())
            #expect(result.days.map(\.microSteps) == dailyCase.referenceMicroSteps(), "seed \(seed): \(dailyCase)")
            #expect(result.timeZoneName == dailyCase.timeZoneName)
        }
    }

    @Test("a Watch sample that starts two days before the first day still hides the iPhone and counts its part")
    func lookBack() throws {
        let directory = try TemporaryDirectory("stepsync-daily")
        let store = try store(directory)
        let dailyCase = DailyCase(samples: [
            sample("2024-05-09T12:00+02:00", "2024-05-11T12:00+02:00", 4_800, "Apple Watch"),  // 100 an hour
            sample("2024-05-11T11:00+02:00", "2024-05-11T13:00+02:00", 1_000, "iPhone"),
            sample("2024-05-11T00:00+02:00", "2024-05-11T00:00+02:00", 77, "iPhone"),          // hidden by the Watch
            sample("2024-05-10T23:00+02:00", "2024-05-11T00:00+02:00", 333, "iPhone"),         // ends at the first midnight
        ], from: CivilDate(year: 2024, month: 5, day: 11), to: CivilDate(year: 2024, month: 5, day: 11),
           timeZoneName: "Europe/Berlin", priority: ["Apple Watch", "iPhone"], grainMs: Milliseconds.minute)
        try store.insert(dailyCase.healthSamples())
        #expect(try store.durationBound(of: .stepCount) == 48 * Milliseconds.hour)
        let result = try store.dailyStepTotals(dailyCase.request())
        // Watch 00:00–12:00 = 1,200; the iPhone only 12:00–13:00 = 500.
        #expect(result.days.map(\.steps) == [1_700])
        #expect(result.days.map(\.microSteps) == dailyCase.referenceMicroSteps())
    }

    @Test("the look-back bound is the longest step sample over an hour, read from the partial index; else one hour")
    func durationBound() throws {
        let directory = try TemporaryDirectory("stepsync-daily")
        let store = try store(directory)
        func steps(_ start: String, _ end: String) -> HealthSample {
            HealthSample(uuid: UUID(), type: .stepCount, startMs: t(start), endMs: t(end), value: 10, unit: "count",
                         sourceName: "iPhone", sourceBundleId: "com.apple.health", deviceName: "iPhone")
        }
        try store.insert([steps("2024-05-11T10:00Z", "2024-05-11T10:59Z")])
        #expect(try store.durationBound(of: .stepCount) == Milliseconds.hour)
        try store.insert([steps("2024-05-12T10:00Z", "2024-05-12T11:00:00.001Z"), steps("2024-05-01T00:00Z", "2024-05-03T07:00Z")])
        #expect(try store.durationBound(of: .stepCount) == 55 * Milliseconds.hour)
        // A longer sample of another type does not widen the steps' look-back.
        try store.insert([HealthSample(uuid: UUID(), type: .sleepAnalysis, startMs: t("2024-04-01T00:00Z"),
                                       endMs: t("2024-04-09T00:00Z"), value: 1, unit: "", sourceName: "Watch",
                                       sourceBundleId: "com.apple.health")])
        #expect(try store.durationBound(of: .stepCount) == 55 * Milliseconds.hour)
        #expect(try store.durationBound(of: .sleepAnalysis) == 8 * 24 * Milliseconds.hour)
    }

    @Test("other types are not steps, and an empty store answers every day with 0")
    func otherTypesAndEmpty() throws {
        let directory = try TemporaryDirectory("stepsync-daily")
        let store = try store(directory)
        let request = try DailyStepsRequest.parse(from: "2024-05-10", to: "2024-05-12", tz: "Europe/Berlin", priority: nil)
        #expect(try store.dailyStepTotals(request).days.map(\.steps) == [0, 0, 0])
        #expect(try store.durationBound(of: .stepCount) == Milliseconds.hour)
        try store.insert([HealthSample(uuid: UUID(), type: .heartRate, startMs: t("2024-05-11T10:00Z"),
                                       endMs: t("2024-05-11T10:00Z"), value: 72, unit: "count/min",
                                       sourceName: "Apple Watch", sourceBundleId: "com.apple.health", deviceName: "Apple Watch"),
                          HealthSample(uuid: UUID(), type: .stepCount, startMs: t("2024-05-11T10:00Z"),
                                       endMs: t("2024-05-11T10:05Z"), value: 450, unit: "count",
                                       sourceName: "iPhone", sourceBundleId: "com.apple.health", deviceName: "iPhone")])
        let result = try store.dailyStepTotals(request)
        #expect(result.days.map(\.steps) == [0, 450, 0])
        #expect(result.json == #"{"tz":"Europe/Berlin","from":"2024-05-10","to":"2024-05-12","unmatched":["Apple Watch"],"days":[{"date":"2024-05-10","steps":0},{"date":"2024-05-11","steps":450},{"date":"2024-05-12","steps":0}]}"#)
    }

    @Test("on a realistic iPhone + Watch quarter the store's answer is the pure function's over the same samples, below the naive sum")
    func realisticQuarter() throws {
        let directory = try TemporaryDirectory("stepsync-daily")
        let store = try store(directory)
        let days = CivilDate(year: 2024, month: 3, day: 1)...CivilDate(year: 2024, month: 5, day: 31)
        let samples = Array(SampleGenerator(profile: .realistic, seed: 42, days: days).joined())
        try store.insert(samples)
        let request = try DailyStepsRequest.parse(from: "2024-03-01", to: "2024-05-31", tz: "Europe/Berlin", priority: nil)
        let fromStore = try store.dailyStepTotals(request)
        let sorted = samples.sorted { $0.startMs < $1.startMs }.map {
            DailyStepTotals.Sample(startMs: $0.startMs, endMs: $0.endMs, value: $0.value, deviceName: $0.deviceName)
        }
        #expect(fromStore == (try DailyStepTotals.compute(sorted, request: request)))
        #expect(fromStore.days.count == 92)
        let naive = samples.reduce(0) { $0 + $1.value }
        #expect(Double(fromStore.totalSteps) < naive * 0.9)
        #expect(Double(fromStore.totalSteps) > naive * 0.3)
    }
}

/// An instant from ISO-8601 text with its offset.
private func t(_ text: String) -> Int64 { ISO8601Millis.parse(text)! }

private func sample(_ start: String, _ end: String, _ value: Double, _ device: String?) -> DailyStepTotals.Sample {
    DailyStepTotals.Sample(startMs: t(start), endMs: t(end), value: value, deviceName: device)
}
