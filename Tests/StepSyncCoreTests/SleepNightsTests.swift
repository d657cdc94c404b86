import Foundation
import StepSyncCore
import Testing

@Suite("Sleep nights: seconds per stage, a night from noon to noon named by its evening")
struct SleepNightsTests {
    func sleep(_ start: String, _ end: String, _ stage: SleepStage) -> HealthSample {
        panelSample(.sleepAnalysis, start, end, Double(stage.rawValue), unit: "")
    }

    @Test("stages add up per night; a sample belongs to the night it starts in, whole")
    func stagesPerNight() throws {
        let request = try DailyStepsRequest.parse(from: "2025-05-10", to: "2025-05-11", tz: "Europe/Berlin", priority: nil)
        var nights = SleepNights(request: request)
        nights.add([
            sleep("2025-05-10T11:59:59+02:00", "2025-05-10T12:30:00+02:00", .asleepCore), // the 9th's night: left out
            sleep("2025-05-10T23:00:00+02:00", "2025-05-11T07:00:00+02:00", .inBed),
            sleep("2025-05-10T23:15:00+02:00", "2025-05-11T01:15:00+02:00", .asleepCore),
            sleep("2025-05-11T01:15:00+02:00", "2025-05-11T02:00:00+02:00", .asleepDeep),
            sleep("2025-05-11T02:00:00+02:00", "2025-05-11T02:05:30+02:00", .awake),
            sleep("2025-05-11T02:05:30+02:00", "2025-05-11T03:35:30+02:00", .asleepREM),
            sleep("2025-05-11T11:30:00+02:00", "2025-05-11T12:30:00+02:00", .asleepUnspecified), // past noon: not cut
            // The 11th's night starts at noon: a nap at 14:00 counts towards it.
            sleep("2025-05-11T12:00:00+02:00", "2025-05-11T12:20:00+02:00", .asleepUnspecified),
            sleep("2025-05-12T03:00:00+02:00", "2025-05-12T04:00:00+02:00", .asleepDeep),
            panelSample(.sleepAnalysis, "2025-05-12T04:00:00+02:00", "2025-05-12T05:00:00+02:00", 9, unit: ""), // no code
            sleep("2025-05-12T12:00:00+02:00", "2025-05-12T13:00:00+02:00", .asleepCore), // the 12th's: left out
        ])
        let first = nights.nights[0], second = nights.nights[1]
        #expect(first.date.description == "2025-05-10")
        #expect(SleepStage.allCases.map { first.seconds($0) } == [28_800, 3_600, 330, 7_200, 2_700, 5_400])
        #expect(first.asleepSeconds == 18_900)
        #expect(first.samples == 6)
        #expect(SleepStage.allCases.map { second.seconds($0) } == [0, 1_200, 0, 0, 3_600, 0])
        #expect(nights.startRange == t("2025-05-10T12:00:00+02:00")..<t("2025-05-12T12:00:00+02:00"))
        #expect(nights.json == #"{"tz":"Europe/Berlin","from":"2025-05-10","to":"2025-05-11","nights":[{"date":"2025-05-10","samples":6,"inBed":28800,"asleepUnspecified":3600,"awake":330,"asleepCore":7200,"asleepDeep":2700,"asleepREM":5400,"asleep":18900},{"date":"2025-05-11","samples":2,"inBed":0,"asleepUnspecified":1200,"awake":0,"asleepCore":0,"asleepDeep":3600,"asleepREM":0,"asleep":4800}]}"#)
    }

    @Test("an iPhone and a Watch recording one night count its hours once; asleep is the union of the sleep stages")
    func twoSourcesOnce() throws {
        let request = try DailyStepsRequest.parse(from: "2025-05-10", to: "2025-05-10", tz: "UTC", priority: nil)
        var nights = SleepNights(request: request)
        nights.add([
            // The Watch: core 23:00–01:00, deep 01:00–02:00. The iPhone: unspecified 23:30–01:30, in bed twice.
            sleep("2025-05-10T23:00:00Z", "2025-05-11T01:00:00Z", .asleepCore),
            sleep("2025-05-11T01:00:00Z", "2025-05-11T02:00:00Z", .asleepDeep),
            sleep("2025-05-10T23:30:00Z", "2025-05-11T01:30:00Z", .asleepUnspecified),
            sleep("2025-05-10T22:30:00Z", "2025-05-11T07:00:00Z", .inBed),
            sleep("2025-05-10T22:45:00Z", "2025-05-11T06:30:00Z", .inBed),
            // The same core sample again (another app's copy): nothing more.
            sleep("2025-05-10T23:00:00Z", "2025-05-11T01:00:00Z", .asleepCore),
        ])
        let night = nights.nights[0]
        #expect(night.seconds(.inBed) == 8.5 * 3600)
        #expect(night.seconds(.asleepCore) == 2 * 3600 && night.seconds(.asleepUnspecified) == 2 * 3600)
        #expect(night.asleepSeconds == 3 * 3600)  // 23:00–02:00 once, not 2 + 1 + 2 + 2
        #expect(night.samples == 6)
    }

    @Test("a union of intervals: overlapping, touching, nested and apart, inserted in any order", arguments: 0..<20)
    func intervalUnion(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var union = IntervalUnion()
        var covered = Set<Int64>()
        for _ in 0..<40 {
            let start = Int64(random.next() % 200), length = Int64(random.next() % 30)
            union.insert(start..<(start + length))
            covered.formUnion(start..<(start + length))
        }
        #expect(union.length == Int64(covered.count))
        #expect(Set(union.ranges.flatMap { Array($0) }) == covered)
        #expect(zip(union.ranges, union.ranges.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound })
    }

    @Test("noon is local: a night over the spring clock change is 23 hours; the evening of an instant",
          arguments: [("2025-03-29", "Europe/Berlin", Int64(23 * 3_600_000)), ("2025-10-25", "Europe/Berlin", Int64(25 * 3_600_000)),
                      ("2025-05-10", "Asia/Kolkata", Int64(24 * 3_600_000))])
    func noonIsLocal(evening: String, zone: String, length: Int64) throws {
        let request = try DailyStepsRequest.parse(from: evening, to: evening, tz: zone, priority: nil)
        let nights = SleepNights(request: request)
        #expect(nights.startRange.upperBound - nights.startRange.lowerBound == length)
        let tz = try #require(TimeZone(identifier: zone))
        let date = try #require(CivilDate(iso: evening))
        #expect(SleepNights.evening(ofMs: nights.startRange.lowerBound, in: tz) == date)
        #expect(SleepNights.evening(ofMs: nights.startRange.upperBound - 1, in: tz) == date)
        #expect(SleepNights.evening(ofMs: nights.startRange.upperBound, in: tz) == date.advanced(by: 1))
    }
}
