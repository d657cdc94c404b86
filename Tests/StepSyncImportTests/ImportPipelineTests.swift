import Foundation
import StepSyncCore
@testable import StepSyncImport
import Testing

/// The reader's regrouping of a batch by type before the store's writer inserts it.
@Suite("Import pipeline: batches grouped by type")
struct ImportPipelineTests {
    /// `count` samples of `types` interleaved at random, some uuids repeated (a later copy with another value).
    static func interleaved(count: Int, types: [SampleType], seed: UInt64) -> [HealthSample] {
        var rng = SplitMix64(seed: seed)
        var samples: [HealthSample] = []
        for i in 0..<count {
            let type = types[Int.random(in: 0..<types.count, using: &rng)]
            let start = Int64(1_700_000_000_000) + Int64(i) * 60_000
            samples.append(HealthSample(
                uuid: UUID(uuid: (UInt8(truncatingIfNeeded: i), UInt8(truncatingIfNeeded: i >> 8), 0x91, 0, 0, 0, 0x50, 0,
                                  0x80, 0, 0, 0, 0, 0, 0, 3)),
                type: type, startMs: start, endMs: start + 60_000, value: Double(i), unit: "count",
                sourceName: "Watch", sourceBundleId: ""))
            if i % 13 == 0, let earlier = samples.randomElement(using: &rng) {
                var copy = earlier
                copy.value = -1
                samples.append(copy)
            }
        }
        return samples
    }

    @Test("a batch comes out grouped by type, types in order of first appearance, each type's samples (duplicates included) in their order; nothing added or lost", arguments: [1 as UInt64, 2, 3])
    func groupsKeepOrderWithinAType(seed: UInt64) {
        let types: [SampleType] = [.stepCount, .heartRate, SampleType("HKQuantityTypeIdentifierDistanceWalkingRunning"),
                                   SampleType("HKCategoryTypeIdentifierSleepAnalysis"), .workout]
        let batch = Self.interleaved(count: 4_096, types: types, seed: seed)
        let grouped = ImportPipeline.groupedByType(batch)

        #expect(grouped.count == batch.count)
        var firstSeen: [SampleType] = []
        for sample in batch where !firstSeen.contains(sample.type) { firstSeen.append(sample.type) }
        // One run per type, in the order the types first appear.
        var runs: [SampleType] = []
        for sample in grouped where runs.last != sample.type { runs.append(sample.type) }
        #expect(runs == firstSeen)
        // Each type's samples are exactly the batch's, in the batch's order: (uuid, value) pairs compared.
        for type in types {
            let before = batch.filter { $0.type == type }.map { "\($0.uuid) \($0.value)" }
            let after = grouped.filter { $0.type == type }.map { "\($0.uuid) \($0.value)" }
            #expect(before == after, "\(type.shortName)")
            #expect(!before.isEmpty)
        }
        // A repeated uuid's first copy still comes first.
        var seen: Set<UUID> = []
        for sample in grouped where !seen.insert(sample.uuid).inserted { #expect(sample.value == -1) }
        #expect(seen.count < grouped.count)
    }

    @Test("a batch of one type, and an empty batch, come back as they were")
    func oneTypeUnchanged() {
        let batch = Self.interleaved(count: 100, types: [.heartRate], seed: 9)
        #expect(ImportPipeline.groupedByType(batch).map(\.uuid) == batch.map(\.uuid))
        #expect(ImportPipeline.groupedByType([]).isEmpty)
    }
}
