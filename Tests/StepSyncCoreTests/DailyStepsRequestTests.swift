import Foundation
import StepSyncCore
import Testing

@Suite("Daily step totals: request parameters")
struct DailyStepsRequestTests {
    func error(_ body: () throws -> Any) throws -> DailyStepsError {
        try #require(throws: DailyStepsError.self) { _ = try body() }
    }

    @Test("a full request parses: dates, zone, priority with spaces around names")
    func parses() throws {
        let request = try DailyStepsRequest.parse(from: "2024-03-30", to: "2024-04-01", tz: "Europe/Berlin",
                                                  priority: " Apple Watch , iPhone,Garmin ")
        #expect(request.from == CivilDate(year: 2024, month: 3, day: 30))
        #expect(request.to == CivilDate(year: 2024, month: 4, day: 1))
        #expect(request.timeZoneName == "Europe/Berlin")
        #expect(request.timeZone.identifier == "Europe/Berlin")
        #expect(request.priority.names == ["Apple Watch", "iPhone", "Garmin"])
        #expect(request.days.count == 3)
    }

    @Test("without a priority the default is Apple Watch, then iPhone")
    func defaultPriority() throws {
        let request = try DailyStepsRequest.parse(from: "2024-03-30", to: "2024-03-30", tz: "UTC", priority: nil)
        #expect(request.priority == .default)
        #expect(request.priority.names == ["Apple Watch", "iPhone"])
        #expect(request.priority.rank(ofDevice: "APPLE WATCH") == 0)
        #expect(request.priority.rank(ofDevice: "iphone") == 1)
        #expect(request.priority.rank(ofDevice: "Garmin") == 2)
        #expect(request.priority.rank(ofDevice: nil) == 2)
    }

    @Test("bad dates are refused naming the parameter",
          arguments: ["2024-13-01", "2024-02-30", "2023-02-29", "24-01-01", "2024-1-01", "2024-01-01T00:00", "0000-01-01",
                      "", "２０２４-01-01", "2024/01/01", " 2024-01-01"])
    func badDates(text: String) throws {
        let error = try error { try DailyStepsRequest.parse(from: text, to: "2024-05-11", tz: "UTC", priority: nil) }
        #expect(error.kind == "invalid_date")
        #expect(error.parameter == "from")
        #expect(error.description == "from: \"\(text)\" is not a date YYYY-MM-DD (years 0001…9999), such as 2025-05-11")
    }

    @Test("the CLI's spelling of the parameters is used in its messages")
    func optionNames() throws {
        let error = try error {
            try DailyStepsRequest.parse(from: "2024-05-11", to: "yesterday", tz: "UTC", priority: nil, parameters: .options)
        }
        #expect(error.description.hasPrefix("--to: \"yesterday\" is not a date"))
    }

    @Test("to before from, and spans over 3,700 days, are refused naming to")
    func spans() throws {
        let before = try error { try DailyStepsRequest.parse(from: "2024-05-11", to: "2024-05-10", tz: "UTC", priority: nil) }
        #expect(before.kind == "invalid_span")
        #expect(before.description == "to: 2024-05-10 is before from 2024-05-11")
        // 2014-01-01…2024-02-17 is 3,700 days: accepted; one more day is not.
        #expect(try DailyStepsRequest.parse(from: "2014-01-01", to: "2024-02-17", tz: "UTC", priority: nil).days.count == 3_700)
        let over = try error { try DailyStepsRequest.parse(from: "2014-01-01", to: "2024-02-18", tz: "UTC", priority: nil) }
        #expect(over.description == "to: from…to spans 3701 days, over the limit of 3700")
        // The whole representable calendar is one request of one day at each end.
        #expect(try DailyStepsRequest.parse(from: "0001-01-01", to: "0001-01-01", tz: "UTC", priority: nil).days.count == 1)
        #expect(try DailyStepsRequest.parse(from: "9999-12-31", to: "9999-12-31", tz: "Pacific/Kiritimati", priority: nil)
            .days.count == 1)
    }

    @Test("unknown or malformed time zones are refused naming tz",
          arguments: ["europe/berlin", "Mars/Olympus", "", "Europe/Berlin ", "Europe/../Berlin", "Europe/Berlin\u{0}",
                      "Ä", "+02:00"])
    func badZones(text: String) throws {
        let error = try error { try DailyStepsRequest.parse(from: "2024-05-11", to: "2024-05-11", tz: text, priority: nil) }
        #expect(error.kind == "invalid_tz")
        #expect(error.parameter == "tz")
        #expect(error.description.hasPrefix("tz: \"\(text)\" is not an IANA time zone name"))
    }

    @Test("IANA zones of every shape are accepted", arguments: ["UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires",
                                                               "Asia/Kolkata", "Asia/Kathmandu", "Etc/GMT+5", "America/Port-au-Prince"])
    func goodZones(text: String) throws {
        let request = try DailyStepsRequest.parse(from: "2024-05-11", to: "2024-05-11", tz: text, priority: nil)
        #expect(request.timeZoneName == text)
    }

    @Test("bad priority lists are refused naming priority", arguments: [
        ("", "priority: is empty; name the devices to prefer, such as \"Apple Watch,iPhone\""),
        ("Apple Watch,,iPhone", "priority: name 2 is empty"),
        ("Apple Watch, ", "priority: name 2 is empty"),
        ("iPhone,Apple Watch,IPHONE", "priority: lists \"IPHONE\" twice"),
        (Array(repeating: "x", count: 33).enumerated().map { "d\($0.offset)" }.joined(separator: ","),
         "priority: lists 33 names, over the limit of 32"),
        (String(repeating: "w", count: 1_025), "priority: name 1 is 1025 bytes long, over the limit of 1024"),
    ])
    func badPriorities(text: String, message: String) throws {
        let error = try error { try DailyStepsRequest.parse(from: "2024-05-11", to: "2024-05-11", tz: "UTC", priority: text) }
        #expect(error.kind == "invalid_priority")
        #expect(error.description == message)
    }

    @Test("messages echo at most the first 64 characters of what was given")
    func shortPrefix() throws {
        let long = "2024-05-11" + String(repeating: "9", count: 5_000)
        let date = try error { try DailyStepsRequest.parse(from: long, to: "2024-05-11", tz: "UTC", priority: nil) }
        #expect(date.description.contains(String(long.prefix(64)) + "…\""))
        #expect(!date.description.contains(String(long.prefix(65))))
        #expect(date.description.count < 160)
        let zone = String(repeating: "Europe/", count: 100)
        let tz = try error { try DailyStepsRequest.parse(from: "2024-05-11", to: "2024-05-11", tz: zone, priority: nil) }
        #expect(tz.description.count < 200)
        #expect(tz.description.contains(String(zone.prefix(64)) + "…\""))
        let name = String(repeating: "Apple Watch ", count: 50)
        let twice = try error {
            try DailyStepsRequest.parse(from: "2024-05-11", to: "2024-05-11", tz: "UTC", priority: "\(name),\(name)")
        }
        #expect(twice.description == "priority: lists \"\(String(name.trimmingCharacters(in: .whitespaces).prefix(64)))…\" twice")
    }
}

@Suite("Daily step totals: local days and their UTC boundaries")
struct LocalDaysTests {
    func hours(_ zone: String, _ date: String) -> Double {
        let days = LocalDays(from: CivilDate(iso: date)!, to: CivilDate(iso: date)!, timeZone: TimeZone(identifier: zone)!)
        return Double(days.span.duration) / Double(Milliseconds.hour)
    }

    @Test("daylight-saving days last 23 and 25 hours (24.5 on Lord Howe), ordinary days 24", arguments: [
        ("Europe/Berlin", "2024-03-31", 23.0), ("Europe/Berlin", "2024-10-27", 25), ("Europe/Berlin", "2024-05-11", 24),
        ("America/New_York", "2024-03-10", 23), ("America/New_York", "2024-11-03", 25),
        ("Australia/Lord_Howe", "2024-04-07", 24.5), ("Australia/Lord_Howe", "2024-10-06", 23.5),
        ("Asia/Kolkata", "2024-03-31", 24), ("UTC", "2024-03-31", 24),
    ])
    func dayLengths(zone: String, date: String, expected: Double) {
        #expect(hours(zone, date) == expected)
    }

    @Test("a day that starts at 01:00 because its midnight was skipped, and a day that never happened")
    func strangeDays() {
        // Chile moved its clocks from 00:00 to 01:00 on 2022-09-11: the day starts at 01:00 (04:00Z) and lasts 23 h.
        let santiago = LocalDays(from: CivilDate(year: 2022, month: 9, day: 11), to: CivilDate(year: 2022, month: 9, day: 11),
                                 timeZone: TimeZone(identifier: "America/Santiago")!)
        #expect(ISO8601Millis.format(santiago.boundaries[0]) == "2022-09-11T04:00:00.000Z")
        #expect(santiago.span.duration == 23 * Milliseconds.hour)
        // Samoa skipped 2011-12-30 when it crossed the date line: that day has no length.
        let apia = LocalDays(from: CivilDate(year: 2011, month: 12, day: 29), to: CivilDate(year: 2011, month: 12, day: 31),
                             timeZone: TimeZone(identifier: "Pacific/Apia")!)
        #expect(zip(apia.boundaries, apia.boundaries.dropFirst()).map { ($1 - $0) / Milliseconds.hour } == [24, 0, 24])
        #expect(apia.index(containing: apia.boundaries[1]) == 2)
    }

    @Test("the first instant of every day from 2000 to 2030 in eight zones is Calendar's start of that day",
          arguments: ["Europe/Berlin", "America/New_York", "Asia/Kathmandu", "Australia/Lord_Howe", "America/Santiago",
                      "America/Havana", "America/Sao_Paulo", "Africa/Casablanca"])
    func matchesCalendar(zone: String) throws {
        let timeZone = TimeZone(identifier: zone)!
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let days = LocalDays(from: CivilDate(year: 2000, month: 1, day: 1), to: CivilDate(year: 2030, month: 12, day: 31),
                             timeZone: timeZone)
        var mismatches: [String] = []
        for index in 0..<days.count {
            let date = days.date(at: index)
            let noon = try #require(calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day, hour: 12)))
            let start = Int64(calendar.startOfDay(for: noon).timeIntervalSince1970 * 1000)
            if start != days.boundaries[index] { mismatches.append("\(date): \(ISO8601Millis.format(days.boundaries[index]))") }
        }
        #expect(mismatches == [])
        #expect(days.count == 11_323)
    }

    @Test("instants map to the day that holds them; outside the days to nil")
    func indexContaining() {
        let days = LocalDays(from: CivilDate(year: 2024, month: 3, day: 30), to: CivilDate(year: 2024, month: 4, day: 1),
                             timeZone: TimeZone(identifier: "Europe/Berlin")!)
        #expect(days.index(containing: t("2024-03-30T00:00+01:00") - 1) == nil)
        #expect(days.index(containing: t("2024-03-30T00:00+01:00")) == 0)
        #expect(days.index(containing: t("2024-03-31T00:00+01:00") - 1) == 0)
        #expect(days.index(containing: t("2024-03-31T00:00+01:00")) == 1)
        #expect(days.index(containing: t("2024-04-01T00:00+02:00")) == 2)
        #expect(days.index(containing: t("2024-04-02T00:00+02:00") - 1) == 2)
        #expect(days.index(containing: t("2024-04-02T00:00+02:00")) == nil)
    }
}

@Suite("Daily step totals: the JSON answer")
struct DailyStepsResultTests {
    @Test("the answer is one compact object: tz, then every day's date and whole steps")
    func json() {
        let result = DailyStepsResult(timeZoneName: "Europe/Berlin", days: [
            .init(date: CivilDate(year: 2024, month: 3, day: 31), microSteps: 1_234_500_000),
            .init(date: CivilDate(year: 2024, month: 4, day: 1), microSteps: 0),
        ])
        #expect(result.json == #"{"tz":"Europe/Berlin","from":"2024-03-31","to":"2024-04-01","unmatched":[],"days":[{"date":"2024-03-31","steps":1235},{"date":"2024-04-01","steps":0}]}"#)
        #expect(result.totalSteps == 1_235)
        #expect(DailyStepsResult(timeZoneName: "a\"b\\c\u{1}", days: []).json == #"{"tz":"a\"b\\c\u0001","from":null,"to":null,"unmatched":[],"days":[]}"#)
    }
}
