import Foundation
import GRDB
import StepSyncCore
import StepSyncStore
import StepSyncTestSupport
import Testing

/// The bulk load (``BulkLoad``: indexes dropped, de-duplication by an in-memory set, indexes built at the end) leaves
/// exactly the store the one-row-at-a-time inserter leaves.
@Suite("Bulk load")
struct BulkLoadTests {
    /// Runs each batch through one `insertSamples(bulkLoad:)` transaction; returns the summaries and the dump.
    static func load(_ batches: [[HealthSample]], bulkLoad: BulkLoad?, path: String,
                     before: [HealthSample] = []) throws -> ([InsertSummary], [String], [Bool]) {
        let store = try StepStore(path: path)
        if !before.isEmpty { try store.insert(before) }
        var summaries: [InsertSummary] = []
        var bulkSeen: [Bool] = []
        for batch in batches {
            let (wasBulk, summary) = try store.insertSamples(bulkLoad: bulkLoad) { inserter -> Bool in
                let wasBulk = inserter.isBulkLoading
                for sample in batch { try inserter.insert(sample) }
                return wasBulk
            }
            summaries.append(summary)
            bulkSeen.append(wasBulk)
        }
        return (summaries, try StoreDump.lines(path), bulkSeen)
    }

    static let policies: [BulkLoad] = [
        .standard,
        // The set fills up mid-way: indexes built, the rest inserted against the unique index.
        BulkLoad(maxStoredSamples: 10_000, capacity: 300),
        BulkLoad(maxStoredSamples: 10_000, capacity: 1),
    ]

    @Test("bulk and incremental give the same store: rows, seqs, rollup, change sequence, schema; a second load of the same samples adds nothing",
          arguments: [1, 2] as [UInt64], [0, 1, 2])
    func sameStore(seed: UInt64, policy: Int) throws {
        let dir = try TemporaryDirectory()
        // Duplicates inside the batch (every 7th sample again, other fields, first copy wins) and a second load.
        let samples = SampleInserterTests.samples(seed: seed)
        let (incremental, expected, _) = try Self.load([samples, samples], bulkLoad: nil, path: dir.file("a.sqlite"))
        let (bulk, actual, wasBulk) = try Self.load([samples, samples], bulkLoad: Self.policies[policy], path: dir.file("b.sqlite"))
        // The second load is bulk too unless the stored samples already fill the policy's capacity.
        #expect(wasBulk == [true, policy == 0])
        #expect(bulk == incremental)
        #expect(incremental[0].duplicates == samples.count - incremental[0].inserted && incremental[0].duplicates > 0)
        #expect(incremental[1].inserted == 0 && incremental[1].duplicates == samples.count)
        #expect(actual == expected)
        #expect(actual.last == "ok")
        #expect(actual.contains { $0.hasPrefix("index sample_uuid sample CREATE UNIQUE INDEX") })
    }

    @Test("into a store holding samples already: stored uuids are duplicates, new ones appended after them, same store either way",
          arguments: [0, 1])
    func intoStoredSamples(policy: Int) throws {
        let dir = try TemporaryDirectory()
        let samples = SampleInserterTests.samples(seed: 3)
        let before = Array(samples.prefix(200)) + SampleInserterTests.samples(seed: 4).suffix(50)
        let (incremental, expected, _) = try Self.load([samples], bulkLoad: nil, path: dir.file("a.sqlite"), before: before)
        let (bulk, actual, wasBulk) = try Self.load([samples], bulkLoad: Self.policies[policy], path: dir.file("b.sqlite"), before: before)
        #expect(wasBulk == [true])
        #expect(bulk == incremental)
        #expect(incremental[0].duplicates > 200)
        #expect(actual == expected)
    }

    @Test("a store holding more than maxStoredSamples is loaded one row at a time")
    func largeStoreIsIncremental() throws {
        let dir = try TemporaryDirectory()
        let samples = SampleInserterTests.samples(seed: 5)
        let (_, _, wasBulk) = try Self.load([samples], bulkLoad: BulkLoad(maxStoredSamples: 10, capacity: 1 << 20),
                                            path: dir.file("a.sqlite"), before: Array(samples.prefix(11)))
        #expect(wasBulk == [false])
    }

    @Test("a bulk load that fails leaves the store exactly as it was, indexes included", arguments: [0, 1])
    func failureRollsBack(policy: Int) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("a.sqlite")
        let store = try StepStore(path: path)
        try store.insert(SampleInserterTests.samples(seed: 6).prefix(100))
        let before = try StoreDump.lines(path)
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            _ = try store.insertSamples(bulkLoad: Self.policies[policy]) { inserter in
                for sample in SampleInserterTests.samples(seed: 7) { try inserter.insert(sample) }
                throw Stop()
            }
        }
        #expect(try StoreDump.lines(path) == before)
        // And the store still works: the unique index refuses what is stored.
        let again = try store.insert(SampleInserterTests.samples(seed: 6).prefix(100))
        #expect(again.inserted == 0 && again.duplicates == 100)
    }
}
