import Foundation
import StepSyncCore
import StepSyncPostgres
import StepSyncSink
import StepSyncTestSupport
import Testing

/// `insertReplacing` (Health Auto Export's store) on PostgreSQL — one `INSERT … ON CONFLICT DO UPDATE` — and on the
/// JSONL files (the storage-neutral delete-then-insert): the same outcomes, the same samples kept.
@Suite("insertReplacing: PostgreSQL's upsert and the JSONL files agree",
       .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"))
struct ReplaceParityTests {
    static let base = ISO8601Millis.parse("2025-06-02T08:00:00.000Z")!

    /// Active energy (steps' JSONL lines keep no UTC offset, so another type compares every field).
    static let energy = SampleType("HKQuantityTypeIdentifierActiveEnergyBurned")

    static func sample(_ n: Int, _ value: Double, type: SampleType = energy, end: Int64 = 60_000,
                       unit: String = "kcal", source: String = "Anna’s iPhone") -> HealthSample {
        HealthSample(uuid: fixedUUID(n), type: type, startMs: base + Int64(n) * 60_000,
                     endMs: base + Int64(n) * 60_000 + end, utcOffsetSeconds: 7200, value: value, unit: unit,
                     sourceName: source, sourceBundleId: "health-auto-export", deviceName: "iPhone")
    }

    /// The rounds, each a batch and the outcome it must give.
    static let rounds: [(batch: [HealthSample], outcome: ReplaceOutcome)] = [
        // Three new samples; the third repeated in the batch (the last kept, the first a duplicate).
        ([sample(1, 10), sample(2, 20), sample(3, 30), sample(3, 31)], ReplaceOutcome(given: 4, inserted: 3, replaced: 0)),
        // The same again: all duplicates.
        ([sample(1, 10), sample(2, 20), sample(3, 31)], ReplaceOutcome(given: 3, inserted: 0, replaced: 0)),
        // A grown value and a longer end: each replaced whole; another source alone changes nothing (kept); one new.
        ([sample(1, 15), sample(2, 20, end: 120_000), sample(3, 31, source: "Anna’s Apple Watch"),
          sample(4, 40)], ReplaceOutcome(given: 4, inserted: 1, replaced: 2)),
        // Same uuid, another type: not a replacement (a duplicate); a repeat whose last value is the stored one.
        ([sample(1, 99, type: .heartRate, unit: "count/min"), sample(4, 41), sample(4, 40)],
         ReplaceOutcome(given: 3, inserted: 0, replaced: 0)),
    ]

    /// What each storage answers for the rounds, and the samples it keeps (by uuid).
    static func run(_ storage: any SampleStorage, _ client: ClientIdentity) async throws
        -> (outcomes: [ReplaceOutcome], kept: [UUID: HealthSample])
    {
        var outcomes: [ReplaceOutcome] = []
        for round in rounds { outcomes.append(try await storage.insertReplacing(round.batch, for: client)) }
        // The wire, and so the JSONL lines, carry no UTC offset (PostgreSQL keeps it): compared without it.
        let kept = try await storage.samples((1...4).map(fixedUUID), type: energy, for: client).map { sample in
            var sample = sample
            sample.utcOffsetSeconds = nil
            return sample
        }
        return (outcomes, Dictionary(uniqueKeysWithValues: kept.map { ($0.uuid, $0) }))
    }

    @Test("inserted, replaced and duplicates per round, and the samples kept, are the same on both")
    func agree() async throws {
        let expected = Self.rounds.map(\.outcome)
        let jsonl = try await withTemporaryDirectory { dir in
            let storage = try JSONLStorage(stepsPath: dir + "/steps.jsonl", durable: true, retryAfterSeconds: 1,
                                           maxTypes: 200, onSync: nil, time: .system, logger: quietLogger)
            return try await Self.run(storage, .single)
        }
        let postgres = try await withStorage { storage, _ in
            let owner = try await storage.addClient(name: "anna", token: .random())
            return try await Self.run(storage, ClientIdentity(String(owner.id)))
        }
        #expect(jsonl.outcomes == expected)
        #expect(postgres.outcomes == expected)
        #expect(postgres.kept == jsonl.kept)
        #expect(postgres.kept.keys.sorted { $0.uuidString < $1.uuidString } == (1...4).map(fixedUUID))
        #expect(postgres.kept[fixedUUID(1)]?.value == 15)
        #expect(postgres.kept[fixedUUID(2)]?.endMs == Self.base + 2 * 60_000 + 120_000)
        #expect(postgres.kept[fixedUUID(3)]?.sourceName == "Anna’s iPhone", "value, end and unit unchanged: kept")
        #expect(postgres.kept[fixedUUID(4)]?.value == 40)
    }
}
