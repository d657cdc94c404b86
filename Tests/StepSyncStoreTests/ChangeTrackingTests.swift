import Foundation
import StepSyncCore
import StepSyncStore
import Testing
import StepSyncTestSupport

@Suite("Change tracking: deletions, tombstones, sequence windows")
struct ChangeTrackingTests {
    @Test("deleting samples leaves tombstones with new sequence numbers; totals drop by exactly their values")
    func deleteLeavesTombstones() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let samples = StoreTestData.samples(count: 200, seed: 11)
        try store.insert(samples)
        var rng = SplitMix64(seed: 5)
        let victims = Array(samples.shuffled(using: &rng).prefix(30))
        let unknown = UUID()
        let summary = try store.deleteSamples(uuids: victims.map(\.uuid) + [unknown])
        #expect(summary.deleted == 30 && summary.missing == 1)
        #expect(summary.deletedValue == victims.reduce(0) { $0 + $1.value })
        let everything = TimeRange(start: 0, end: .max)
        let total = try store.total(of: .stepCount, in: everything)
        #expect(total.count == 170)
        #expect(total.sum == samples.reduce(0) { $0 + $1.value } - summary.deletedValue)
        let tombstones = try store.tombstones(of: .stepCount, seqAfter: 200, seqThrough: .max, limit: 100)
        #expect(Set(tombstones.map(\.uuid)) == Set(victims.map(\.uuid)))
        #expect(tombstones.map(\.seq) == Array(201...230))
        #expect(try store.changeSequence() == 230)
    }

    @Test("deleting a time range removes exactly the samples starting in it")
    func deleteRange() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let samples = StoreTestData.samples(count: 300, seed: 12)
        try store.insert(samples)
        let range = TimeRange(start: StoreTestData.origin + Milliseconds.day, end: StoreTestData.origin + 5 * Milliseconds.day)
        let inRange = samples.filter { range.contains($0.startMs) }
        let summary = try store.deleteSamples(of: .stepCount, in: range)
        #expect(summary.deleted == inRange.count && summary.deleted > 0)
        #expect(try store.total(of: .stepCount, in: range).count == 0)
        let tombstones = try store.tombstones(of: .stepCount, seqAfter: 0, seqThrough: .max, limit: 1_000)
        #expect(Set(tombstones.map(\.uuid)) == Set(inRange.map(\.uuid)))
        #expect(try store.changeSequence() == 300 + Int64(inRange.count))
    }

    @Test("windowed statistics and pages see only the samples added in the window")
    func windows() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let old = StoreTestData.samples(count: 500, seed: 13)
        try store.insert(old)
        let anchor = try store.changeSequence()
        let late = StoreTestData.samples(count: 40, seed: 14)
        try store.insert(late)
        let range = TimeRange(start: 0, end: .max)
        let buckets = try store.statistics(of: .stepCount, in: range, bucketMs: Milliseconds.day, seqAfter: anchor, seqThrough: .max)
        #expect(buckets.reduce(0) { $0 + $1.count } == 40)
        #expect(buckets.reduce(0.0) { $0 + $1.sum } == late.reduce(0.0) { $0 + $1.value })
        let before = try store.statistics(of: .stepCount, in: range, bucketMs: Milliseconds.day, seqAfter: 0, seqThrough: anchor)
        #expect(before.reduce(0) { $0 + $1.count } == 500)

        let delta = SyncInterval(range: range, seqAfter: anchor, seqThrough: anchor + 40, steps: 0, samples: 40)
        var seen: [UUID] = []
        try store.forEachSamplePage(for: delta, pageSize: 7) { seen += $0.map(\.uuid) }
        #expect(seen == late.sorted { ($0.startMs, $0.uuid.uuidString) < ($1.startMs, $1.uuid.uuidString) }.map(\.uuid))
        let backfill = SyncInterval(range: range, seqAfter: 0, seqThrough: anchor, steps: 0, samples: 500)
        var count = 0
        try store.forEachSamplePage(for: backfill, pageSize: 100) { count += $0.count }
        #expect(count == 500)
    }

    @Test("a layering commit records its state and refuses a stale one")
    func layeringCommit() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        #expect(try store.layerState() == nil)
        let first = [SyncInterval(range: TimeRange(start: 0, end: 10), seqThrough: 5, steps: 1, samples: 1)]
        try store.commitLayering(type: .stepCount, intervals: first, state: LayerState(anchor: 5, layeredEndMs: 10),
                                 expectedPrevious: nil)
        #expect(try store.layerState() == LayerState(anchor: 5, layeredEndMs: 10))
        let stale = [SyncInterval(range: TimeRange(start: 10, end: 20), seqThrough: 9, steps: 1, samples: 1)]
        #expect(throws: StoreError.self) {
            try store.commitLayering(type: .stepCount, intervals: stale, state: LayerState(anchor: 9, layeredEndMs: 20),
                                     expectedPrevious: nil)
        }
        #expect(try store.intervals().count == 1)
        try store.deleteIntervals()
        #expect(try store.layerState() == nil)
    }
}
