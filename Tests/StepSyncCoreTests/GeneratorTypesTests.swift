import Foundation
import Testing
@testable import StepSyncCore

@Suite("SampleGenerator: every type of an iPhone + Apple Watch history")
struct GeneratorTypesTests {
    static let all = Set(GeneratedType.allCases)
    /// A quarter across the spring clock change.
    static let spring = CivilDate(year: 2024, month: 3, day: 1)...CivilDate(year: 2024, month: 5, day: 31)

    static func days(_ range: ClosedRange<CivilDate>, seed: UInt64 = 42, types: Set<GeneratedType> = all)
        -> [(day: CivilDate, samples: [HealthSample])] {
        Array(zip(range, SampleGenerator(profile: .realistic, seed: seed, days: range, types: types)))
    }

    static func of(_ type: GeneratedType, _ samples: [HealthSample]) -> [HealthSample] {
        samples.filter { $0.type == type.sampleType }
    }

    // MARK: - Every sample

    @Test("Every sample passes SampleValidation, starts on its local day, days are sorted, uuids are unique; all nine types occur")
    func everySampleValid() throws {
        let days = Self.days(Self.spring, seed: 3)
        var uuids = Set<UUID>()
        var seen = Set<SampleType>()
        var count = 0
        for (day, samples) in days {
            let range = EuropeBerlinTime.utcRangeMs(of: day)
            #expect(zip(samples, samples.dropFirst()).allSatisfy { !RealisticTypesRecorder.order($1, $0) })
            for s in samples {
                #expect(s.validationProblem == nil, "\(s)")
                #expect(range.contains(s.startMs), "\(s.type.shortName) at \(ISO8601Millis.format(s.startMs)) is not on \(day)")
                #expect(s.utcOffsetSeconds == EuropeBerlinTime.utcOffsetSeconds(atMs: s.startMs))
                #expect(s.unit == GeneratedType(name: s.type.rawValue)?.unit)
                uuids.insert(s.uuid)
                seen.insert(s.type)
                count += 1
            }
        }
        #expect(uuids.count == count)
        #expect(seen == Set(GeneratedType.allCases.map(\.sampleType)))
        #expect(count > 90 * 500, "\(count) samples in 92 days")
    }

    @Test("A type's samples are the same whichever other types are generated with it", arguments: GeneratedType.allCases)
    func typesIndependent(_ type: GeneratedType) {
        let range = CivilDate(year: 2023, month: 6, day: 1)...CivilDate(year: 2023, month: 6, day: 21)
        let alone = Array(SampleGenerator(profile: .realistic, seed: 8, days: range, types: [type])).flatMap { $0 }
        let among = Array(SampleGenerator(profile: .realistic, seed: 8, days: range, types: Self.all)).flatMap { $0 }
        #expect(!alone.isEmpty)
        #expect(Set(alone) == Set(Self.of(type, among)))
    }

    @Test("A day's samples of every type do not depend on the range generated around it (nights cross midnight)")
    func rangeIndependent() {
        let wide = Self.days(CivilDate(year: 2023, month: 10, day: 20)...CivilDate(year: 2023, month: 11, day: 5), seed: 9)
        let narrow = Self.days(CivilDate(year: 2023, month: 10, day: 29)...CivilDate(year: 2023, month: 10, day: 30), seed: 9)
        for (day, samples) in narrow {
            #expect(wide.first { $0.day == day }?.samples == samples)
            #expect(samples.contains { $0.type == .sleepAnalysis } || samples.contains { $0.type == .heartRate })
        }
    }

    @Test("The same seed gives the same samples of every type; another seed shares no uuid")
    func determinism() {
        let range = CivilDate(year: 2022, month: 2, day: 1)...CivilDate(year: 2022, month: 2, day: 14)
        let a = Self.days(range, seed: 5).flatMap(\.samples)
        let b = Self.days(range, seed: 5).flatMap(\.samples)
        let c = Self.days(range, seed: 6).flatMap(\.samples)
        #expect(a == b)
        #expect(Set(a.map(\.uuid)).isDisjoint(with: c.map(\.uuid)))
    }

    // MARK: - Rates and rules

    @Test("distance: one sample per iPhone or Watch step sample, same span and device, 0.4–1.3 m a step; none for manual entries")
    func distancePairsSteps() {
        for (_, samples) in Self.days(CivilDate(year: 2024, month: 6, day: 1)...CivilDate(year: 2024, month: 6, day: 30)) {
            let steps = Self.of(.steps, samples).filter { $0.sourceName != "Health" }
            let distance = Self.of(.distance, samples)
            #expect(steps.count == distance.count)
            var bySpan: [String: [HealthSample]] = [:]
            for d in distance { bySpan["\(d.startMs)-\(d.endMs)-\(d.sourceName)", default: []].append(d) }
            for s in steps {
                let d = bySpan["\(s.startMs)-\(s.endMs)-\(s.sourceName)"]
                #expect(d?.count == 1)
                guard let d = d?.first else { continue }
                #expect(d.deviceModel == s.deviceModel && d.sourceBundleId == s.sourceBundleId && d.unit == "km")
                let metres = d.value * 1000 / s.value
                #expect(metres > 0.4 && metres < 1.3, "\(metres) m a step")
            }
            #expect(!Self.of(.distance, samples).contains { $0.sourceName == "Health" })
        }
    }

    @Test("heart rate: Watch only, readings every 5–10 min awake, 10–15 min asleep, ≤ 40 s apart in workouts, 38–205 bpm")
    func heartRateRates() throws {
        var inWorkout: [Int64] = []
        var outside: [Int64] = []
        var perWornDay: [Int] = []
        for (_, samples) in Self.days(CivilDate(year: 2024, month: 5, day: 1)...CivilDate(year: 2024, month: 6, day: 30)) {
            let readings = Self.of(.heartRate, samples)
            let workouts = Self.of(.workouts, samples)
            #expect(readings.allSatisfy { $0.deviceName == "Apple Watch" && $0.startMs == $0.endMs && (38...205).contains($0.value) })
            #expect(readings.allSatisfy { $0.value == $0.value.rounded() })
            if !readings.isEmpty { perWornDay.append(readings.count) }
            for (a, b) in zip(readings, readings.dropFirst()) {
                if workouts.contains(where: { $0.startMs <= a.startMs && b.startMs < $0.endMs }) {
                    inWorkout.append(b.startMs - a.startMs)
                } else {
                    outside.append(b.startMs - a.startMs)
                }
            }
        }
        #expect(inWorkout.count > 1_000)
        #expect(inWorkout.allSatisfy { (20_000...40_000).contains($0) })
        let typical = outside.sorted()[outside.count / 2]
        #expect((300_000...900_000).contains(typical), "median gap outside workouts \(typical) ms")
        let median = perWornDay.sorted()[perWornDay.count / 2]
        #expect((120...400).contains(median), "\(median) readings on a median day with the Watch")
    }

    @Test("workouts: a few a week, value = duration, details in the importer's layout with totals from the samples inside")
    func workoutDetails() throws {
        let days = Self.days(CivilDate(year: 2024, month: 1, day: 1)...CivilDate(year: 2024, month: 6, day: 30))
        let all = days.flatMap(\.samples)
        let workouts = Self.of(.workouts, all)
        let perWeek = Double(workouts.count) / (Double(days.count) / 7)
        #expect(perWeek > 1.5 && perWeek < 6, "\(perWeek) workouts a week")
        var activities = Set<String>()
        for w in workouts {
            #expect(w.unit == "s" && w.value == Double(w.endMs - w.startMs) / 1000 && w.deviceName == "Apple Watch")
            let text = try #require(w.details)
            // The importer's member order (WorkoutDecoder): head, statistics, events, metadata.
            let keys = Self.keys(text)
            let head = keys.prefix { $0 != "statistics" }
            #expect(["activityType", "duration"] == Array(head.prefix(2)))
            #expect(head.dropFirst(2) == ["totalDistance", "totalDistanceUnit", "totalEnergyBurned", "totalEnergyBurnedUnit"][...]
                    || head.dropFirst(2) == ["totalEnergyBurned", "totalEnergyBurnedUnit"][...])
            #expect(keys.last == "metadata")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let activity = try #require(object["activityType"] as? String)
            activities.insert(activity)
            #expect(object["duration"] as? Double == w.value)
            #expect(object["metadata"] as? [[String]] == [["HKIndoorWorkout", activity.hasSuffix("Yoga") || activity.hasSuffix("Training") ? "1" : "0"],
                                                           ["HKTimeZone", "Europe/Berlin"]])

            func inside(_ type: GeneratedType) -> [HealthSample] {
                Self.of(type, all).filter { $0.deviceName == "Apple Watch" && $0.startMs >= w.startMs && $0.endMs <= w.endMs }
            }
            let energy = inside(.activeEnergy).reduce(0) { $0 + $1.value }
            #expect(abs((object["totalEnergyBurned"] as? Double ?? -1) - energy) < 0.001)
            #expect(object["totalEnergyBurnedUnit"] as? String == "kcal")
            let statistics = try #require(object["statistics"] as? [[String: Any]])
            let types = statistics.compactMap { $0["type"] as? String }
            #expect(types == types.sorted())
            for statistic in statistics {
                #expect(statistic["startDate"] as? String == ISO8601Millis.format(w.startMs))
                #expect(statistic["endDate"] as? String == ISO8601Millis.format(w.endMs))
            }
            let beats = inside(.heartRate).map(\.value)
            let heart = try #require(statistics.first { $0["type"] as? String == GeneratedType.heartRate.sampleType.rawValue })
            #expect(heart["minimum"] as? Double == beats.min() && heart["maximum"] as? Double == beats.max())
            #expect(abs((heart["average"] as? Double ?? 0) - beats.reduce(0, +) / Double(beats.count)) < 0.001)
            #expect(Array(Self.keys(text).drop { $0 != "statistics" }.dropFirst().prefix(7))
                    == ["type", "startDate", "endDate", "sum", "unit", "type", "startDate"])

            if activity.hasSuffix("Running") || activity.hasSuffix("Walking") {
                let km = inside(.distance).reduce(0) { $0 + $1.value }
                let total = try #require(object["totalDistance"] as? Double)
                #expect(abs(total - km) < 0.00001)
                let steps = try #require(statistics.first { $0["type"] as? String == GeneratedType.steps.sampleType.rawValue })
                #expect(steps["sum"] as? Double == inside(.steps).reduce(0) { $0 + $1.value })
                let events = object["events"] as? [[String: Any]] ?? []
                #expect(events.count == Int(total), "one segment per full kilometre of \(total)")
                for event in events {
                    #expect(event["type"] as? String == "HKWorkoutEventTypeSegment")
                    let date = try #require((event["date"] as? String).flatMap { ISO8601Millis.parse($0) })
                    #expect(date >= w.startMs && date < w.endMs)
                    #expect((150...1_200).contains(event["duration"] as? Double ?? 0))
                }
            }
        }
        #expect(activities.isSuperset(of: ["HKWorkoutActivityTypeRunning", "HKWorkoutActivityTypeWalking", "HKWorkoutActivityTypeCycling"]))
    }

    /// The object keys of a JSON text, in order.
    static func keys(_ json: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: #""([A-Za-z]+)":"#)
        return regex.matches(in: json, range: NSRange(json.startIndex..., in: json)).map {
            String(json[Range($0.range(at: 1), in: json)!])
        }
    }

    @Test("sleep: nightly stages back to back inside InBed, HealthKit's codes, stages from watchOS 9, unspecified before")
    func sleepStages() throws {
        for (range, codes) in [
            (CivilDate(year: 2021, month: 3, day: 1)...CivilDate(year: 2021, month: 4, day: 15), Set([0, 1])),
            (CivilDate(year: 2024, month: 3, day: 1)...CivilDate(year: 2024, month: 4, day: 15), Set([0, 2, 3, 4, 5])),
        ] {
            let sleep = Self.days(range, seed: 11, types: [.sleep]).flatMap(\.samples)
            #expect(Set(sleep.map { Int($0.value) }) == codes)
            #expect(sleep.allSatisfy { $0.unit == "" && $0.deviceName == "Apple Watch" })
            // The nights that end inside the range (the last one's stages after midnight belong to the day after it).
            let end = EuropeBerlinTime.utcRangeMs(of: range.upperBound).upperBound
            let beds = sleep.filter { $0.value == 0 && $0.endMs <= end }
            #expect(beds.count > range.count / 2, "\(beds.count) nights tracked of \(range.count)")
            for bed in beds {
                let night = sleep.filter { $0.value != 0 && $0.startMs >= bed.startMs && $0.endMs <= bed.endMs }
                #expect(!night.isEmpty)
                let hours = Double(bed.endMs - bed.startMs) / 3_600_000
                #expect(hours > 5 && hours < 13, "\(hours) h in bed")
                if codes.contains(3) {
                    // Stages tile the night without a gap.
                    #expect(zip(night, night.dropFirst()).allSatisfy { $0.endMs == $1.startMs })
                    #expect(night.contains { $0.value == 4 } && night.contains { $0.value == 5 })
                }
            }
        }
    }

    @Test("The night across the spring clock change is an hour shorter on the clock, not in UTC; offsets switch at 01:00 UTC")
    func sleepAcrossClockChange() throws {
        let change = CivilDate(year: 2024, month: 3, day: 31)
        let sleep = Self.days(change.advanced(by: -1)...change, seed: 2, types: [.sleep, .heartRate]).flatMap(\.samples)
        let switchMs = (Int64(change.daysSinceEpoch) * 86_400 + 3600) * 1000
        let across = sleep.filter { $0.startMs < switchMs && $0.endMs > switchMs - 3_600_000 }
        #expect(!sleep.isEmpty)
        for s in sleep { #expect(s.utcOffsetSeconds == (s.startMs < switchMs ? 3600 : 7200)) }
        // Heart rate through the night, if it was tracked, does not stop at the change.
        if !across.isEmpty {
            #expect(sleep.contains { $0.type == .heartRate && $0.startMs >= switchMs && $0.startMs < switchMs + 3_600_000 })
        }
    }

    @Test("HRV: 2–5 one-minute SDNN readings a day at rest with their beats as {\"beats\":[{\"bpm\":…,\"time\":\"…Z\"}]}")
    func hrvBeats() throws {
        let days = Self.days(CivilDate(year: 2024, month: 7, day: 1)...CivilDate(year: 2024, month: 7, day: 31), types: [.heartRateVariability])
        let readings = days.flatMap(\.samples)
        #expect(days.allSatisfy { $0.samples.count <= 5 })
        #expect(readings.count > 31 * 2)
        for r in readings {
            #expect(r.endMs - r.startMs == 60_000 && r.unit == "ms" && r.value > 5 && r.value < 250)
            let text = try #require(r.details)
            #expect(text.hasPrefix(#"{"beats":[{"bpm":"#))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let beats = try #require(object["beats"] as? [[String: Any]])
            #expect(beats.count >= 25 && beats.count <= 90)
            for beat in beats {
                #expect(beat.keys.sorted() == ["bpm", "time"])
                let bpm = try #require(beat["bpm"] as? Double)
                #expect(bpm >= 35 && bpm <= 110 && bpm == bpm.rounded())
                let time = try #require(beat["time"] as? String)
                #expect(time.hasSuffix("Z") && time.count == 24)
                let at = try #require(ISO8601Millis.parse(time))
                #expect(at >= r.startMs && at < r.endMs)
            }
        }
    }

    @Test("energy, flights, mindful: Watch energy over the waking day, iPhone flights on its steps, mindful now and then")
    func otherRates() throws {
        let days = Self.days(CivilDate(year: 2024, month: 9, day: 1)...CivilDate(year: 2024, month: 11, day: 30), types: [.activeEnergy, .flights, .mindful, .steps])
        var energyDays: [Double] = []
        var mindfulDays = 0
        for (_, samples) in days {
            let energy = Self.of(.activeEnergy, samples)
            #expect(energy.allSatisfy { $0.deviceName == "Apple Watch" && $0.value > 0 && $0.unit == "kcal" })
            #expect(zip(energy, energy.dropFirst()).allSatisfy { $0.endMs <= $1.startMs }, "energy chunks never overlap")
            if !energy.isEmpty { energyDays.append(energy.reduce(0) { $0 + $1.value }) }
            let phoneSteps = Set(Self.of(.steps, samples).filter { $0.sourceName == "iPhone" }.map { "\($0.startMs)-\($0.endMs)" })
            for f in Self.of(.flights, samples) {
                #expect(f.deviceName == "iPhone" && (1...3).contains(f.value) && phoneSteps.contains("\(f.startMs)-\(f.endMs)"))
            }
            let mindful = Self.of(.mindful, samples)
            #expect(mindful.count <= 1 && mindful.allSatisfy { $0.value == 0 && $0.endMs - $0.startMs <= 11 * 60_000 })
            mindfulDays += mindful.count
        }
        let median = energyDays.sorted()[energyDays.count / 2]
        #expect((250...1_500).contains(median), "\(median) kcal of active energy on a median day")
        #expect((3...30).contains(mindfulDays), "\(mindfulDays) mindful sessions in 91 days")
        #expect(days.flatMap(\.samples).contains { $0.type == GeneratedType.flights.sampleType })
    }

    @Test("The seed profile records steps only: other types yield nothing")
    func seedProfileStepsOnly() {
        let range = CivilDate(year: 2024, month: 1, day: 1)...CivilDate(year: 2024, month: 3, day: 31)
        let steps = Array(SampleGenerator(profile: .seed, seed: 1, days: range)).flatMap { $0 }
        let all = Array(SampleGenerator(profile: .seed, seed: 1, days: range, types: Self.all)).flatMap { $0 }
        let none = Array(SampleGenerator(profile: .seed, seed: 1, days: range, types: [.heartRate])).flatMap { $0 }
        #expect(GeneratorProfile.seed.types == [.steps])
        #expect(steps == all)
        #expect(none.isEmpty)
    }

    // MARK: - Names

    @Test("--types names: short names, HealthKit names, all, lists; unknown names are refused by name", arguments: [
        ("steps", [GeneratedType.steps]), ("StepCount", [.steps]), ("heart-rate,SLEEP", [.heartRate, .sleep]),
        ("HKWorkoutTypeIdentifier", [.workouts]), ("Workout", [.workouts]), ("hrv, distance", [.heartRateVariability, .distance]),
        ("HeartRateVariabilitySDNN", [.heartRateVariability]), ("all", GeneratedType.allCases),
    ])
    func names(_ text: String, _ expected: [GeneratedType]) throws {
        #expect(try GeneratedType.parseList(text).get() == Set(expected))
    }

    @Test("An unknown --types name is refused, naming it and the known names", arguments: ["bogus", "steps,,sleep", "", "steps,weight"])
    func unknownNames(_ text: String) {
        guard case .failure(let error) = GeneratedType.parseList(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(error.description.contains("heart-rate"))
        #expect(error.description.contains("'\(text.split(separator: ",", omittingEmptySubsequences: false).first { GeneratedType(name: $0) == nil } ?? "")'"))
    }
}
