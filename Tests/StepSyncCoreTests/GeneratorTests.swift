import Foundation
import Testing
@testable import StepSyncCore

@Suite("SampleGenerator")
struct GeneratorTests {
    static let end = CivilDate(year: 2025, month: 6, day: 30)

    /// Every sample of a generator, with the day it was yielded for.
    static func collect(_ generator: SampleGenerator) -> [(day: CivilDate, samples: [HealthSample])] {
        Array(zip(generator.days, generator))
    }

    // MARK: - Determinism

    @Test("The same seed gives the same uuids, dates and values; another seed gives others", arguments: GeneratorProfile.allCases)
    func determinism(profile: GeneratorProfile) {
        let days = CivilDate(year: 2024, month: profile == .seed ? 1 : 3, day: 1)...CivilDate(year: 2024, month: profile == .seed ? 12 : 5, day: 31)
        let a = Array(SampleGenerator(profile: profile, seed: 42, days: days)).flatMap { $0 }
        let b = Array(SampleGenerator(profile: profile, seed: 42, days: days)).flatMap { $0 }
        let c = Array(SampleGenerator(profile: profile, seed: 43, days: days)).flatMap { $0 }
        #expect(a.count > 2_000)
        #expect(c.count > 2_000)
        #expect(a == b)
        #expect(Set(a.map(\.uuid)).isDisjoint(with: c.map(\.uuid)))
        #expect(a.map(\.startMs) != c.map(\.startMs))
    }

    @Test("A realistic day's samples do not depend on the range generated around it")
    func realisticDaysIndependentOfRange() {
        let wide = Self.collect(SampleGenerator(profile: .realistic, seed: 9,
                                                days: CivilDate(year: 2023, month: 12, day: 20)...CivilDate(year: 2024, month: 1, day: 10)))
        let narrow = Self.collect(SampleGenerator(profile: .realistic, seed: 9,
                                                  days: CivilDate(year: 2024, month: 1, day: 2)...CivilDate(year: 2024, month: 1, day: 3)))
        #expect(narrow.count == 2)
        for (day, samples) in narrow {
            let same = wide.first { $0.day == day }
            #expect(same?.samples == samples)
            #expect(!samples.isEmpty)
        }
    }

    @Test("Sample uuids are version 4 (RFC 9562) and unique")
    func uuidBits() {
        let samples = Array(SampleGenerator(profile: .realistic, seed: 1, years: 1, end: Self.end).prefix(60)).flatMap { $0 }
        #expect(samples.count > 5_000)
        #expect(Set(samples.map(\.uuid)).count == samples.count)
        for sample in samples.prefix(200) {
            let u = sample.uuid.uuid
            #expect(u.6 >> 4 == 4)
            #expect(u.8 >> 6 == 0b10)
        }
    }

    // MARK: - Shape of every sample

    @Test("Every sample is a whole step count with end ≥ start; days come oldest first, each sorted by start",
          arguments: GeneratorProfile.allCases)
    func sampleShape(profile: GeneratorProfile) {
        let generator = SampleGenerator(profile: profile, seed: 5, years: 1, end: Self.end)
        let days = Self.collect(generator)
        #expect(days.count == 365)
        #expect(days.first?.day == CivilDate(year: 2024, month: 7, day: 1))
        var previousDayEnd = Int64.min
        for (day, samples) in days {
            let range = EuropeBerlinTime.utcRangeMs(of: day)
            #expect(range.lowerBound >= previousDayEnd)
            previousDayEnd = range.upperBound
            #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.startMs <= $1.startMs })
            for s in samples {
                #expect(s.endMs >= s.startMs)
                #expect(range.contains(s.startMs))
                #expect(s.type == .stepCount && s.unit == "count")
                #expect(s.value >= 1 && s.value == s.value.rounded())
                #expect(s.utcOffsetSeconds == EuropeBerlinTime.utcOffsetSeconds(atUTCSeconds: s.startMs / 1000))
            }
        }
    }

    // MARK: - Densities

    @Test("realistic: 100–300 samples on a typical Watch day, iPhone and Watch overlap, nights empty, manual entries")
    func realisticDensity() throws {
        let days = Self.collect(SampleGenerator(profile: .realistic, seed: 42, years: 2, end: Self.end))
        let all = days.flatMap(\.samples)
        let perDay = Double(all.count) / Double(days.count)
        // 0.5–1 million samples in ten years.
        #expect(perDay > 137 && perDay < 274, "\(perDay) samples a day")

        let watchDays = days.filter { $0.samples.contains { $0.sourceName == "Apple Watch" } }.map(\.samples.count).sorted()
        #expect(watchDays.count > days.count / 2)
        let inBand = watchDays.filter { (100...300).contains($0) }.count
        #expect(Double(inBand) / Double(watchDays.count) > 0.85, "\(inBand) of \(watchDays.count) Watch days carry 100–300 samples")
        // Some months and days go without the Watch; some days without the phone.
        #expect(days.contains { !$0.samples.isEmpty && !$0.samples.contains { $0.sourceName == "Apple Watch" } })
        #expect(days.contains { $0.samples.contains { $0.sourceName == "Apple Watch" } && !$0.samples.contains { $0.sourceName == "iPhone" } })

        // Watch samples 30–90 s, iPhone samples up to 10 min, on the same walks.
        let watch = all.filter { $0.sourceName == "Apple Watch" }
        let phone = all.filter { $0.sourceName == "iPhone" }
        #expect(watch.allSatisfy { $0.endMs - $0.startMs <= 90_000 && $0.deviceName == "Apple Watch" })
        #expect(phone.allSatisfy { $0.endMs - $0.startMs <= 600_000 && $0.deviceName == "iPhone" && $0.deviceModel == "iPhone14,5" })
        #expect(phone.allSatisfy { $0.sourceBundleId.hasPrefix("com.apple.health.") })
        #expect(phone.filter { $0.endMs - $0.startMs >= 60_000 }.count > phone.count * 3 / 4)
        var overlapping = 0
        for (_, samples) in days {
            let w = samples.filter { $0.sourceName == "Apple Watch" }
            for p in samples where p.sourceName == "iPhone" {
                if w.contains(where: { $0.startMs < p.endMs && p.startMs < $0.endMs }) { overlapping += 1 }
            }
        }
        #expect(overlapping > phone.count / 2, "\(overlapping) of \(phone.count) iPhone samples overlap a Watch sample")

        // Nights without steps: nothing between 00:00 and 06:00 local.
        for s in all {
            let local = (s.startMs / 1000 + Int64(s.utcOffsetSeconds ?? 0)) % 86_400
            #expect(local >= 6 * 3600)
        }
        // Workdays and weekends differ; manual entries in Health, one large count each.
        let manual = all.filter { $0.sourceName == "Health" }
        #expect(manual.count >= 3)
        #expect(manual.allSatisfy { $0.deviceName == nil && $0.value >= 1500 })
    }

    @Test("realistic: ten years come to 0.5–1 million samples, with manual samples over 10,000 steps")
    func realisticDecade() {
        var samples = 0
        var bigManual = 0
        var days = 0
        for day in SampleGenerator(profile: .realistic, seed: 42, years: 10, end: Self.end) {
            days += 1
            samples += day.count
            bigManual += day.lazy.filter { $0.sourceName == "Health" && $0.value > 10_000 }.count
        }
        #expect(days == 3653)
        #expect((500_000...1_000_000).contains(samples), "\(samples) samples")
        #expect(bigManual >= 5)
    }

    @Test("seed: about 42,000 samples and 18 million steps in ten years, 10–30 a recorded day", arguments: [42, 7] as [UInt64])
    func seedDensity(seed: UInt64) {
        var samples = 0
        var steps = 0.0
        var recorded: [Int] = []
        var runs: [Int] = []
        var run = 0
        var firstThird = 0
        var lastThird = 0
        let generator = SampleGenerator(profile: .seed, seed: seed, years: 10, end: Self.end)
        for (i, day) in generator.enumerated() {
            samples += day.count
            if day.isEmpty {
                if run > 0 { runs.append(run) }
                run = 0
                continue
            }
            run += 1
            if i < generator.dayCount / 3 { firstThird += 1 } else if i >= generator.dayCount * 2 / 3 { lastThird += 1 }
            recorded.append(day.count)
            steps += day.reduce(0) { $0 + $1.value }
            let last = day.max { $0.startMs < $1.startMs }!
            #expect(day.allSatisfy { $0.value <= last.value }, "the last sample carries most of the day")
            for s in day {
                let local = (s.startMs / 1000 + Int64(s.utcOffsetSeconds!)) % 86_400
                #expect(local >= 6 * 3600 && local + (s.endMs - s.startMs) / 1000 <= 23 * 3600)
                #expect((60_000...300_000).contains(s.endMs - s.startMs))
            }
        }
        #expect((36_000...48_000).contains(samples), "\(samples) samples")
        #expect((15_000_000...21_000_000).contains(steps), "\(steps) steps")
        #expect(recorded.allSatisfy { (10...30).contains($0) })
        #expect(runs.dropFirst().allSatisfy { (30...180).contains($0) }, "recorded stretches of 30–180 days: \(runs)")
        #expect(lastThird > firstThird, "recent years are recorded more")
    }

    // MARK: - Daylight saving

    @Test("Europe/Berlin: 23-hour day in March, 25-hour day in October, offsets switch at 01:00 UTC")
    func daylightSaving() {
        let spring = CivilDate(year: 2024, month: 3, day: 31)
        let autumn = CivilDate(year: 2024, month: 10, day: 27)
        func hours(_ d: CivilDate) -> Int64 { let r = EuropeBerlinTime.utcRangeMs(of: d); return (r.upperBound - r.lowerBound) / 3_600_000 }
        #expect(hours(spring) == 23)
        #expect(hours(autumn) == 25)
        #expect(hours(CivilDate(year: 2024, month: 7, day: 1)) == 24)
        #expect(hours(CivilDate(year: 2021, month: 3, day: 28)) == 23)
        let switchUTC = Int64(spring.daysSinceEpoch) * 86_400 + 3600
        #expect(EuropeBerlinTime.utcOffsetSeconds(atUTCSeconds: switchUTC - 1) == 3600)
        #expect(EuropeBerlinTime.utcOffsetSeconds(atUTCSeconds: switchUTC) == 7200)
        // 03:00 local on the spring day is 01:00 UTC; 02:30 does not exist and lands at 03:30.
        #expect(EuropeBerlinTime.utcSeconds(of: spring, secondsFromMidnight: 3 * 3600) == switchUTC)
        #expect(EuropeBerlinTime.utcSeconds(of: spring, secondsFromMidnight: 2 * 3600 + 1800) == switchUTC + 1800)
        #expect(EuropeBerlinTime.localDate(atUTCMs: EuropeBerlinTime.utcRangeMs(of: autumn).upperBound - 1) == autumn)
    }

    @Test("Generated days across the clock changes keep local hours and offsets right", arguments: GeneratorProfile.allCases)
    func generatedAcrossDaylightSaving(profile: GeneratorProfile) {
        let days = Self.collect(SampleGenerator(profile: profile, seed: 3,
                                                days: CivilDate(year: 2022, month: 1, day: 1)...CivilDate(year: 2023, month: 12, day: 31)))
        let changeDays: Set<CivilDate> = [CivilDate(year: 2022, month: 3, day: 27), CivilDate(year: 2022, month: 10, day: 30),
                                          CivilDate(year: 2023, month: 3, day: 26), CivilDate(year: 2023, month: 10, day: 29)]
        var seenSummer = false
        var seenWinter = false
        var samplesOnChangeDays = 0
        for (day, samples) in days {
            for s in samples {
                #expect(EuropeBerlinTime.localDate(atUTCMs: s.startMs) == day)
                let offset = Int64(s.utcOffsetSeconds!)
                seenSummer = seenSummer || offset == 7200
                seenWinter = seenWinter || offset == 3600
                let localHour = (s.startMs / 1000 + offset) % 86_400 / 3600
                #expect(localHour != 2, "no sample in the hour that does not exist (or repeats)")
                if changeDays.contains(day) { samplesOnChangeDays += 1 }
            }
        }
        #expect(seenSummer && seenWinter)
        if profile == .realistic { #expect(samplesOnChangeDays > 100) }
    }

    // MARK: - CivilDate

    @Test("CivilDate parses YYYY-MM-DD and refuses anything else", arguments: [
        ("2024-02-29", true), ("2023-02-29", false), ("2024-13-01", false), ("2024-1-01", false), ("20240101", false),
        ("2024-01-32", false), ("abcd-01-01", false), ("2000-12-31", true), ("", false),
    ])
    func civilDateParsing(text: String, valid: Bool) {
        #expect((CivilDate(iso: text) != nil) == valid)
        if valid { #expect(CivilDate(iso: text)?.description == text) }
    }

    @Test("CivilDate counts days like the calendar")
    func civilDateArithmetic() {
        #expect(CivilDate(year: 1970, month: 1, day: 1).daysSinceEpoch == 0)
        #expect(CivilDate(year: 2000, month: 3, day: 1).daysSinceEpoch == 11_017)
        #expect(CivilDate(year: 1969, month: 12, day: 31).daysSinceEpoch == -1)
        for n in stride(from: -1000, to: 30_000, by: 37) {
            #expect(CivilDate(daysSinceEpoch: n).daysSinceEpoch == n)
        }
        #expect(CivilDate(year: 2024, month: 3, day: 31).isoWeekday == 7)
        #expect(CivilDate(year: 2025, month: 6, day: 30).isoWeekday == 1)
        #expect((CivilDate(year: 2024, month: 2, day: 28)...CivilDate(year: 2024, month: 3, day: 1)).count == 3)
        // Ten years ending 2025-06-30 start 2015-07-01; a year ending 29 Feb starts 1 March.
        #expect(SampleGenerator(profile: .seed, seed: 1, years: 10, end: Self.end).days.lowerBound == CivilDate(year: 2015, month: 7, day: 1))
        #expect(SampleGenerator(profile: .seed, seed: 1, years: 1, end: CivilDate(year: 2024, month: 2, day: 29)).days.lowerBound
                == CivilDate(year: 2023, month: 3, day: 1))
        let today = CivilDate.today(nowMs: TimeSource.system.nowMs())
        #expect(today.year >= 2024 && CivilDate(iso: today.description) == today)
    }
}
