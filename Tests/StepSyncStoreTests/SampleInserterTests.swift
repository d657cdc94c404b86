import Foundation
import StepSyncCore
import StepSyncStore
import Testing

@Suite("Bulk inserter")
struct SampleInserterTests {
    /// Samples whose text fields change, repeat, vanish (nil) and come back in every pattern the inserter's
    /// bind-once cache must get right, with duplicates (same uuid) among them.
    static func samples(seed: UInt64) -> [HealthSample] {
        var rng = SplitMix64(seed: seed)
        let texts: [String?] = [nil, "", "16.5", "Anna’s iPhone", "a \"quoted\" name", String(repeating: "x", count: 300)]
        let types: [SampleType] = [.stepCount, .heartRate, .stepCount, .workout]
        var out: [HealthSample] = []
        for i in 0..<600 {
            func text() -> String? { texts.randomElement(using: &rng)! }
            // Runs: the same field value for a few samples, then a change.
            let run = i / Int.random(in: 1...4, using: &rng)
            let start = Int64(1_700_000_000_000) + Int64(i) * 60_000
            out.append(HealthSample(
                uuid: UUID(uuid: (UInt8(truncatingIfNeeded: i), UInt8(truncatingIfNeeded: i >> 8), UInt8(seed & 0xFF), 0, 0, 0, 0x50, 0,
                                  0x80, 0, 0, 0, 0, 0, 0, UInt8(i % 7))),
                type: types[run % types.count], startMs: start, endMs: start + Int64(run % 3) * 1000,
                utcOffsetSeconds: run % 2 == 0 ? nil : Int32(run % 5) * 3600, value: Double(run % 50),
                unit: text() ?? "count", sourceName: text() ?? "Watch", sourceBundleId: run % 3 == 0 ? "" : "com.example",
                sourceVersion: text(), deviceName: run % 4 == 0 ? nil : text(), deviceModel: text(),
                details: i % 5 == 0 ? "{\"i\":\(i)}" : nil))
        }
        // Duplicates: the same uuids again with other fields; the first copy stays.
        for i in stride(from: 0, to: 600, by: 7) {
            var copy = out[i]
            copy.value += 1
            copy.sourceVersion = copy.sourceVersion == nil ? "other" : nil
            out.append(copy)
        }
        return out
    }

    @Test("every field of every sample reads back exactly, whatever runs of repeated, absent and changing text the inserter keeps bound",
          arguments: [1, 2, 3] as [UInt64])
    func roundTrip(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let samples = Self.samples(seed: seed)
        var firstByUUID: [UUID: HealthSample] = [:]
        for s in samples where firstByUUID[s.uuid] == nil { firstByUUID[s.uuid] = s }

        let summary = try store.insert(samples)
        #expect(summary.inserted == firstByUUID.count)
        #expect(summary.duplicates == samples.count - firstByUUID.count)
        #expect(summary.insertedSteps == firstByUUID.values.filter { $0.type == .stepCount }.reduce(0) { $0 + $1.value })
        #expect(try store.changeSequence() == Int64(firstByUUID.count))

        var read: [UUID: HealthSample] = [:]
        for type in [SampleType.stepCount, .heartRate, .workout] {
            for s in try store.samplePage(of: type, in: TimeRange(start: 0, end: 2_000_000_000_000), limit: 10_000) {
                read[s.uuid] = s
            }
        }
        #expect(read.count == firstByUUID.count)
        for (uuid, expected) in firstByUUID {
            #expect(read[uuid] == expected, "uuid \(uuid)")
        }
    }

    @Test("a second insert of the same samples adds nothing and counts every one as a duplicate")
    func reinsert() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let samples = Self.samples(seed: 9)
        let first = try store.insert(samples)
        let second = try store.insert(samples)
        #expect(second.inserted == 0)
        #expect(second.duplicates == samples.count)
        #expect(try store.changeSequence() == Int64(first.inserted))
    }
}
