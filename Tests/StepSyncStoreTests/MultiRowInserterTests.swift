import Foundation
import GRDB
import StepSyncCore
@testable import StepSyncStore
import Testing

@Suite("Multi-row inserter (insert(contentsOf:), 32 rows a statement)")
struct MultiRowInserterTests {
    static let hour = Milliseconds.hour
    static let origin: Int64 = 1_700_000_000_000 / Milliseconds.day * Milliseconds.day

    /// A valid sample numbered `n` (its uuid is a function of `n`), of one of three types, a few per hour.
    static func sample(_ n: Int, value: Double? = nil) -> HealthSample {
        let types: [SampleType] = [.stepCount, .heartRate, SampleType("HKQuantityTypeIdentifierDistanceWalkingRunning")]
        let start = origin + Int64(n) * 13 * 60_000
        return HealthSample(
            uuid: UUID(uuid: (UInt8(truncatingIfNeeded: n), UInt8(truncatingIfNeeded: n >> 8), 0x32, 0, 0, 0, 0x50, 0,
                              0x80, 0, 0, 0, 0, 0, 0, 0x32)),
            type: types[(n / 3) % types.count], startMs: start, endMs: start + 60_000, utcOffsetSeconds: 3600,
            value: value ?? Double(n % 97), unit: "count", sourceName: n % 5 == 0 ? "iPhone" : "Watch", sourceBundleId: "",
            sourceVersion: n % 4 == 0 ? nil : "10.1", deviceName: nil, deviceModel: n % 7 == 0 ? "Watch6,2" : nil,
            details: n % 11 == 0 ? "{\"n\":\(n)}" : nil)
    }

    /// Every stored row, in seq order, with every column.
    static func rows(_ store: StepStore) throws -> [[String]] {
        try store.dbWriter.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM sample ORDER BY seq").map { row in
                row.databaseValues.map { "\($0)" }
            }
        }
    }

    /// The rollup, in key order.
    static func rollup(_ store: StepStore) throws -> [String] {
        try store.dbWriter.read { db in
            try Row.fetchAll(db, sql: """
                SELECT t.identifier, h.hour, h.sum, h.count FROM sample_hour h JOIN sample_type t ON t.id = h.type_id
                ORDER BY t.identifier, h.hour
                """).map { "\($0[0] as String) \($0[1] as Int64) \($0[2] as Double) \($0[3] as Int)" }
        }
    }

    /// The (seq, uuid) pairs stored, in seq order.
    static func seqs(_ store: StepStore) throws -> [(Int64, UUID)] {
        try store.dbWriter.read { db in
            try Row.fetchAll(db, sql: "SELECT seq, uuid FROM sample ORDER BY seq").map { row -> (Int64, UUID) in (row[0], row[1]) }
        }
    }

    /// Batches of 31, 32, 33 and 65 samples (across the 32-row boundary) with duplicates of stored samples and of
    /// samples earlier in the same batch, at the first, last and middle rows of a statement and in runs.
    static func batches() -> [[HealthSample]] {
        var batches: [[HealthSample]] = []
        var next = 100
        func fresh(_ count: Int) -> [HealthSample] {
            defer { next += count }
            return (next..<(next + count)).map { sample($0) }
        }
        // 31: no whole statement; two stored duplicates (0, 1) and one in-batch duplicate.
        var b = fresh(28)
        b.insert(sample(0, value: 1000), at: 0)
        b.insert(sample(1, value: 1000), at: 10)
        b.append(sample(b[5].uuidNumber, value: 2000))
        batches.append(b)
        // 32: exactly one statement; a stored duplicate in the first row, an in-batch one in the last.
        b = fresh(30)
        b.insert(sample(2), at: 0)
        b.append(sample(b[3].uuidNumber, value: 3000))
        batches.append(b)
        // 33: a statement with nothing new but one row, then the one-row tail (new).
        b = (3..<34).map { sample($0) } + fresh(1)  // 3…33 are stored before, except 33 (below)
        b.insert(sample(b[0].uuidNumber, value: 1), at: 5)
        batches.append(b)
        // 65: two statements of which the first has a run of duplicates in the middle and the second none, then a tail
        // row that repeats the second statement's first row.
        b = fresh(65)
        for i in 10..<16 { b[i] = sample(40 + i) }  // stored (below)
        b[64] = sample(b[32].uuidNumber, value: 4000)
        batches.append(b)
        // 64 all stored: a re-import of two statements moves nothing and inserts nothing.
        batches.append(batches[0] + batches[1] + [sample(0)])
        return batches
    }

    /// The samples stored before the batches: 0…32 and 50…55 (so batch 3's sample 33 is new).
    static let stored: [HealthSample] = (0..<33).map { sample($0) } + (50..<56).map { sample($0) }

    @Test("batches of 31, 32, 33 and 65 samples with duplicates inside the batch and against the store give the exact uuid set, gap-free seq in the samples' order, exact rollup sums and counts, exactly as one-at-a-time inserts")
    func acrossTheBoundary() throws {
        let dir = try TemporaryDirectory()
        let multi = try StepStore(path: dir.file("multi.sqlite"))
        let single = try StepStore(path: dir.file("single.sqlite"))
        for store in [multi, single] { try store.insert(Self.stored) }

        // The model: one at a time, first copy of a uuid wins, each new one takes the next seq.
        var known = Set(Self.stored.map(\.uuid))
        var expected = try Self.seqs(multi)
        #expect(expected.map { $0.0 } == Array(1...Int64(Self.stored.count)))
        var expectedSums: [String: (sum: Double, count: Int)] = [:]
        for s in Self.stored {
            expectedSums["\(s.type.rawValue) \(LayeringEngine.floorMultiple(s.startMs, of: Self.hour) / Self.hour)", default: (0, 0)].sum += s.value
            expectedSums["\(s.type.rawValue) \(LayeringEngine.floorMultiple(s.startMs, of: Self.hour) / Self.hour)", default: (0, 0)].count += 1
        }

        for batch in Self.batches() {
            var newCount = 0
            for s in batch where !known.contains(s.uuid) {
                known.insert(s.uuid)
                newCount += 1
                expected.append((Int64(expected.count + 1), s.uuid))
                let key = "\(s.type.rawValue) \(LayeringEngine.floorMultiple(s.startMs, of: Self.hour) / Self.hour)"
                expectedSums[key, default: (0, 0)].sum += s.value
                expectedSums[key, default: (0, 0)].count += 1
            }
            let summary = try multi.insertSamples { try $0.insert(contentsOf: batch) }.1
            let oneByOne = try single.insertSamples { inserter in
                for s in batch { try inserter.insert(s) }
            }.1
            #expect(summary.inserted == newCount, "batch of \(batch.count)")
            #expect(summary.duplicates == batch.count - newCount, "batch of \(batch.count)")
            #expect(summary == oneByOne, "batch of \(batch.count)")
            let stored = try Self.seqs(multi)
            #expect(stored.map { $0.0 } == expected.map { $0.0 }, "batch of \(batch.count)")
            #expect(stored.map { $0.1 } == expected.map { $0.1 }, "batch of \(batch.count)")
            #expect(try multi.changeSequence() == Int64(expected.count))
        }
        #expect(expected.count == 39 + 28 + 30 + 2 + 58, "the batches' new samples")
        // Every column of every row, and the rollup, equal one-at-a-time inserts; the rollup equals the model.
        #expect(try Self.rows(multi) == Self.rows(single))
        #expect(try Self.rollup(multi) == Self.rollup(single))
        let rollup = try Self.rollup(multi)
        #expect(rollup == expectedSums.keys.sorted { a, b in
            let (ta, ha) = (a.split(separator: " ")[0], Int64(a.split(separator: " ")[1])!)
            let (tb, hb) = (b.split(separator: " ")[0], Int64(b.split(separator: " ")[1])!)
            return (ta, ha) < (tb, hb)
        }.map { "\($0) \(expectedSums[$0]!.sum) \(expectedSums[$0]!.count)" })
        // The stored values are the first copies', not the duplicates'.
        #expect(try multi.dbWriter.read { db in try Double.fetchOne(db, sql: "SELECT TOTAL(value) FROM sample WHERE value >= 1000") } == 0)
    }

    @Test("an invalid sample in the middle of a statement throws naming it, after inserting exactly the samples before it, as one-at-a-time inserts do")
    func invalidInTheMiddle() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        try store.insert((0..<10).map { Self.sample($0) })
        var batch = (5..<75).map { Self.sample($0) }  // 5…9 stored
        batch[40].endMs = batch[40].startMs - 1
        let (message, summary) = try store.insertSamples { inserter -> String in
            do {
                try inserter.insert(contentsOf: batch)
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        #expect(message.contains("uuid \(batch[40].uuid)") && message.contains("endDate"), "\(message)")
        #expect(summary.inserted == 35 && summary.duplicates == 5)
        #expect(try Self.seqs(store).map { $0.1 } == (0..<45).map { Self.sample($0).uuid })
        #expect(try Self.seqs(store).map { $0.0 } == Array(1...45))
    }

    @Test("a failure after several multi-row statements leaves the store exactly as it was: rows, seq, rollup")
    func failureLeavesStoreUnchanged() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        try store.insert(Self.stored)
        let (rows, rollup, sequence) = (try Self.rows(store), try Self.rollup(store), try store.changeSequence())
        var bad = (200..<240).map { Self.sample($0) }
        bad[37].value = -.infinity
        #expect(throws: StoreError.self) {
            try store.insertSamples { inserter in
                try inserter.insert(contentsOf: (100..<165).map { Self.sample($0) })
                try inserter.insert(contentsOf: bad)
            }
        }
        #expect(try Self.rows(store) == rows)
        #expect(try Self.rollup(store) == rollup)
        #expect(try store.changeSequence() == sequence)
        #expect(rows.count == Self.stored.count)
    }
}

extension HealthSample {
    /// The number ``MultiRowInserterTests/sample(_:value:)`` made this sample's uuid from.
    fileprivate var uuidNumber: Int { Int(uuid.uuid.0) | Int(uuid.uuid.1) << 8 }
}
