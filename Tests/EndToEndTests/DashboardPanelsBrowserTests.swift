import Foundation
import StepSyncCore
import StepSyncSink
import StepSyncTestSupport
import Testing

/// The dashboard's panels (heart rate, sleep, workouts with a route, ECG) as a person sees them: a real sink holding
/// 120 generated days of steps, heart rate, sleep and workouts, the page in headless Chromium, the rendered DOM
/// checked against the numbers worked out here from the samples posted.
@Suite("the dashboard's panels in a browser", .serialized, .enabled(if: Chromium.available, "chromium is not installed (.ci/run installs it; with CI=true the suite fails instead)"))
struct DashboardPanelsBrowserTests {
    static let token = "dash-panels-token"
    static let days = CivilDate(year: 2024, month: 6, day: 1)...CivilDate(year: 2024, month: 9, day: 28)

    static let generated: [HealthSample] = Array(SampleGenerator(
        profile: .realistic, seed: 25, days: days,
        types: [.steps, .heartRate, .sleep, .workouts, .distance, .activeEnergy]).joined())

    /// A sink with a token holding `samples` (posted in batches), its port inside `body`.
    static func withSink(_ samples: [HealthSample], _ body: @Sendable (_ port: Int, _ dir: String) async throws -> Void)
        async throws
    {
        let dir = TemporaryDirectory.uniquePath("stepsync-panels")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let configuration = SinkConfiguration(port: 0, dataPath: dir + "/sink/steps.jsonl", token: token, time: .system)
        try await SinkServer.withRunningSink(configuration: configuration, logger: SinkHarness.quiet) { port in
            try await SinkHarness.post(samples, port: port, token: token)
            try await body(port, dir)
        }
    }

    /// A number as the page writes it (JavaScript's `String` of the answer's number, rounded to a thousandth).
    static func js(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int64(rounded)) : "\(rounded)"
    }

    @Test("heart-rate band, sleep stages and the workout list render the posted numbers; screenshots are written")
    func panels() async throws {
        _ = try #require(Chromium.path, "chromium is not installed: apt-get install chromium")
        let samples = Self.generated
        // The chart's (and so the panels') default days: the 90 ending on the newest step sample's UTC day.
        let newestStep = try #require(samples.filter { $0.type == .stepCount }.map(\.startMs).max())
        let last = CivilDate(daysSinceEpoch: Int(newestStep / Milliseconds.day)), first = last.advanced(by: -89)
        let dayMs = { (date: CivilDate) in Int64(date.daysSinceEpoch) * Milliseconds.day }

        // Heart rate on a known day: min, average, max of the readings starting that UTC day.
        let hrDay = last.advanced(by: -3)
        let readings = samples.filter { $0.type == .heartRate && $0.startMs >= dayMs(hrDay) && $0.startMs < dayMs(hrDay.advanced(by: 1)) }
            .map(\.value)
        #expect(readings.count > 50)
        // Sleep on a known night (the latest of the days the Watch recorded, not the very last): the seconds asleep
        // (codes 1, 3, 4, 5) of the samples starting noon to noon.
        func night(_ evening: CivilDate) -> [HealthSample] {
            let start = dayMs(evening) + 12 * Milliseconds.hour
            return samples.filter { $0.type == .sleepAnalysis && $0.startMs >= start && $0.startMs < start + Milliseconds.day }
        }
        let evening = try #require((2...30).map { last.advanced(by: -$0) }.first { !night($0).isEmpty })
        let nightSamples = night(evening)
        let asleep = nightSamples.filter { [1, 3, 4, 5].contains(Int($0.value)) }.reduce(0) { $0 + Double($1.endMs - $1.startMs) / 1000 }
        let inBed = nightSamples.filter { $0.value == 0 }.reduce(0) { $0 + Double($1.endMs - $1.startMs) / 1000 }
        // Workouts of the 90 days, newest first, with the details' duration and distance.
        let workouts = samples.filter { $0.type == .workout && $0.startMs >= dayMs(first) && $0.startMs < dayMs(last.advanced(by: 1)) }
            .sorted { $0.startMs > $1.startMs }
        #expect(workouts.count >= 5)
        let details = workouts.map { w in
            (try? JSONSerialization.jsonObject(with: Data((w.details ?? "{}").utf8))) as? [String: Any] ?? [:]
        }
        let durations = details.map { Self.js(($0["duration"] as? NSNumber)?.doubleValue ?? -1) }
        let distances = details.map { d in (d["totalDistance"] as? NSNumber).map { Self.js($0.doubleValue * 1000) } ?? "" }
        #expect(distances.contains { !$0.isEmpty }) // runs and walks have distances

        try await Self.withSink(samples) { port, dir in
            let url = "http://127.0.0.1:\(port)/?tz=UTC#token=\(Self.token)"
            let dom = try await Chromium.run(["--window-size=1280,1900", "--dump-dom"], url: url, profile: dir + "/profile")
            #expect(try Chromium.values(dom, #"<body data-state="([a-z]+)""#) == ["ready"], "\(dom.prefix(500))")

            let day = #"<g class="hr-day" data-date="\#(hrDay)" "#
            #expect(try Chromium.values(dom, day + #"data-min="([^"]+)""#) == [Self.js(readings.min()!)])
            #expect(try Chromium.values(dom, day + #"data-min="[^"]+" data-avg="([^"]+)""#)
                == [Self.js(readings.reduce(0, +) / Double(readings.count))])
            #expect(try Chromium.values(dom, day + #"data-min="[^"]+" data-avg="[^"]+" data-max="([^"]+)""#) == [Self.js(readings.max()!)])
            #expect(try Chromium.values(dom, #"<g class="hr-day" data-date="([0-9-]+)""#).count >= 80)

            let nightTag = #"<g class="night" data-date="\#(evening)" data-asleep="([^"]+)" data-inbed="([^"]+)""#
            #expect(try Chromium.values(dom, nightTag) == [Self.js(asleep)])
            #expect(try Chromium.values(dom, #"<g class="night" data-date="[0-9-]+" data-asleep="[^"]+" data-inbed="([^"]+)""#)
                .contains(Self.js(inBed)))
            #expect(asleep > 4 * 3600, "a real night, not an empty bar")

            // Rows newest first; the chosen one is also "on".
            #expect(try Chromium.values(dom, #"<tr class="workout(?: on)?" data-uuid="([0-9A-F-]+)""#) == workouts.map(\.uuid.uuidString))
            #expect(try Chromium.values(dom, #"<tr class="workout on" data-uuid="([0-9A-F-]+)""#) == [workouts[0].uuid.uuidString])
            #expect(try Chromium.values(dom, #"<tr class="workout[^"]*" [^>]*data-duration="([^"]+)""#) == durations)
            #expect(try Chromium.values(dom, #"<tr class="workout[^"]*" [^>]*data-distance="([^"]*)""#) == distances)
            // Generated workouts name no route file: the chosen (newest) one says so without asking.
            #expect(dom.contains(#"<p class="note">no route</p>"#))
            #expect(try Chromium.values(dom, #"id="ecg-panel" (hidden)"#) == ["hidden"]) // no ECGs stored

            let picture = dir + "/panels.png"
            _ = try await Chromium.run(["--window-size=1280,1900", "--screenshot=\(picture)"], url: url, profile: dir + "/profile")
            let bytes = try #require(FileManager.default.contents(atPath: picture), "\(picture) was not written")
            #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            #expect(bytes.count > 40_000, "\(picture) holds \(bytes.count) bytes: a blank page?")
            let keep = (NSTemporaryDirectory() as NSString).appendingPathComponent("stepsync-dashboard-panels.png")
            try? FileManager.default.removeItem(atPath: keep)
            try? FileManager.default.copyItem(atPath: picture, toPath: keep)
        }
    }

    // MARK: - Route and ECG

    /// A 5 km loop of 1,234 points around Berlin's Tiergarten, a minute-long workout per 50 points.
    static func loop(start: Int64) -> [RoutePoint] {
        (0..<1_234).map { i in
            let angle = Double(i) / 1_234 * 2 * .pi
            return RoutePoint(timeMs: start + Int64(i) * 1000, latitude: 52.5145 + 0.006 * sin(angle),
                              longitude: 13.3501 + 0.011 * cos(angle) + 0.002 * sin(3 * angle), elevation: 35 + sin(angle))
        }
    }

    /// 30 s at 512 Hz of a heartbeat-like trace (a spike a second).
    static func voltages() -> [Double] {
        (0..<15_360).map { i in
            let phase = Double(i % 512) / 512
            return (phase < 0.02 ? 1_100 * sin(phase / 0.02 * .pi) : 0) + 120 * sin(phase * 2 * .pi) + Double(i % 7)
        }
    }

    @Test("""
        the chosen workout's route is one polyline of its points; the chosen ECG's trace has every voltage
        """)
    func routeAndECG() async throws {
        _ = try #require(Chromium.path, "chromium is not installed: apt-get install chromium")
        let start = ISO8601Millis.parse("2024-09-27T16:00:00.000Z")!
        let workout = HealthSample(
            uuid: UUID(uuidString: "6A1B0000-0000-4000-8000-000000000025")!, type: .workout, startMs: start,
            endMs: start + 1_234_000, value: 1_234, unit: "s", sourceName: "Apple Watch", sourceBundleId: "com.apple.health.W",
            details: #"{"activityType":"HKWorkoutActivityTypeRunning","duration":1234,"totalDistance":5.01,"totalDistanceUnit":"km","totalEnergyBurned":350,"totalEnergyBurnedUnit":"kcal","route":"/workout-routes/route_2024-09-27_6.00pm.gpx"}"#)
        let route = RoutePart.split(Self.loop(start: start), workout: workout.uuid, file: "/workout-routes/route_2024-09-27_6.00pm.gpx")
            .compactMap { $0.sample(of: workout) }
        let header = ElectrocardiogramHeader(recordedMs: start + 3 * Milliseconds.hour, utcOffsetSeconds: 7200,
                                             classification: "Sinus Rhythm", softwareVersion: "1.70", device: "Watch6,2",
                                             sampleRateHz: 512, lead: "Lead I", unit: "µV", voltageCount: 15_360)
        let ecg = ElectrocardiogramPart.split(Self.voltages(), header: header)
            .map { $0.sample(sourceName: "ECG", sourceBundleId: "com.apple.NanoHeartRhythm") }
        #expect(route.count >= 2 && ecg.count >= 2) // several parts each

        let samples = Self.generated + [workout] + route + ecg
        try await Self.withSink(samples) { port, dir in
            let url = "http://127.0.0.1:\(port)/?tz=UTC#token=\(Self.token)"
            let dom = try await Chromium.run(["--window-size=1280,1900", "--dump-dom"], url: url, profile: dir + "/profile")
            #expect(try Chromium.values(dom, #"<body data-state="([a-z]+)""#) == ["ready"], "\(dom.prefix(500))")
            // The newest workout with a route is chosen: its polyline has all 1,234 points.
            #expect(try Chromium.values(dom, #"<svg [^>]*class="route" data-uuid="([0-9A-F-]+)""#) == [workout.uuid.uuidString])
            #expect(try Chromium.values(dom, #"<polyline class="route-line" points="[^"]*" data-points="(\d+)""#) == ["1234"])
            // The ECG: rows of 10 s, every voltage drawn.
            let rows = try Chromium.values(dom, #"<polyline class="ecg-trace" points="[^"]*" data-points="(\d+)""#)
            #expect(rows == ["5120", "5120", "5120"])
            #expect(try Chromium.values(dom, #"<tr class="ecg(?: on)?" data-uuid="[0-9A-F-]+" data-samples="(\d+)""#) == ["15360"])

            let picture = dir + "/panels-route-ecg.png"
            _ = try await Chromium.run(["--window-size=1280,2000", "--screenshot=\(picture)"], url: url, profile: dir + "/profile")
            let bytes = try #require(FileManager.default.contents(atPath: picture), "\(picture) was not written")
            #expect(bytes.count > 40_000)
            let keep = (NSTemporaryDirectory() as NSString).appendingPathComponent("stepsync-dashboard-route-ecg.png")
            try? FileManager.default.removeItem(atPath: keep)
            try? FileManager.default.copyItem(atPath: picture, toPath: keep)
        }
    }
}
