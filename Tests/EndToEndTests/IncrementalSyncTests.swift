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
        let dir = (NSTemporaryDirectory() as NSString).appendingPathComponent("stepsync-incremental-\(UUID().uuidString)")
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
