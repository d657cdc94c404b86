import Foundation
import StepSyncCore
import StepSyncSink
import StepSyncStore
import StepSyncTestSupport
import Testing

/// Headless Chromium (Debian's `chromium`; `.ci/run` installs it), found on the usual paths or `CHROMIUM`.
enum Chromium {
    static let path: String? = {
        let candidates = [ProcessInfo.processInfo.environment["CHROMIUM"], "/usr/bin/chromium", "/usr/bin/chromium-browser"]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Runs when Chromium is installed, and always in CI (where its absence fails the test).
    static var available: Bool { path != nil || ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Runs Chromium headless with `arguments` plus `url`; returns stdout (the DOM with `--dump-dom`).
    static func run(_ arguments: [String], url: String, profile: String) async throws -> String {
        let chromium = try #require(path, "chromium is not installed: apt-get install chromium")
        let all = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                   "--hide-scrollbars", "--user-data-dir=\(profile)", "--virtual-time-budget=10000"] + arguments + [url]
        let process = try StepSyncProcess(all, executable: chromium)
        let status = try await process.wait(timeout: .seconds(120))
        #expect(status == 0, "chromium: \(process.stderr.suffix(2_000))")
        return process.stdout
    }

    /// The values of `attribute` on the elements matching `pattern` (a regular expression over the serialised DOM).
    static func values(_ dom: String, _ pattern: String) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern)
        return regex.matches(in: dom, range: NSRange(dom.startIndex..., in: dom)).compactMap { match in
            Range(match.range(at: 1), in: dom).map { String(dom[$0]) }
        }
    }
}

/// The dashboard as a person sees it: a real sink holding a real sync of 150 days of iPhone + Watch steps, the page
/// loaded in headless Chromium, its scripts run, the rendered DOM checked against the store's own daily totals.
@Suite("the dashboard in a browser", .serialized, .enabled(if: Chromium.available, "chromium is not installed (.ci/run installs it; with CI=true the suite fails instead)"))
struct DashboardBrowserTests {
    static let token = "dash-b0ard-token"

    /// A synced history: the store, its newest step sample's UTC day, and the sink's port inside `body`.
    static func withSyncedSink(_ body: @Sendable (_ store: StepStore, _ stepCount: Int, _ port: Int, _ dir: String) async throws -> Void)
        async throws
    {
        let dir = TemporaryDirectory.uniquePath("stepsync-dashboard")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try StepStore(dataDirectory: DataDirectory(path: dir + "/data"))
        let samples = Array(SampleGenerator(profile: .realistic, seed: 15,
                                            days: CivilDate(year: 2024, month: 5, day: 1)...CivilDate(year: 2024, month: 9, day: 27),
                                            types: [.steps]).joined())
        try store.insert(samples)
        let stepCount = samples.filter { $0.type == .stepCount }.count
        let (layered, layer) = try await StepSyncProcess.run(["layer", "--data-dir", dir + "/data"])
        #expect(layered == 0, "\(layer.stderr)")
        let configuration = SinkConfiguration(port: 0, dataPath: dir + "/sink/steps.jsonl", token: token, time: .system)
        try await SinkServer.withRunningSink(configuration: configuration, logger: SinkHarness.quiet) { port in
            let (status, sync) = try await StepSyncProcess.run([
                "sync", "--data-dir", dir + "/data", "--server", "http://127.0.0.1:\(port)", "--token", token, "--json"])
            #expect(status == 0, "\(sync.stderr)")
            try await body(store, stepCount, port, dir)
        }
    }

    @Test("the page logs in with the token, shows the exact counts, one bar per day of the last 90 with the store's totals, and a screenshot is written")
    func rendered() async throws {
        let chromium = try #require(Chromium.path, "chromium is not installed: apt-get install chromium")
        _ = chromium
        try await Self.withSyncedSink { store, stepCount, port, dir in
            let newest = try #require(try store.bounds(of: .stepCount)?.last)
            let last = CivilDate(daysSinceEpoch: Int(newest / Milliseconds.day))
            let expected = try store.dailyStepTotals(try DailyStepsRequest(from: last.advanced(by: -89), to: last, timeZoneName: "UTC"))
            #expect(expected.days.count == 90)
            #expect(expected.totalSteps > 500_000) // a real history, not an empty chart

            let url = "http://127.0.0.1:\(port)/?tz=UTC#token=\(Self.token)"
            let dom = try await Chromium.run(["--window-size=1280,800", "--dump-dom"], url: url, profile: dir + "/profile")
            #expect(try Chromium.values(dom, #"<body data-state="([a-z]+)""#) == ["ready"], "\(dom.prefix(500))")
            #expect(try Chromium.values(dom, #"id="step-samples" data-value="(\d+)""#) == ["\(stepCount)"])
            #expect(try Chromium.values(dom, #"id="total-samples" data-value="(\d+)""#) == ["\(stepCount)"])
            // One mark per day, with the store's totals (the same rule the sink answers with).
            let dates = try Chromium.values(dom, #"<rect class="day"[^>]*data-date="([0-9-]+)""#)
            let steps = try Chromium.values(dom, #"<rect class="day"[^>]*data-steps="(\d+)""#)
            #expect(dates == expected.days.map(\.date.description))
            #expect(steps == expected.days.map { String($0.steps) })
            #expect(try Chromium.values(dom, #"id="range-total" data-value="(\d+)""#) == ["\(expected.totalSteps)"])
            #expect(try Chromium.values(dom, #"id="inserted" data-value="(\d+)""#) == ["\(stepCount)"])
            #expect(dom.contains(#"<tr data-type="HKQuantityTypeIdentifierStepCount">"#))
            #expect(dom.contains("steps.jsonl"))

            // What a person sees, at a desktop and at a phone's width.
            let desktop = dir + "/dashboard-1280.png", phone = dir + "/dashboard-500.png"
            _ = try await Chromium.run(["--window-size=1280,800", "--screenshot=\(desktop)"], url: url, profile: dir + "/profile")
            _ = try await Chromium.run(["--window-size=500,900", "--screenshot=\(phone)"], url: url, profile: dir + "/profile")
            for picture in [desktop, phone] {
                let bytes = try #require(FileManager.default.contents(atPath: picture), "\(picture) was not written")
                #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
                #expect(bytes.count > 20_000, "\(picture) holds \(bytes.count) bytes: a blank page?")
            }
            let keep = (NSTemporaryDirectory() as NSString).appendingPathComponent("stepsync-dashboard-screenshot.png")
            try? FileManager.default.removeItem(atPath: keep)
            try? FileManager.default.copyItem(atPath: desktop, toPath: keep)
            // At a phone's width (500 px: headless Chromium's narrowest window) the chart is drawn to fit the card:
            // 500 − 2 × 10 (page padding) − 2 × 14 (card padding) − 2 × 1 (border).
            let narrow = try await Chromium.run(["--window-size=500,900", "--dump-dom"], url: url, profile: dir + "/profile")
            let width = try #require(try Int(Chromium.values(narrow, #"<svg viewBox="0 0 (\d+) "#).first ?? ""))
            #expect(width == 450)
            #expect(try Chromium.values(narrow, #"<rect class="day"[^>]*data-date="([0-9-]+)""#).count == 90)
        }
    }

    @Test("without the token the page shows the login form and no data")
    func login() async throws {
        _ = try #require(Chromium.path, "chromium is not installed: apt-get install chromium")
        try await Self.withSyncedSink { _, _, port, dir in
            let dom = try await Chromium.run(["--window-size=1280,800", "--dump-dom"], url: "http://127.0.0.1:\(port)/?tz=UTC",
                                             profile: dir + "/profile-anonymous")
            #expect(try Chromium.values(dom, #"<body data-state="([a-z]+)""#) == ["login"])
            #expect(dom.contains(#"<section id="login" class="card">"#)) // no longer hidden
            #expect(try Chromium.values(dom, #"<rect class="day"[^>]*data-date="([0-9-]+)""#).isEmpty)
            #expect(try Chromium.values(dom, #"id="step-samples" data-value="(\d*)""#) == [""])
        }
    }
}
