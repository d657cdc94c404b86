import Foundation
import StepSyncCore
import StepSyncStore
import StepSyncTestSupport
import Testing

/// Issue 32: a store pointed at another sink does not call itself synced; `delete` reads days in `--tz`; `status`
/// counts what the store and the sink hold after a deletion (JSONL sinks; PostgreSQL in `SinkSwitchPostgresTests`).
@Suite("The ledger knows its sink; delete in --tz; status after a deletion", .serialized)
struct SinkSwitchTests {
    @Test("synced to sink A, `sync --server B` stops before sending and names both; without --server it goes to A; --resend fills B")
    func anotherSinkStops() async throws {
        let fixture = try SyncFixture(intervals: 8, samplesPerInterval: 12)
        try await SinkHarness.withSink { portA in
            try await SinkHarness.withSink { portB in
                let a = "http://127.0.0.1:\(portA)", b = "http://127.0.0.1:\(portB)"
                let base = ["sync", "--data-dir", fixture.path, "--backoff-base", "0.01", "--json"]
                let (first, firstRun) = try await StepSyncProcess.run(base + ["--server", a])
                #expect(first == 0, "\(firstRun.stderr)")
                #expect(try firstRun.json()["inserted"] as? Int == 96)
                let sinkA = try #require(try fixture.store.lastSyncTarget()?.sink)

                let (other, otherRun) = try await StepSyncProcess.run(base + ["--server", b])
                #expect(other == 1, "\(otherRun.stdout)")
                let stopped = try #require(try otherRun.json()["gaveUp"] as? String)
                #expect(stopped.contains("sink \(sinkA) at \(a)") && stopped.contains(b) && stopped.contains("--resend"),
                        "\(stopped)")
                #expect(try await SinkHarness.storedUUIDs(port: portB).count == 0)
                // Without --server the sync goes to the store's last sink: A, nothing to send, exit 0.
                let (again, againRun) = try await StepSyncProcess.run(base)
                let againSamples = try againRun.json()["samples"] as? Int
                #expect(again == 0 && againSamples == 0, "\(againRun.stderr)")

                let (status, statusRun) = try await StepSyncProcess.run(["status", "--json", "--data-dir", fixture.path])
                #expect(status == 0)
                let object = try statusRun.json()
                #expect(object["lastServer"] as? String == a && object["lastSink"] as? String == sinkA)
                #expect(object["sinkSamples"] as? Int == 96 && object["storeSamples"] as? Int == 96)

                let (resent, resentRun) = try await StepSyncProcess.run(base + ["--server", b, "--resend"])
                #expect(resent == 0, "\(resentRun.stderr)")
                #expect(try resentRun.json()["inserted"] as? Int == 96)
                #expect(try await SinkHarness.storedUUIDs(port: portB).uuids == fixture.storeUUIDs)
                #expect(try fixture.store.lastSyncTarget()?.server == b)
            }
        }
    }

    @Test("delete --from D --to D reads the day in --tz (Europe/Paris), as export does; status counts the deletion at once")
    func deleteReadsDaysInZone() async throws {
        let dir = try TemporaryDirectory.make("stepsync-delete-tz")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try StepStore(dataDirectory: DataDirectory(path: dir))
        // 2020-12-31 in Paris (UTC+1) is [2020-12-30T23:00Z, 2020-12-31T23:00Z).
        let instants: [(String, Bool)] = [
            ("2020-12-30T22:30:00.000Z", false), // 23:30 on the 30th in Paris
            ("2020-12-30T23:30:00.000Z", true),  // 00:30 on the 31st in Paris (the 30th in UTC)
            ("2020-12-31T12:00:00.000Z", true),
            ("2020-12-31T22:30:00.000Z", true),  // 23:30 on the 31st in Paris
            ("2020-12-31T23:30:00.000Z", false), // 00:30 on 1 January in Paris (the 31st in UTC)
        ]
        let samples = instants.enumerated().map { i, entry in
            let start = ISO8601Millis.parse(entry.0)!
            return HealthSample(uuid: UUID(), type: .stepCount, startMs: start, endMs: start + 60_000, utcOffsetSeconds: 3600,
                                value: Double(100 + i), unit: "count", sourceName: "iPhone", sourceBundleId: "com.apple.health")
        }
        #expect(try store.insert(samples).inserted == 5)
        #expect(try await StepSyncProcess.run(["layer", "--data-dir", dir]).status == 0)

        let (status, run) = try await StepSyncProcess.run(["delete", "--from", "2020-12-31", "--to", "2020-12-31",
                                                           "--tz", "Europe/Paris", "--yes", "--json", "--data-dir", dir])
        #expect(status == 0, "\(run.stderr)")
        #expect(try run.json()["samples"] as? Int == 3)
        var left = Set<UUID>()
        try store.forEachSamplePage(of: .stepCount, in: LayeringEngine.domain, pageSize: 100) { page in
            for sample in page { left.insert(sample.uuid) }
        }
        #expect(left == Set(zip(samples, instants).filter { !$0.1.1 }.map(\.0.uuid)))

        let (_, statusRun) = try await StepSyncProcess.run(["status", "--json", "--data-dir", dir])
        let object = try statusRun.json()
        #expect(object["storeSamples"] as? Int == 2 && object["samples"] as? Int == 5, "\(statusRun.stdout)")

        let (bad, badRun) = try await StepSyncProcess.run(["delete", "--from", "2020-12-31", "--to", "31.12.2020",
                                                           "--yes", "--data-dir", dir])
        #expect(bad == 64 && badRun.stderr.contains("--to \"31.12.2020\" is neither a date"), "\(badRun.stderr)")
    }
}
