import Foundation
import StepSyncCore
@testable import StepSyncStore
import Testing
import StepSyncTestSupport

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

    /// The store's hourly statistics of `type` over `range` checked against the raw sums and counts of `samples`
    /// per hour: the same hours, in order, the same sums and counts. Returns the buckets for further checks.
    @discardableResult
    static func expectHourlyRollup(_ store: StepStore, of type: SampleType, in range: TimeRange,
                                   equalToSumsOf samples: [HealthSample]) throws -> [StatisticsBucket] {
        let hour = Milliseconds.hour
        var expected: [Int64: (sum: Double, count: Int)] = [:]
        for s in samples where s.type == type {
            expected[s.startMs / hour * hour, default: (0, 0)].sum += s.value
            expected[s.startMs / hour * hour, default: (0, 0)].count += 1
        }
        let buckets = try store.statistics(of: type, in: range, bucketMs: hour)
        #expect(buckets.map(\.start) == expected.keys.sorted(), "\(type.shortName)")
        #expect(buckets.allSatisfy { expected[$0.start]?.sum == $0.sum && expected[$0.start]?.count == $0.count },
                "\(type.shortName)")
        return buckets
    }

    @Test("one transaction's hourly rollup equals the raw sums per type and hour when types interleave, hours go back and forth and uuids repeat; inserted counts per type are exact")
    func rollupOfInterleavedRuns() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let hour = Milliseconds.hour
        let origin = LayeringEngine.floorMultiple(1_700_000_000_000, of: Milliseconds.day)
        let types: [SampleType] = [.stepCount, .heartRate, .stepCount, SampleType("HKQuantityTypeIdentifierDistanceWalkingRunning")]
        var rng = SplitMix64(seed: 21)
        var samples: [HealthSample] = []
        for i in 0..<3_000 {
            // Mostly forward in time, one sample in five back up to 5 hours: a type's hour run ends and an earlier
            // hour of the same type is added to again (two runs for one rollup row).
            let back = Int64.random(in: 0...4, using: &rng) == 0 ? Int64.random(in: 0...5, using: &rng) * hour : 0
            let start = max(origin, origin + Int64(i) * 7 * 60_000 - back)
            samples.append(HealthSample(
                uuid: UUID(uuid: (UInt8(truncatingIfNeeded: i), UInt8(truncatingIfNeeded: i >> 8), 0x21, 0, 0, 0, 0x50, 0,
                                  0x80, 0, 0, 0, 0, 0, 0, 1)),
                type: types[Int.random(in: 0..<types.count, using: &rng)], startMs: start, endMs: start + 60_000,
                utcOffsetSeconds: 3600, value: Double(Int.random(in: 0...500, using: &rng)), unit: "count",
                sourceName: "Watch", sourceBundleId: "", sourceVersion: nil, deviceName: nil, deviceModel: nil))
        }
        samples += samples.prefix(200).map { var copy = $0; copy.value += 1; return copy }  // duplicates: ignored
        let stored = Array(samples.prefix(3_000))

        let (byType, summary) = try store.insertSamples { inserter -> [SampleType: Int] in
            for sample in samples { try inserter.insert(sample) }
            return inserter.insertedByType
        }
        #expect(summary.inserted == 3_000)
        #expect(summary.duplicates == 200)
        #expect(byType == Dictionary(stored.map { ($0.type, 1) }, uniquingKeysWith: +))
        #expect(summary.insertedSteps == stored.filter { $0.type == .stepCount }.reduce(0) { $0 + $1.value })

        let range = TimeRange(start: origin, end: origin + 30 * Milliseconds.day)
        for type in Set(types) {
            try Self.expectHourlyRollup(store, of: type, in: range, equalToSumsOf: stored)
        }
    }

    @Test("a type with more hours than the inserter holds has its completed hours written while it comes; late samples for written hours, a second transaction over the same hours and interleaved types still give the raw sums per type and hour")
    func rollupWrittenWhileInserting() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let hour = Milliseconds.hour
        let origin = LayeringEngine.floorMultiple(1_700_000_000_000, of: Milliseconds.day)
        let types: [SampleType] = [.stepCount, .heartRate]
        let hours = 2 * SampleInserter.rollupRunsHeld + 1_000
        var all: [HealthSample] = []
        var n = 0
        func sample(_ type: SampleType, hour h: Int, minute: Int, value: Double) -> HealthSample {
            n += 1
            let start = origin + Int64(h) * hour + Int64(minute) * 60_000
            return HealthSample(
                uuid: UUID(uuid: (UInt8(truncatingIfNeeded: n), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n >> 16),
                                  0x77, 0, 0, 0x50, 0, 0x80, 0, 0, 0, 0, 0, 0, 3)),
                type: type, startMs: start, endMs: start + 60_000, utcOffsetSeconds: nil, value: value, unit: "count",
                sourceName: "Watch", sourceBundleId: "", sourceVersion: nil, deviceName: nil, deviceModel: nil)
        }
        for round in 0..<2 {
            var batch: [HealthSample] = []
            for h in stride(from: round, to: hours, by: round + 1) {
                for type in types {
                    batch.append(sample(type, hour: h, minute: round, value: Double(h % 13 + 1)))
                    if h % 3 == 0 { batch.append(sample(type, hour: h, minute: 30 + round, value: 2)) }
                    // Now and then a late sample for an hour long written (and one for the hour before).
                    if h % 997 == 996 { batch.append(sample(type, hour: h - 5_000 < 0 ? 0 : h - 5_000, minute: 50 + round, value: 7)) }
                    if h % 501 == 500 { batch.append(sample(type, hour: h - 1, minute: 55 + round, value: 3)) }
                }
            }
            let (early, summary) = try store.insertSamples(bulkLoad: round == 0 ? .standard : nil) { inserter in
                try inserter.insert(contentsOf: batch)
                return inserter.hoursWrittenEarly
            }
            #expect(summary.inserted == batch.count)
            // Each type passed the held limit at least once in this transaction.
            #expect(early >= 2 * SampleInserter.rollupRunsHeld, "round \(round)")
            all += batch
        }
        let range = TimeRange(start: origin, end: origin + Int64(hours + 1) * hour)
        for type in types {
            let buckets = try Self.expectHourlyRollup(store, of: type, in: range, equalToSumsOf: all)
            #expect(buckets.count == hours, "\(type.shortName)")
        }
    }

    @Test("rollup rows written 64 to a statement and one at a time add onto the rows of earlier transactions: three transactions over the same 300 hours equal the raw sums per type and hour")
    func rollupAcrossTransactions() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let hour = Milliseconds.hour
        let origin = LayeringEngine.floorMultiple(1_700_000_000_000, of: Milliseconds.day)
        let types: [SampleType] = [.stepCount, .heartRate]
        var all: [HealthSample] = []
        // 300 hours per type (4 statements of 64 and 44 single rows), then 130 of them again (2 × 64 + 2), then 1.
        for (round, hours) in [(0, 0..<300), (1, 100..<230), (2, 299..<300)] {
            var batch: [HealthSample] = []
            for h in hours {
                for (t, type) in types.enumerated() {
                    let start = origin + Int64(h) * hour + Int64(round) * 60_000
                    let n = round * 1_000_000 + h * 10 + t
                    batch.append(HealthSample(
                        uuid: UUID(uuid: (UInt8(truncatingIfNeeded: n), UInt8(truncatingIfNeeded: n >> 8),
                                          UInt8(truncatingIfNeeded: n >> 16), 0x64, 0, 0, 0x50, 0, 0x80, 0, 0, 0, 0, 0, 0, 2)),
                        type: type, startMs: start, endMs: start + 60_000, utcOffsetSeconds: nil,
                        value: Double(h % 17 + round * 1_000 + t), unit: "count", sourceName: "Watch", sourceBundleId: "",
                        sourceVersion: nil, deviceName: nil, deviceModel: nil))
                }
            }
            #expect(try store.insert(batch).inserted == batch.count)
            all += batch
        }
        let range = TimeRange(start: origin, end: origin + 400 * hour)
        for type in types {
            let buckets = try Self.expectHourlyRollup(store, of: type, in: range, equalToSumsOf: all)
            #expect(buckets.count == 300, "\(type.shortName)")
            #expect(buckets.filter { $0.count == 2 }.count == 131 && buckets.filter { $0.count == 3 }.count == 0
                    && buckets.last?.count == 2, "\(type.shortName)")
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
