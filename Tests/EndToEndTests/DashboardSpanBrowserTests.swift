import Foundation
import StepSyncCore
import StepSyncSink
import StepSyncTestSupport
import Testing

/// Issue 32.12: each panel ends its days at its own type's newest sample (a sleep history that ended months before
/// the steps did is shown, not "no sleep recorded"); the storage card lists the five largest files and sums the rest;
/// on PostgreSQL it says why it shows no sizes instead of "total 0 B"; the header's time is in the page's zone; a
/// route no workout names is listed and drawn.
@Suite("the dashboard's panel days, storage card, clock and orphan routes in a browser", .serialized,
       .enabled(if: Chromium.available, "chromium is not installed (.ci/run installs it; with CI=true the suite fails instead)"))
struct DashboardSpanBrowserTests {
    static let token = "dash-span-token"
    /// UTC+14 all year: the page's days and clock differ from the machine's UTC.
    static let zone = "Pacific/Kiritimati"
    static let offsetMs: Int64 = 14 * Milliseconds.hour

    static let steps = Array(SampleGenerator(
        profile: .realistic, seed: 32, days: CivilDate(year: 2024, month: 6, day: 1)...CivilDate(year: 2024, month: 9, day: 28),
        types: [.steps]).joined())
    static let sleep = Array(SampleGenerator(
        profile: .realistic, seed: 33, days: CivilDate(year: 2024, month: 1, day: 1)...CivilDate(year: 2024, month: 2, day: 29),
        types: [.sleep]).joined())
    /// One sample each of twelve more types: fourteen files with steps and sleep, fifteen with the route.
    static let others: [HealthSample] = [
        ("HKQuantityTypeIdentifierBodyMass", "kg"), ("HKQuantityTypeIdentifierHeight", "m"),
        ("HKQuantityTypeIdentifierRestingHeartRate", "count/min"), ("HKQuantityTypeIdentifierRespiratoryRate", "count/min"),
        ("HKQuantityTypeIdentifierOxygenSaturation", "%"), ("HKQuantityTypeIdentifierBodyTemperature", "degC"),
        ("HKQuantityTypeIdentifierDietaryWater", "mL"), ("HKQuantityTypeIdentifierFlightsClimbed", "count"),
        ("HKQuantityTypeIdentifierAppleExerciseTime", "min"), ("HKQuantityTypeIdentifierAppleStandTime", "min"),
        ("HKQuantityTypeIdentifierWalkingHeartRateAverage", "count/min"), ("HKQuantityTypeIdentifierBodyFatPercentage", "%"),
    ].enumerated().map { i, type in
        let start = ISO8601Millis.parse("2024-08-01T08:00:00.000Z")! + Int64(i) * Milliseconds.hour
        return HealthSample(uuid: UUID(uuidString: String(format: "5BA40000-0000-4000-8000-%012X", i))!, type: SampleType(type.0),
                            startMs: start, endMs: start, value: Double(i + 1), unit: type.1, sourceName: "Scale",
                            sourceBundleId: "com.example.scale")
    }
    /// A route file no workout names (a trimmed export's): 300 points from 2024-09-20T07:00Z, in several parts.
    static let routeFile = "/workout-routes/route_2024-09-20_7.00am.gpx"
    static let orphan: [HealthSample] = {
        let start = ISO8601Millis.parse("2024-09-20T07:00:00.000Z")!
        let points = (0..<300).map { i in
            RoutePoint(timeMs: start + Int64(i) * 1000, latitude: 52.51 + Double(i) * 0.0001, longitude: 13.35 + Double(i % 17) * 0.0002,
                       elevation: 35)
        }
        let owner = RoutePart.orphanOwner(file: routeFile)
        let carrier = HealthSample(uuid: owner, type: .workout, startMs: start, endMs: start, value: 0, unit: "s",
                                   sourceName: "Apple Watch", sourceBundleId: "com.apple.health.W")
        return RoutePart.split(points, workout: owner, file: routeFile, maxDetailsBytes: 4_096).compactMap { $0.sample(of: carrier) }
    }()

    /// The page's local day of an instant.
    static func day(_ ms: Int64) -> String { CivilDate(daysSinceEpoch: Int((ms + offsetMs) / Milliseconds.day)).description }

    /// The page's hour on the clock at `date`, in ``zone``.
    static func hour(_ date: Date) -> Int { Int(((Int64(date.timeIntervalSince1970 * 1000) + offsetMs) / Milliseconds.hour) % 24) }

    @Test("JSONL: sleep months before the steps is shown over its own days; five file rows and the rest summed; the clock in the page's zone; the orphan route listed and drawn")
    func jsonl() async throws {
        _ = try #require(Chromium.path, "chromium is not installed: apt-get install chromium")
        let dir = try TemporaryDirectory.make("stepsync-dash-span")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let configuration = SinkConfiguration(port: 0, dataPath: dir + "/sink/steps.jsonl", token: Self.token, time: .system)
        try await SinkServer.withRunningSink(configuration: configuration, logger: SinkHarness.quiet) { port in
            try await SinkHarness.post(Self.steps + Self.sleep + Self.others + Self.orphan, port: port, token: Self.token)
            let url = "http://127.0.0.1:\(port)/?tz=\(Self.zone)#token=\(Self.token)"
            let before = Date()
            let dom = try await Chromium.run(["--window-size=1280,1900", "--dump-dom"], url: url, profile: dir + "/profile")
            let after = Date()
            #expect(try Chromium.values(dom, #"<body data-state="([a-z]+)""#) == ["ready"], "\(dom.prefix(500))")

            // The chart: 90 days ending on the newest step's day; the sleep panel: 90 days ending on the newest sleep's.
            let newestStep = Self.steps.map(\.startMs).max()!
            let chartTo = CivilDate(daysSinceEpoch: Int((newestStep + Self.offsetMs) / Milliseconds.day))
            #expect(dom.contains("daily steps \(chartTo.advanced(by: -89)) to \(chartTo)"), "the chart's days")
            let newestSleep = Self.day(Self.sleep.map(\.startMs).max()!)
            #expect(try Chromium.values(dom, #"id="sleep-days"[^>]* data-to="([0-9-]+)""#) == [newestSleep])
            let nights = try Chromium.values(dom, #"<g class="night" data-date="([0-9-]+)""#)
            #expect(nights.count >= 20, "\(nights)")
            #expect(nights.allSatisfy { $0 >= "2023-12-31" && $0 <= "2024-03-01" }, "\(nights)")
            #expect(!dom.contains(#"<p class="note">no sleep recorded"#))

            // Storage: the five largest files, then "10 more files" with their sum, then the total.
            #expect(try Chromium.values(dom, #"<tr class="(file)">"#).count == 5)
            #expect(try Chromium.values(dom, #"id="storage-more" data-files="(\d+)""#) == ["10"])
            #expect(dom.contains(#"id="storage-total""#))

            // The clock: "updated H:MM:SS" in UTC+14, not the machine's UTC (the browser writes hours before 10
            // with one digit: "1:17:09").
            let shown = try #require(try Chromium.values(dom, #"id="status">updated (\d{1,2}):\d\d:\d\d"#).first.flatMap { Int($0) })
            #expect(Set([Self.hour(before), Self.hour(after)]).contains(shown), "shown \(shown)")

            // The route no workout names: a row of its own (no workouts are stored), chosen and drawn whole.
            let owner = RoutePart.orphanOwner(file: Self.routeFile).uuidString
            #expect(try Chromium.values(dom, #"<tr class="workout(?: on)?" data-uuid="([0-9A-F-]+)" data-orphan="true""#) == [owner])
            #expect(dom.contains("route route_2024-09-20_7.00am.gpx"))
            #expect(try Chromium.values(dom, #"<polyline class="route-line" points="[^"]*" data-points="(\d+)""#) == ["300"])
        }
    }

    @Test("PostgreSQL: the storage card says the sizes are the database's, never \"total 0 B\"; the sleep panel ends on its own day",
          .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"))
    func postgres() async throws {
        _ = try #require(Chromium.path, "chromium is not installed: apt-get install chromium")
        let dir = try TemporaryDirectory.make("stepsync-dash-span-pg")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await PostgresHarness.withDatabase { database in
            let (added, add) = try await StepSyncProcess.run(["clients", "add", "anna", "--database", database])
            #expect(added == 0, "\(add.stderr)")
            let token = try #require(add.stdout.split(separator: "\n").last.map(String.init))
            let serve = try StepSyncProcess(["serve", "--port", "0", "--database", database])
            defer { kill(serve.pid, SIGKILL) }
            let port = try await serve.listeningPort()
            try await SinkHarness.post(Array(Self.steps.prefix(3_000)) + Self.sleep, port: port, token: token)
            let url = "http://127.0.0.1:\(port)/?tz=\(Self.zone)#token=\(token)"
            let dom = try await Chromium.run(["--window-size=1280,1900", "--dump-dom"], url: url, profile: dir + "/profile")
            #expect(try Chromium.values(dom, #"<body data-state="([a-z]+)""#) == ["ready"], "\(dom.prefix(500))")
            #expect(!dom.contains(#"id="storage-total""#) && !dom.contains(">0 B<"))
            #expect(dom.contains("sizes are the database's: its tables hold every client's samples"))
            let newestSleep = Self.day(Self.sleep.map(\.startMs).max()!)
            #expect(try Chromium.values(dom, #"id="sleep-days"[^>]* data-to="([0-9-]+)""#) == [newestSleep])
            #expect(try Chromium.values(dom, #"<g class="night" data-date="([0-9-]+)""#).count >= 20)
        }
    }
}
