import Foundation
import StepSyncCore
import StepSyncStore
import StepSyncTestSupport
import Testing

/// Issue 7: after a ten-year backfill, `layer` + `sync` move exactly what changed — new days, late back-fills inside
/// synced ranges, deletions — and the sink ends up holding exactly the store's samples.
@Suite("Incremental sync, end to end", .serialized)
struct IncrementalSyncTests {
    static func allStepUUIDs(_ store: StepStore) throws -> Set<UUID> {
        var uuids = Set<UUID>()
        try store.forEachSamplePage(of: .stepCount, in: LayeringEngine.domain, pageSize: 5_000) { page in
            for sample in page { uuids.insert(sample.uuid) }
        }
        return uuids
    }

    static func stepsync(_ arguments: [String]) async throws -> [String: Any] {
        let (status, process) = try await StepSyncProcess.run(arguments)
        #expect(status == 0, "stepsync \(arguments.joined(separator: " ")): \(process.stderr)")
        return try process.json()
    }

    @Test("ten years, then 30 new days + 500 late samples + 200 deletions: the second sync sends exactly those")
    func backfillThenChanges() async throws {
        let dir = TemporaryDirectory.uniquePath("stepsync-incremental")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let data = ["--data-dir", dir]

        try await SinkHarness.withSink { port in
            let sync = ["sync", "--server", "http://127.0.0.1:\(port)", "--concurrency", "3", "--backoff-base", "0.01", "--json"] + data

            // Backfill ten years (the seed profile keeps the debug-build test quick).
            let generated = try await Self.stepsync(["generate", "--years", "10", "--profile", "seed", "--seed", "7",
                                                     "--end", "2025-06-30", "--json"] + data)
            let backfillSamples = try #require(generated["samples"] as? Int)
            #expect(backfillSamples > 30_000)
            let firstLayer = try await Self.stepsync(["layer", "--json"] + data)
            #expect((firstLayer["intervals"] as? Int ?? 0) > 1_000)
            let firstSync = try await Self.stepsync(sync)
            #expect(firstSync["samples"] as? Int == backfillSamples)
            #expect(firstSync["inserted"] as? Int == backfillSamples)

            let store = try StepStore(dataDirectory: DataDirectory(path: dir))
            let before = try Self.allStepUUIDs(store)
            #expect(before.count == backfillSamples)

            // 1. Thirty new days after the last sample.
            let appended = try await Self.stepsync(["generate", "--append-days", "30", "--profile", "realistic", "--seed", "7", "--json"] + data)
            let newDaySamples = try #require(appended["samples"] as? Int)
            #expect(newDaySamples > 0)
            let bounds = try #require(try store.bounds(of: .stepCount))

            // 2. Five hundred late samples inside already-synced ranges (a late back-fill).
            var rng = SplitMix64(seed: 99)
            let firstStart = try #require(try store.intervals().first?.range.start)
            let late = (0..<500).map { i -> HealthSample in
                let start = firstStart + Int64(rng.next() % UInt64(bounds.last - firstStart - Milliseconds.day))
                return HealthSample(uuid: UUID(), type: .stepCount, startMs: start, endMs: start + 60_000,
                                    utcOffsetSeconds: 3600, value: Double(1 + i % 90), unit: "count",
                                    sourceName: "Late Import", sourceBundleId: "com.example.late")
            }
            #expect(try store.insert(late).inserted == 500)

            // 3. Two hundred deletions of synced samples, by uuid, through the CLI.
            let victims = Array(before.sorted { $0.uuidString < $1.uuidString }.prefix(200))
            let deleted = try await Self.stepsync(["delete", "--yes", "--json", "--uuid"] + victims.map(\.uuidString) + data)
            #expect(deleted["samples"] as? Int == 200)

            // The second layer and sync move exactly those changes.
            let secondLayer = try await Self.stepsync(["layer", "--json"] + data)
            #expect((secondLayer["appended"] as? Int ?? 0) >= 1)
            #expect((secondLayer["deltas"] as? Int ?? 0) >= 1)
            #expect(secondLayer["deletedSamples"] as? Int == 200)
            let secondSync = try await Self.stepsync(sync)
            #expect(secondSync["samples"] as? Int == newDaySamples + 500, "samples sent: only the additions")
            #expect(secondSync["inserted"] as? Int == newDaySamples + 500)
            #expect(secondSync["duplicates"] as? Int == 0, "nothing already synced is sent again")
            #expect(secondSync["deletionsSent"] as? Int == 200)
            #expect(secondSync["deleted"] as? Int == 200)
            #expect(secondSync["complete"] as? Bool == true)

            // The sink now holds exactly the store's current step samples.
            let stored = try await SinkHarness.storedUUIDs(port: port)
            let now = try Self.allStepUUIDs(store)
            #expect(now.count == backfillSamples + newDaySamples + 500 - 200)
            #expect(stored.count == now.count)
            #expect(stored.uuids == now)

            // A third run has nothing to do.
            let thirdLayer = try await Self.stepsync(["layer", "--json"] + data)
            #expect(thirdLayer["upToDate"] as? Bool == true && thirdLayer["intervals"] as? Int == 0)
            let thirdSync = try await Self.stepsync(sync)
            #expect(thirdSync["samples"] as? Int == 0 && thirdSync["deletionsSent"] as? Int == 0)
        }
    }
}

/// Issue 11, item 3: `reset` must neither forget deletions nor leave the ledger claiming what the sink lost.
@Suite("Reset keeps deletions and never over-claims, end to end", .serialized)
struct ResetEndToEndTests {
    static func stepsync(_ arguments: [String], expectStatus: Int32 = 0) async throws -> StepSyncProcess {
        let (status, process) = try await StepSyncProcess.run(arguments)
        #expect(status == expectStatus, "stepsync \(arguments.joined(separator: " ")): \(process.stderr)")
        return process
    }

    /// A fresh data directory with a year of seed-profile steps, layered and synced to the sink at `port`.
    static func syncedYear(port: Int) async throws -> (dir: String, data: [String], sync: [String]) {
        let dir = TemporaryDirectory.uniquePath("stepsync-reset")
        let data = ["--data-dir", dir]
        let sync = ["sync", "--server", "http://127.0.0.1:\(port)", "--backoff-base", "0.01", "--json"] + data
        _ = try await stepsync(["generate", "--years", "1", "--profile", "seed", "--seed", "5", "--end", "2025-06-30"] + data)
        _ = try await stepsync(["layer", "--json"] + data)
        let first = try await stepsync(sync).json()
        #expect(first["complete"] as? Bool == true && (first["inserted"] as? Int ?? 0) > 1_000)
        return (dir, data, sync)
    }

    @Test("sync, delete a day, reset, layer, sync: the sink deletes that day's samples and holds exactly the store's")
    func deletionsSurviveReset() async throws {
        try await SinkHarness.withSink { port in
            let (dir, data, sync) = try await Self.syncedYear(port: port)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let deleted = try await Self.stepsync(["delete", "--from", "2025-03-01T00:00:00.000Z", "--to",
                                                   "2025-03-02T00:00:00.000Z", "--yes", "--json"] + data).json()
            let count = try #require(deleted["samples"] as? Int)
            #expect(count > 0)
            _ = try await Self.stepsync(["reset", "--yes"] + data)
            let layered = try await Self.stepsync(["layer", "--json"] + data).json()
            #expect(layered["deletedSamples"] as? Int == count, "the reset forgot no deletion")
            let second = try await Self.stepsync(sync).json()
            #expect(second["deletionsSent"] as? Int == count && second["deleted"] as? Int == count)
            #expect(second["inserted"] as? Int == 0, "everything else was already there")

            let store = try StepStore(dataDirectory: DataDirectory(path: dir))
            let stored = try await SinkHarness.storedUUIDs(port: port)
            let now = try IncrementalSyncTests.allStepUUIDs(store)
            #expect(stored.count == now.count && stored.uuids == now)
            #expect(try store.unacknowledgedTombstones().isEmpty)

            // Another reset has no deletion left to send.
            _ = try await Self.stepsync(["reset", "--yes"] + data)
            let third = try await Self.stepsync(["layer", "--json"] + data).json()
            #expect(third["deletedSamples"] as? Int == 0)
        }
    }

    @Test("reset --remote whose answer is lost after the sink emptied: the ledger claims nothing, and layer + sync restore the sink")
    func remoteResetLostAnswer() async throws {
        try await SinkHarness.withSink { port in
            let (dir, data, sync) = try await Self.syncedYear(port: port)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            try await AnswerLossFront.withFront(sinkPort: port) { front in
                let reset = try await Self.stepsync(["reset", "--remote", "--server", "http://127.0.0.1:\(front)", "--yes"] + data,
                                                    expectStatus: 1)
                #expect(reset.stderr.contains("the ledger is cleared"), "\(reset.stderr)")
            }
            #expect(try await SinkHarness.storedUUIDs(port: port).count == 0, "the sink did empty itself")
            let status = try await Self.stepsync(["status", "--json"] + data).json()
            #expect(status["synced"] as? Int == 0 && status["intervals"] as? Int == 0,
                    "the ledger must not claim samples the sink no longer holds")

            _ = try await Self.stepsync(["layer", "--json"] + data)
            let again = try await Self.stepsync(sync).json()
            let store = try StepStore(dataDirectory: DataDirectory(path: dir))
            let now = try IncrementalSyncTests.allStepUUIDs(store)
            #expect(again["inserted"] as? Int == now.count)
            let stored = try await SinkHarness.storedUUIDs(port: port)
            #expect(stored.count == now.count && stored.uuids == now)
        }
    }
}
