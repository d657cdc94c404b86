import Foundation
import GRDB
import StepSyncCore
@testable import StepSyncStore
import Testing
import StepSyncTestSupport

@Suite("Layering snapshot reader: prepared statements and kept rows")
struct SnapshotReaderTests {
    /// A store of steps and heart rates over 30 days (same-millisecond runs, samples on whole hours).
    static func store(_ dir: TemporaryDirectory) throws -> StepStore {
        let store = try StepStore(path: dir.file("health.sqlite"))
        try store.insert(StoreTestData.samples(count: 3_000, seed: 31)
                         + StoreTestData.samples(of: .heartRate, count: 2_000, seed: 32))
        return store
    }

    /// Queries as the engine makes them: a range on some layer, then refinements inside it on finer layers (which
    /// the reader answers from kept rows), and ranges elsewhere, on and off hour boundaries.
    static func queries(seed: UInt64, count: Int) -> [(SampleType, TimeRange, Int64)] {
        var rng = SplitMix64(seed: seed)
        let layers = LayeringEngine.layers
        let origin = StoreTestData.origin, span = 32 * Milliseconds.day
        var out: [(SampleType, TimeRange, Int64)] = []
        while out.count < count {
            let type: SampleType = Bool.random(using: &rng) ? .stepCount : .heartRate
            var layer = Int.random(in: 0..<layers.count, using: &rng)
            var start = origin - Milliseconds.day + Int64.random(in: 0..<span, using: &rng)
            if Bool.random(using: &rng) { start = LayeringEngine.floorMultiple(start, of: Milliseconds.hour) }
            var end = start + Int64.random(in: 1...(4 * layers[layer]), using: &rng)
            out.append((type, TimeRange(start: start, end: end), layers[layer]))
            // Refine down, each time inside the previous range.
            while layer + 1 < layers.count, Int.random(in: 0..<4, using: &rng) != 0 {
                layer += 1
                let length = end - start
                start += Int64.random(in: 0..<length, using: &rng)
                end = start + Int64.random(in: 1...(end - start), using: &rng)
                out.append((type, TimeRange(start: start, end: end), layers[layer]))
            }
        }
        return out
    }

    @Test("every answer equals the store's statistics query bucket for bucket, kept rows or not",
          arguments: [0, 40, SnapshotReader.defaultKeptRows])
    func answersEqualTheStore(keptRows: Int) throws {
        let dir = try TemporaryDirectory()
        let store = try Self.store(dir)
        let queries = Self.queries(seed: 7, count: 600)
        let (statements, nonEmpty) = try store.dbWriter.read { db in
            let reader = try SnapshotReader(db: db, keptRows: keptRows)
            var nonEmpty = 0
            for (type, range, bucketMs) in queries {
                let typeId = try StepStore.typeId(of: type, in: db, create: false)!
                let expected = try StepStore.statistics(db, typeId: typeId, in: range, bucketMs: bucketMs)
                let answer = try reader.statistics(typeId: typeId, in: range, bucketMs: bucketMs)
                #expect(answer == expected, "\(type.shortName) \(range) every \(bucketMs) ms")
                if !expected.isEmpty { nonEmpty += 1 }
            }
            return (reader.statementsRun, nonEmpty)
        }
        #expect(nonEmpty > queries.count / 3)  // the queries do hit samples
        if keptRows == SnapshotReader.defaultKeptRows {
            // Refinements inside the previous read run no statement.
            #expect(statements < queries.count * 3 / 4)
        }
    }

    @Test("a read holding more rows than the reader keeps is answered whole and not kept")
    func overLimitIsNotKept() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.store(dir)
        let all = TimeRange(start: StoreTestData.origin - Milliseconds.day, end: StoreTestData.origin + 40 * Milliseconds.day)
        try store.dbWriter.read { db in
            let typeId = try StepStore.typeId(of: .stepCount, in: db, create: false)!
            let reader = try SnapshotReader(db: db, keptRows: 100)
            let whole = try reader.statistics(typeId: typeId, in: TimeRange(start: all.start + 1, end: all.end),
                                              bucketMs: all.duration)
            #expect(whole.map(\.count) == [3_000])
            #expect(reader.statementsRun == 1)
            // The same range again: 3,000 samples were not kept, so it runs the statement again.
            _ = try reader.statistics(typeId: typeId, in: TimeRange(start: all.start + 1, end: all.end), bucketMs: 1)
            #expect(reader.statementsRun == 2)
        }
    }
}
