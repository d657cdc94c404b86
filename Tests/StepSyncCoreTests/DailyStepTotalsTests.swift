import DailyReference
import Foundation
import StepSyncCore
import Testing

/// An instant from ISO-8601 text with its offset: `t("2024-05-11T10:00+02:00")`.
func t(_ text: String) -> Int64 {
    guard let ms = ISO8601Millis.parse(text) else { fatalError("bad instant \(text)") }
    return ms
}

/// A sample from local ISO-8601 texts.
func sample(_ start: String, _ end: String, _ value: Double, _ device: String?) -> DailyStepTotals.Sample {
    DailyStepTotals.Sample(startMs: t(start), endMs: t(end), value: value, deviceName: device)
}

@Suite("Daily step totals: the rule on hand-made cases, checked against the brute-force reference")
struct DailyStepTotalsTests {
    /// The totals of `samples` (sorted by start, stable) in whole steps per day, after checking that the sweep's
    /// millionths equal the reference's exactly.
    func totals(_ samples: [DailyStepTotals.Sample], from: String, to: String? = nil, tz: String = "Europe/Berlin",
                priority: [String] = ["Apple Watch", "iPhone"], grainMs: Int64 = Milliseconds.minute,
                sourceLocation: SourceLocation = #_sourceLocation) throws -> [Int64] {
        let sorted = samples.enumerated().sorted { ($0.element.startMs, $0.offset) < ($1.element.startMs, $1.offset) }
            .map(\.element)
        let dailyCase = DailyCase(samples: sorted, from: CivilDate(iso: from)!, to: CivilDate(iso: to ?? from)!,
                                  timeZoneName: tz, priority: priority, grainMs: grainMs)
        let result = try DailyStepTotals.compute(sorted, request: dailyCase.request())
        #expect(result.days.map(\.microSteps) == dailyCase.referenceMicroSteps(), sourceLocation: sourceLocation)
        #expect(result.days.map(\.date.description) == (0...dailyCase.from.distance(to: dailyCase.to)).map {
            dailyCase.from.advanced(by: $0).description
        }, sourceLocation: sourceLocation)
        #expect(result.timeZoneName == tz, sourceLocation: sourceLocation)
        return result.days.map(\.steps)
    }

    @Test("an iPhone walk overlapping a Watch walk counts the Watch whole and the iPhone only where the Watch is silent")
    func overlappingPhoneAndWatch() throws {
        let samples = [
            sample("2024-05-11T10:00+02:00", "2024-05-11T10:10+02:00", 600, "Apple Watch"),
            sample("2024-05-11T10:05+02:00", "2024-05-11T10:20+02:00", 1_200, "iPhone"),
        ]
        // Watch 600 + iPhone 1,200 × 10/15 min = 800; a naive sum would say 1,800.
        #expect(try totals(samples, from: "2024-05-11") == [1_400])
        // The other way round: iPhone 1,200 + Watch 600 × 5/10 min = 300.
        #expect(try totals(samples, from: "2024-05-11", priority: ["iPhone", "Apple Watch"]) == [1_500])
    }

    @Test("a Watch sample inside a long iPhone sample takes its minutes out of the iPhone's share")
    func watchInsidePhone() throws {
        let samples = [
            sample("2024-05-11T10:00+02:00", "2024-05-11T11:00+02:00", 600, "iPhone"),
            sample("2024-05-11T10:20+02:00", "2024-05-11T10:30+02:00", 50, "Apple Watch"),
        ]
        #expect(try totals(samples, from: "2024-05-11") == [550])
    }

    @Test("samples across local midnight are split by time on each side, and the Watch still wins on both")
    func acrossMidnight() throws {
        let samples = [
            sample("2024-05-11T23:30+02:00", "2024-05-12T00:30+02:00", 1_000, "iPhone"),
            sample("2024-05-11T23:50+02:00", "2024-05-12T00:10+02:00", 200, "Apple Watch"),
        ]
        // Each day: Watch 100 + iPhone 1,000 × 20/60 min = 333.33…
        #expect(try totals(samples, from: "2024-05-11", to: "2024-05-12") == [433, 433])
        // Midnight in UTC is not midnight in Berlin: the same samples in UTC fall on 11 May only, 866.67 rounded once.
        #expect(try totals(samples, from: "2024-05-11", to: "2024-05-12", tz: "UTC") == [867, 0])
    }

    @Test("a steady walk over Berlin's spring change has a 23-hour day, over the autumn change a 25-hour day",
          arguments: [
            ("2024-03-30T12:00+01:00", "2024-04-01T12:00+02:00", "2024-03-30", [Int64(1_200), 2_300, 1_200]),
            ("2024-10-26T12:00+02:00", "2024-10-28T12:00+01:00", "2024-10-26", [Int64(1_200), 2_500, 1_200]),
          ])
    func berlinDaylightSaving(start: String, end: String, from: String, expected: [Int64]) throws {
        let hours = Double(t(end) - t(start)) / Double(Milliseconds.hour)
        let walk = sample(start, end, 100 * hours, "iPhone")  // 100 steps an hour
        #expect(try totals([walk], from: from, to: CivilDate(iso: from)!.advanced(by: 2).description) == expected)
    }

    @Test("New York's changes fall on other dates and other UTC hours than Berlin's",
          arguments: [
            ("2024-03-09T12:00-05:00", "2024-03-11T12:00-04:00", "2024-03-09", [Int64(1_200), 2_300, 1_200]),
            ("2024-11-02T12:00-04:00", "2024-11-04T12:00-05:00", "2024-11-02", [Int64(1_200), 2_500, 1_200]),
          ])
    func newYorkDaylightSaving(start: String, end: String, from: String, expected: [Int64]) throws {
        let hours = Double(t(end) - t(start)) / Double(Milliseconds.hour)
        let walk = sample(start, end, 100 * hours, "iPhone")
        let to = CivilDate(iso: from)!.advanced(by: 2).description
        #expect(try totals([walk], from: from, to: to, tz: "America/New_York") == expected)
    }

    @Test("a zone 5:30 ahead of UTC and one 5:45 ahead split a walk at their own midnight")
    func halfAndQuarterHourZones() throws {
        // 23:30–00:30 in Kolkata (+05:30): half on each day.
        let kolkata = sample("2024-05-11T18:00Z", "2024-05-11T19:00Z", 1_000, "iPhone")
        #expect(try totals([kolkata], from: "2024-05-11", to: "2024-05-12", tz: "Asia/Kolkata") == [500, 500])
        // 23:45–00:15 in Kathmandu (+05:45).
        let kathmandu = sample("2024-05-11T18:00Z", "2024-05-11T18:30Z", 1_000, "iPhone")
        #expect(try totals([kathmandu], from: "2024-05-11", to: "2024-05-12", tz: "Asia/Kathmandu",
                           grainMs: 15 * Milliseconds.minute) == [500, 500])
        // Lord Howe Island moves its clocks by 30 minutes: 2024-04-07 lasts 24.5 hours.
        let lordHowe = sample("2024-04-06T12:00+11:00", "2024-04-08T12:00+10:30", 100 * 48.5, "iPhone")
        #expect(try totals([lordHowe], from: "2024-04-06", to: "2024-04-08", tz: "Australia/Lord_Howe",
                           grainMs: 30 * Milliseconds.minute) == [1_200, 2_450, 1_200])
    }

    @Test("a zero-length sample counts whole unless a higher-ranked sample covers its instant; it never hides anything")
    func zeroLength() throws {
        let samples = [
            sample("2024-05-11T09:00+02:00", "2024-05-11T09:00+02:00", 20, "Garmin"),        // alone: counts
            sample("2024-05-11T10:00+02:00", "2024-05-11T10:00+02:00", 40, "iPhone"),        // at the Watch's start: hidden
            sample("2024-05-11T10:00+02:00", "2024-05-11T10:10+02:00", 600, "Apple Watch"),
            sample("2024-05-11T10:05+02:00", "2024-05-11T10:05+02:00", 50, "iPhone"),        // inside: hidden
            sample("2024-05-11T10:05+02:00", "2024-05-11T10:05+02:00", 30, "Apple Watch"),   // same rank: counts
            sample("2024-05-11T10:10+02:00", "2024-05-11T10:10+02:00", 70, "iPhone"),        // at the Watch's end: counts
            sample("2024-05-11T10:55+02:00", "2024-05-11T11:05+02:00", 100, "iPhone"),
            sample("2024-05-11T11:00+02:00", "2024-05-11T11:00+02:00", 10, "Apple Watch"),   // hides nothing
        ]
        #expect(try totals(samples, from: "2024-05-11") == [20 + 600 + 30 + 70 + 100 + 10])
    }

    @Test("a zero-length sample is hidden by a higher-ranked sample starting at its instant whichever comes first")
    func zeroLengthTieOrder() throws {
        let zero = sample("2024-05-11T12:00+02:00", "2024-05-11T12:00+02:00", 40, "iPhone")
        let watch = sample("2024-05-11T12:00+02:00", "2024-05-11T12:10+02:00", 600, "Apple Watch")
        #expect(try totals([zero, watch], from: "2024-05-11") == [600])
        #expect(try totals([watch, zero], from: "2024-05-11") == [600])
    }

    @Test("a zero-length sample at local midnight belongs to the day that starts there")
    func zeroLengthAtMidnight() throws {
        let samples = [sample("2024-05-12T00:00+02:00", "2024-05-12T00:00+02:00", 25, nil)]
        #expect(try totals(samples, from: "2024-05-11", to: "2024-05-12") == [0, 25])
        // And outside the requested days it is not counted.
        #expect(try totals(samples, from: "2024-05-11") == [0])
    }

    @Test("priority names match device names ignoring case")
    func caseInsensitivePriority() throws {
        let samples = [
            sample("2024-05-11T10:00+02:00", "2024-05-11T10:10+02:00", 600, "Apple Watch"),
            sample("2024-05-11T10:05+02:00", "2024-05-11T10:20+02:00", 1_200, "IPHONE"),
        ]
        #expect(try totals(samples, from: "2024-05-11", priority: ["apple WATCH", "iphone"]) == [1_400])
        #expect(try totals(samples, from: "2024-05-11", priority: ["iPhone", "apple watch"]) == [1_500])
    }

    @Test("unlisted devices and samples without a device name share the lowest rank: they hide neither each other nor anyone")
    func unlistedSources() throws {
        let samples = [
            sample("2024-05-11T10:00+02:00", "2024-05-11T10:10+02:00", 100, "Garmin"),
            sample("2024-05-11T10:05+02:00", "2024-05-11T10:15+02:00", 100, nil),
            sample("2024-05-11T10:05+02:00", "2024-05-11T10:15+02:00", 100, "Oura"),
        ]
        #expect(try totals(samples, from: "2024-05-11") == [300])
        // An iPhone sample covering them all hides them all (rank 1 above the shared rank 2).
        let phone = sample("2024-05-11T10:00+02:00", "2024-05-11T10:20+02:00", 200, "iPhone")
        #expect(try totals(samples + [phone], from: "2024-05-11") == [200])
        // Listing Garmin first puts it above the iPhone, which then counts only 10:10–10:20 (100 of its 200).
        #expect(try totals(samples + [phone], from: "2024-05-11", priority: ["Garmin", "iPhone"]) == [200])
    }

    @Test("samples of the same rank never hide each other")
    func sameRank() throws {
        let samples = [
            sample("2024-05-11T10:00+02:00", "2024-05-11T10:10+02:00", 300, "Apple Watch"),
            sample("2024-05-11T10:00+02:00", "2024-05-11T10:10+02:00", 300, "apple watch"),
            sample("2024-05-11T10:05+02:00", "2024-05-11T10:08+02:00", 90, "Apple Watch"),
            sample("2024-05-11T10:00+02:00", "2024-05-11T10:30+02:00", 900, "iPhone"),
        ]
        // The three Watch samples count whole; the iPhone only 10:10–10:30 (600 of 900).
        #expect(try totals(samples, from: "2024-05-11") == [690 + 600])
    }

    @Test("three ranks nest: the Watch hides the iPhone, which hides the Garmin, which counts where both are silent")
    func threeRanks() throws {
        let samples = [
            sample("2024-05-11T10:00+02:00", "2024-05-11T11:00+02:00", 600, "Garmin"),      // 10 a minute
            sample("2024-05-11T10:10+02:00", "2024-05-11T10:40+02:00", 600, "iPhone"),      // 20 a minute
            sample("2024-05-11T10:20+02:00", "2024-05-11T10:30+02:00", 300, "Apple Watch"), // 30 a minute
        ]
        // Garmin 30 min × 10 = 300, iPhone 20 min × 20 = 400, Watch 300.
        #expect(try totals(samples, from: "2024-05-11") == [1_000])
    }

    @Test("a sample starting before the first day and ending after the last counts only its part inside them")
    func longerThanTheRequest() throws {
        let samples = [sample("2024-05-10T12:00+02:00", "2024-05-13T12:00+02:00", 7_200, "iPhone")]  // 100 an hour
        #expect(try totals(samples, from: "2024-05-11", to: "2024-05-12") == [2_400, 2_400])
        #expect(try totals(samples, from: "2024-05-12") == [2_400])
    }

    @Test("every day of the request is answered, those without samples with 0")
    func emptyDays() throws {
        #expect(try totals([], from: "2024-05-11", to: "2024-05-14") == [0, 0, 0, 0])
        let one = [sample("2024-05-13T08:00+02:00", "2024-05-13T08:01+02:00", 7, "iPhone")]
        #expect(try totals(one, from: "2024-05-11", to: "2024-05-14") == [0, 0, 7, 0])
    }

    @Test("a day's total is rounded to the nearest step, halves up, after adding the exact shares")
    func rounding() throws {
        // One step over 23:00–01:00: half a step on each day rounds up to 1 on each.
        let half = [sample("2024-05-11T23:00+02:00", "2024-05-12T01:00+02:00", 1, "iPhone")]
        let days = try DailyStepTotals.compute(half, request: DailyStepsRequest(
            from: CivilDate(iso: "2024-05-11")!, to: CivilDate(iso: "2024-05-12")!, timeZoneName: "Europe/Berlin"))
        #expect(days.days.map(\.microSteps) == [500_000, 500_000])
        #expect(days.days.map(\.steps) == [1, 1])
        // Three thirds of a step add up to 1 (0.999999 before rounding), not to 0 + 0 + 0.
        let thirds = (0..<3).map { i in
            DailyStepTotals.Sample(startMs: t("2024-05-11T10:00Z") + Int64(i) * Milliseconds.hour,
                                   endMs: t("2024-05-11T10:00Z") + Int64(i) * Milliseconds.hour + 3 * Milliseconds.minute,
                                   value: 1.0 / 3.0, deviceName: "iPhone")
        }
        #expect(try totals(thirds, from: "2024-05-11") == [1])
        #expect(DailyStepsResult.Day(date: CivilDate(year: 2024, month: 5, day: 11), microSteps: 1_499_999).steps == 1)
    }
}

@Suite("Daily step totals: input the sweep refuses")
struct DailyStepTotalsInputTests {
    let request = try! DailyStepsRequest(from: CivilDate(year: 2024, month: 5, day: 11),
                                         to: CivilDate(year: 2024, month: 5, day: 11), timeZoneName: "Europe/Berlin")

    @Test("samples out of start order are refused with both instants named")
    func outOfOrder() throws {
        let samples = [sample("2024-05-11T10:00Z", "2024-05-11T10:01Z", 5, "iPhone"),
                       sample("2024-05-11T09:00Z", "2024-05-11T09:01Z", 5, "iPhone")]
        let error = try #require(throws: DailyStepsError.self) { try DailyStepTotals.compute(samples, request: request) }
        #expect(error.kind == "samples_out_of_order")
        #expect(error.description == "step samples must come in start order: 2024-05-11T09:00:00.000Z came after 2024-05-11T10:00:00.000Z")
    }

    @Test("an invalid sample is refused with SampleValidation's problem",
          arguments: [(Double.nan, "field \"value\" is not a finite number"),
                      (-1, "field \"value\" -1.0 is negative for a cumulative type"),
                      (2_000_000, "field \"value\" 2000000.0 is over the limit of 1000000 steps")])
    func invalidValue(value: Double, problem: String) throws {
        let samples = [DailyStepTotals.Sample(startMs: t("2024-05-11T10:00Z"), endMs: t("2024-05-11T10:01Z"),
                                              value: value, deviceName: nil)]
        let error = try #require(throws: DailyStepsError.self) { try DailyStepTotals.compute(samples, request: request) }
        #expect(error.kind == "invalid_sample")
        #expect(error.description == "a step sample is invalid: \(problem)")
    }

    @Test("a sample ending before it starts is refused")
    func endBeforeStart() throws {
        let samples = [sample("2024-05-11T10:01Z", "2024-05-11T10:00Z", 5, "iPhone")]
        let error = try #require(throws: DailyStepsError.self) { try DailyStepTotals.compute(samples, request: request) }
        #expect(error.description == "a step sample is invalid: field \"endDate\" is before startDate")
    }

    @Test("samples wholly outside the days change nothing, even a Watch sample ending at the first midnight")
    func outsideTheSpan() throws {
        let samples = [
            sample("2024-05-10T23:00+02:00", "2024-05-11T00:00+02:00", 500, "Apple Watch"),
            sample("2024-05-10T23:30+02:00", "2024-05-11T00:30+02:00", 600, "iPhone"),
            sample("2024-05-12T00:00+02:00", "2024-05-12T01:00+02:00", 900, "Apple Watch"),
        ]
        #expect(try DailyStepTotals.compute(samples, request: request).days.map(\.steps) == [300])
    }
}
