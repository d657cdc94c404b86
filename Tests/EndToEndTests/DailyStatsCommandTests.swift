import ArgumentParser
import DailyReference
import Foundation
@testable import StepSyncCLI
import StepSyncCore
import StepSyncStore
import Testing
import StepSyncTestSupport

@Suite("stepsync stats --daily")
struct DailyStatsCommandTests {
    static func temporaryDirectory() -> URL {
        URL(fileURLWithPath: TemporaryDirectory.uniquePath("stepsync-daily"))
    }

    /// The `days` of `stats --daily --json` as (date, steps).
    static func days(_ process: StepSyncProcess) throws -> (tz: String?, days: [(String, Int64)]) {
        let object = try process.json()
        let days = (object["days"] as? [[String: Any]] ?? []).map {
            ($0["date"] as? String ?? "?", ($0["steps"] as? NSNumber)?.int64Value ?? -1)
        }
        return (object["tz"] as? String, days)
    }

    @Test("the real binary's JSON equals the brute-force reference on random histories (priority, zone and days as given)")
    func matchesReference() async throws {
        for seed in UInt64(7)..<UInt64(13) {
            let dir = Self.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let dailyCase = DailyCase.random(seed: seed)
            try StepStore(dataDirectory: DataDirectory(path: dir.path)).insert(dailyCase.healthSamples())
            let (status, process) = try await StepSyncProcess.run([
                "stats", "--daily", "--from", "\(dailyCase.from)", "--to", "\(dailyCase.to)", "--tz", dailyCase.timeZoneName,
                "--priority", dailyCase.priority.joined(separator: ","), "--json", "--data-dir", dir.path])
            #expect(status == 0, "\(process.stderr)")
            let answer = try Self.days(process)
            #expect(answer.tz == dailyCase.timeZoneName)
            let expected = dailyCase.referenceMicroSteps().enumerated().map {
                (dailyCase.from.advanced(by: $0.offset).description, DailyReference.steps($0.element))
            }
            #expect(answer.days.map(\.0) == expected.map(\.0), "seed \(seed)")
            #expect(answer.days.map(\.1) == expected.map(\.1), "seed \(seed): \(dailyCase)")
            // The JSON is byte for byte the one answer both the sink and the store give.
            #expect(process.stdout == (try DailyStepTotals.compute(dailyCase.samples, request: dailyCase.request())).json + "\n")
        }
    }

    @Test("without --from and --to: the 30 days ending on the newest step sample's local day; a table for people")
    func defaults() async throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try StepStore(dataDirectory: DataDirectory(path: dir.path))
        try store.insert(SampleGenerator(profile: .realistic, seed: 5,
                                         days: CivilDate(year: 2024, month: 9, day: 20)...CivilDate(year: 2024, month: 10, day: 27)).joined())
        let newest = try #require(try store.bounds(of: .stepCount)?.last)
        let (status, process) = try await StepSyncProcess.run(["stats", "--daily", "--tz", "Europe/Berlin", "--json",
                                                                "--data-dir", dir.path])
        #expect(status == 0, "\(process.stderr)")
        let answer = try Self.days(process)
        #expect(answer.days.count == 30)
        #expect(answer.days.last?.0 == EuropeBerlinTime.localDate(atUTCMs: newest).description)
        #expect(answer.days.first?.0 == EuropeBerlinTime.localDate(atUTCMs: newest).advanced(by: -29).description)
        #expect(answer.days.allSatisfy { $0.1 >= 0 } && answer.days.contains { $0.1 > 0 })
        // The same days for people: one row per day and the total.
        let (tableStatus, table) = try await StepSyncProcess.run(["stats", "--daily", "--tz", "Europe/Berlin",
                                                                   "--data-dir", dir.path])
        #expect(tableStatus == 0)
        let total = answer.days.reduce(0) { $0 + $1.1 }
        #expect(table.stdout.contains("priority: Apple Watch, iPhone"))
        #expect(table.stdout.contains("total: \(Format.number(total)) steps in 30 days"))
        for (date, steps) in answer.days {
            #expect(table.stdout.contains("\(date)  ") && table.stdout.contains(Format.number(steps)))
        }
    }

    @Test("the zone defaults to STEPSYNC_TZ, then the system's; from defaults to 29 days before to")
    func zoneDefault() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try StepStore(dataDirectory: DataDirectory(path: dir.path))
        // 2024-05-10T23:30Z is 11 May in Berlin but 10 May in New York.
        try store.insert([HealthSample(uuid: UUID(), type: .stepCount, startMs: ISO8601Millis.parse("2024-05-10T23:30:00Z")!,
                                       endMs: ISO8601Millis.parse("2024-05-10T23:31:00Z")!, value: 10, unit: "count",
                                       sourceName: "iPhone", sourceBundleId: "com.apple.health", deviceName: "iPhone")])
        let command = try #require(try StepSyncCommand.parseAsRoot(["stats", "--daily", "--data-dir", dir.path])
            as? StepSyncCommand.Stats)
        let berlin = try command.daily.request(store: store, environment: ["STEPSYNC_TZ": "Europe/Berlin"], time: .system)
        #expect(berlin.timeZoneName == "Europe/Berlin")
        #expect(berlin.to == CivilDate(year: 2024, month: 5, day: 11))
        #expect(berlin.from == CivilDate(year: 2024, month: 4, day: 12))
        let newYork = try command.daily.request(store: store, environment: ["STEPSYNC_TZ": "America/New_York"], time: .system)
        #expect(newYork.to == CivilDate(year: 2024, month: 5, day: 10))
        #expect(try command.daily.request(store: store, environment: [:], time: .system).timeZoneName == TimeZone.current.identifier)
        do {
            _ = try command.daily.request(store: store, environment: ["STEPSYNC_TZ": "Mars/Base"], time: .system)
            Issue.record("STEPSYNC_TZ=Mars/Base was accepted")
        } catch {
            #expect(StepSyncCommand.message(for: error).hasPrefix("STEPSYNC_TZ: \"Mars/Base\" is not an IANA time zone"))
        }
        // An empty store ends on today, and --from alone runs to the newest sample's day.
        let fromOnly = try #require(try StepSyncCommand.parseAsRoot(
            ["stats", "--daily", "--from", "2024-05-01", "--tz", "UTC", "--data-dir", dir.path]) as? StepSyncCommand.Stats)
        let request = try fromOnly.daily.request(store: store, time: .system)
        #expect((request.from, request.to) == (CivilDate(year: 2024, month: 5, day: 1), CivilDate(year: 2024, month: 5, day: 10)))
    }

    @Test("bad options are refused before anything runs, naming the option and echoing a short prefix", arguments: [
        (["--daily", "--from", "2024-13-01"], "--from: \"2024-13-01\" is not a date YYYY-MM-DD"),
        (["--daily", "--to", String(repeating: "9", count: 500)], "--to: \"\(String(repeating: "9", count: 64))…\" is not a date"),
        (["--daily", "--tz", "europe/berlin"], "--tz: \"europe/berlin\" is not an IANA time zone name"),
        (["--daily", "--priority", "iPhone,,Apple Watch"], "--priority: name 2 is empty"),
        (["--daily", "--from", "2024-05-11", "--to", "2024-05-10"], "--to: 2024-05-10 is before --from 2024-05-11"),
        (["--daily", "--from", "2000-01-01", "--to", "2024-05-10"], "--to: --from…--to spans 8897 days, over the limit of 3700"),
        (["--from", "2024-05-11"], "--from, --to and --priority go with --daily."),
    ])
    func badOptions(extra: [String], message: String) async throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (status, process) = try await StepSyncProcess.run(["stats"] + extra + ["--data-dir", dir.path])
        #expect(status == 64, "\(process.stderr)")
        #expect(process.stderr.contains(message), "\(process.stderr)")
        #expect(process.stdout.isEmpty)
    }
}
