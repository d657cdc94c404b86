import ArgumentParser
import Foundation
@testable import StepSyncCLI
import StepSyncCore
@testable import StepSyncEngine
import StepSyncStore
import Testing
import StepSyncTestSupport

/// Issue 16: human output in the user's time zone (`--tz`, `STEPSYNC_TZ`, the system's), naming it; `--json` UTC.
@Suite("Times for people in their own zone")
struct TimeZoneOutputTests {
    /// 2025-03-30T01:30:00.000Z: half an hour after Berlin's clocks went forward (01:00Z, 02:00 CET → 03:00 CEST).
    static let springForward: Int64 = 1_743_298_200_000

    @Test("--tz wins over STEPSYNC_TZ, which wins over the system zone", arguments: [
        ("Asia/Kolkata", nil, "Asia/Kolkata"),
        ("Asia/Kolkata", "America/New_York", "Asia/Kolkata"),
        (nil, "America/New_York", "America/New_York"),
    ] as [(String?, String?, String)])
    func precedence(option: String?, environment: String?, expected: String) throws {
        let zone = try DisplayTimeZone.resolve(option: option, environment: environment.map { ["STEPSYNC_TZ": $0] } ?? [:])
        #expect(zone.name == expected)
    }

    @Test("without --tz or STEPSYNC_TZ (or with it empty), the system's zone")
    func systemZone() throws {
        #expect(try DisplayTimeZone.resolve(option: nil, environment: [:]).name == TimeZone.current.identifier)
        #expect(try DisplayTimeZone.resolve(option: nil, environment: ["STEPSYNC_TZ": ""]).name == TimeZone.current.identifier)
    }

    @Test("local times follow the zone's offset and its daylight saving")
    func localTimes() throws {
        let berlin = try DisplayTimeZone.resolve(option: "Europe/Berlin", environment: [:])
        #expect(berlin.dateTime(Self.springForward) == "2025-03-30 03:30:00")  // 01:30Z is CEST already
        #expect(berlin.dateTime(Self.springForward - 3_600_000) == "2025-03-30 01:30:00")
        #expect(berlin.date(1_735_686_000_000) == "2025-01-01")  // 2024-12-31T23:00:00Z is new year in Berlin
        #expect(DisplayTimeZone.utc.date(1_735_686_000_000) == "2024-12-31")
        let kolkata = try DisplayTimeZone.resolve(option: "Asia/Kolkata", environment: [:])
        #expect(kolkata.range(TimeRange(start: 0, end: 3_600_000)) == "1970-01-01 05:30:00 → 1970-01-01 06:30:00 Asia/Kolkata")
    }

    @Test("a bad zone is refused naming where it came from, echoing at most 64 characters", arguments: [
        ("Mars/Olympus", nil, "--tz: \"Mars/Olympus\""),
        (nil, "europe/berlin", "STEPSYNC_TZ: \"europe/berlin\""),
    ] as [(String?, String?, String)])
    func badZone(option: String?, environment: String?, fragment: String) throws {
        let error = #expect(throws: ValidationError.self) {
            try DisplayTimeZone.resolve(option: option, environment: environment.map { ["STEPSYNC_TZ": $0] } ?? [:])
        }
        #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("IANA time zone") == true)
    }

    @Test("sync's summary shows a failed interval's range in the chosen zone, naming it; its --json stays UTC")
    func syncSummary() throws {
        var report = SyncReport()
        report.totalIntervals = 2
        report.totalSynced = 1
        report.synced = 1
        report.failed = 1
        report.failures = [SyncFailure(intervalId: 7, range: TimeRange(start: Self.springForward, end: Self.springForward + 600_000),
                                       attempts: 1, message: "HTTP 400: endDate")]
        let summary = StepSyncCommand.Sync.summary(report, zone: try DisplayTimeZone.resolve(option: "Europe/Berlin", environment: [:]))
        #expect(summary.contains("  #7 2025-03-30 03:30:00 → 2025-03-30 03:40:00 Europe/Berlin after 1 attempt(s): HTTP 400: endDate"),
                "\(summary)")
        let failures = (try JSONOutput.object(report) as? [String: Any])?["failures"] as? [[String: Any]]
        #expect(failures?.first?["start"] as? String == "2025-03-30T01:30:00.000Z")
        #expect(failures?.first?["end"] as? String == "2025-03-30T01:40:00.000Z")
    }

    /// A data directory holding two step samples: one at 2024-12-31T20:00:00Z (already 2025 in Tokyo), one at
    /// 2025-03-30T01:30:00Z; layered into one interval per sample (--max-steps 100).
    static func layeredDirectory() async throws -> String {
        let dir = TemporaryDirectory.uniquePath("stepsync-tz")
        let samples = [(Int64(1_735_675_200_000), 80.0), (springForward, 90.0)].map { start, value in
            HealthSample(uuid: UUID(), type: .stepCount, startMs: start, endMs: start + 60_000, value: value, unit: "count",
                         sourceName: "iPhone", sourceBundleId: "com.apple.health")
        }
        _ = try StepStore(dataDirectory: DataDirectory(path: dir)).insert(samples)
        let (status, layer) = try await StepSyncProcess.run(["layer", "--max-steps", "100", "--data-dir", dir])
        #expect(status == 0, "\(layer.stderr)")
        return dir
    }

    @Test("chunks shows local times under a header naming the zone (--tz, else STEPSYNC_TZ); --json stays UTC (real binary)")
    func chunks() async throws {
        let dir = try await Self.layeredDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, kolkata) = try await StepSyncProcess.run(["chunks", "--tz", "Asia/Kolkata", "--data-dir", dir],
                                                              environment: ["STEPSYNC_TZ": "America/New_York"])
        #expect(status == 0, "\(kolkata.stderr)")
        #expect(kolkata.stdout.contains("from (Asia/Kolkata)"), "\(kolkata.stdout)")
        #expect(kolkata.stdout.contains("2025-01-01 01:30:00"), "\(kolkata.stdout)")  // 20:00Z + 5:30
        #expect(kolkata.stdout.contains("2025-03-30 07:00:00"), "\(kolkata.stdout)")  // 01:30Z + 5:30
        let (_, newYork) = try await StepSyncProcess.run(["chunks", "--data-dir", dir], environment: ["STEPSYNC_TZ": "America/New_York"])
        #expect(newYork.stdout.contains("from (America/New_York)"), "\(newYork.stdout)")
        #expect(newYork.stdout.contains("2024-12-31 15:00:00"), "\(newYork.stdout)")  // 20:00Z − 5:00
        let (_, utcJSON) = try await StepSyncProcess.run(["chunks", "--json", "--data-dir", dir])
        let (_, zonedJSON) = try await StepSyncProcess.run(["chunks", "--json", "--tz", "Asia/Kolkata", "--data-dir", dir],
                                                           environment: ["STEPSYNC_TZ": "America/New_York"])
        #expect(zonedJSON.stdout == utcJSON.stdout)
        #expect(utcJSON.stdout.contains("\"start\":\"2024-12-31T20:00:00.000Z\""), "\(utcJSON.stdout)")
        let (badStatus, bad) = try await StepSyncProcess.run(["chunks", "--data-dir", dir], environment: ["STEPSYNC_TZ": "Mars/Olympus"])
        #expect(badStatus == 64 && bad.stderr.contains("STEPSYNC_TZ: \"Mars/Olympus\" is not an IANA time zone name"), "\(bad.stderr)")
    }

    @Test("stats shows each source's first and last day in the chosen zone, naming it (real binary)")
    func stats() async throws {
        let dir = try await Self.layeredDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, tokyo) = try await StepSyncProcess.run(["stats", "--tz", "Asia/Tokyo", "--data-dir", dir])
        #expect(status == 0, "\(tokyo.stderr)")
        #expect(tokyo.stdout.contains("first (Asia/Tokyo)"), "\(tokyo.stdout)")
        #expect(tokyo.stdout.contains("2025-01-01  2025-03-30"), "\(tokyo.stdout)")
        let (_, utc) = try await StepSyncProcess.run(["stats", "--tz", "UTC", "--data-dir", dir])
        #expect(utc.stdout.contains("2024-12-31  2025-03-30"), "\(utc.stdout)")
    }
}
