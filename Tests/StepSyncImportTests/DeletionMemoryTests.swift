import Foundation
import StepSyncCore
import StepSyncStore
import Testing
@testable import StepSyncImport

/// A deletion stays deleted: importing an export that still holds a deleted sample leaves it out (and says so), in a
/// bulk load into a small store and row by row into a large one alike; `--restore-deleted` stores it again and drops
/// its tombstone, so the next sync sends it.
@Suite("Deletions are remembered across re-imports")
struct DeletionMemoryTests {
    /// 40 step records a minute apart, then 10 heart-rate records.
    static let body: String = (0..<40).map { i in
        F.record("HKQuantityTypeIdentifierStepCount", value: "\(10 + i)",
                 start: "2021-03-0\(1 + i / 10) 08:\(String(format: "%02d", i % 60)):00 +0100",
                 end: "2021-03-0\(1 + i / 10) 08:\(String(format: "%02d", i % 60)):30 +0100")
    }.joined() + (0..<10).map { i in
        F.record("HKQuantityTypeIdentifierHeartRate", source: "Apple Watch", device: F.watch, unit: "count/min",
                 value: "\(60 + i)", start: "2021-03-05 09:0\(i):00 +0100", end: "2021-03-05 09:0\(i):00 +0100")
    }.joined()

    @Test("delete 7 step samples and 2 heart rates, import the same export again: 0 new, 9 left out, the store unchanged",
          arguments: [BulkLoad.standard, nil])
    func reimportLeavesDeletionsOut(_ bulkLoad: BulkLoad?) throws {
        let w = try Workspace()
        let path = try F.write(F.document(.v14, body: Self.body), named: "export.xml", in: w.directory)
        let first = try HealthImporter(store: w.store, bulkLoad: bulkLoad, time: .system).importExport(at: path)
        #expect(first.inserted == 50 && first.previouslyDeleted == 0)
        var steps: [HealthSample] = []
        try w.store.forEachSamplePage(of: .stepCount, in: LayeringEngine.domain, pageSize: 100) { steps += $0 }
        var hearts: [HealthSample] = []
        try w.store.forEachSamplePage(of: .heartRate, in: LayeringEngine.domain, pageSize: 100) { hearts += $0 }
        let victims = Set(steps.prefix(7).map(\.uuid) + hearts.suffix(2).map(\.uuid))
        #expect(try w.store.deleteSamples(uuids: victims).deleted == 9)
        let stepsLeft = try w.store.total(of: .stepCount, in: all)

        let again = try HealthImporter(store: w.store, bulkLoad: bulkLoad, time: .system).importExport(at: path)
        #expect(again.inserted == 0)
        #expect(again.previouslyDeleted == 9)
        #expect(again.duplicates == 41)
        #expect(try w.store.total(of: .stepCount, in: all) == stepsLeft)
        var stored = Set<UUID>()
        for type in [SampleType.stepCount, .heartRate] {
            try w.store.forEachSamplePage(of: type, in: LayeringEngine.domain, pageSize: 100) { page in
                for sample in page { stored.insert(sample.uuid) }
            }
        }
        #expect(stored.count == 41 && stored.isDisjoint(with: victims))

        // Restored: stored again, tombstones gone (a third import is all duplicates, none left out).
        let restored = try HealthImporter(store: w.store, bulkLoad: bulkLoad, time: .system)
            .importExport(at: path, deletedSamples: .restore)
        #expect(restored.inserted == 9 && restored.restored == 9 && restored.previouslyDeleted == 0)
        let third = try HealthImporter(store: w.store, bulkLoad: bulkLoad, time: .system).importExport(at: path)
        #expect(third.inserted == 0 && third.previouslyDeleted == 0 && third.duplicates == 50)
        #expect(try w.store.total(of: .stepCount, in: all).count == 40)
    }
}
