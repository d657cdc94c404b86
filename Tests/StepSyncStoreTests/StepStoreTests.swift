import Foundation
import StepSyncCore
import StepSyncStore
import Testing
import StepSyncTestSupport

@Suite("Sample store")
struct StepStoreTests {
    @Test("statistics sums equal the raw sums for random ranges and bucket lengths", arguments: [1, 2, 3, 4, 5] as [UInt64])
    func statisticsMatchRawSums(seed: UInt64) throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let samples = StoreTestData.samples(count: 3_000, seed: seed)
        try store.insert(samples)
        var rng = SplitMix64(seed: seed &* 7919)
        let bucketLengths: [Int64] = [1, 999, Milliseconds.minute, 15 * Milliseconds.minute, Milliseconds.hour,
                                      Milliseconds.day, 7 * Milliseconds.day, 365 * Milliseconds.day]
        for _ in 0..<25 {
            let a = StoreTestData.origin + Int64.random(in: -Milliseconds.day...(31 * Milliseconds.day), using: &rng)
            let b = a + Int64.random(in: 0...(10 * Milliseconds.day), using: &rng)
            let range = TimeRange(start: a, end: b)
            let bucket = bucketLengths.randomElement(using: &rng)!
            let buckets = try store.statistics(of: .stepCount, in: range, bucketMs: bucket)

            // Expected: each sample in the bucket holding its start, whole value, no pro-rating.
            var expected: [Int64: (sum: Double, count: Int)] = [:]
            for s in samples where range.contains(s.startMs) {
                let key = range.start + (s.startMs - range.start) / bucket * bucket
                expected[key, default: (0, 0)].sum += s.value
                expected[key, default: (0, 0)].count += 1
            }
            #expect(buckets.count == expected.count)
            #expect(buckets.map(\.start) == buckets.map(\.start).sorted())
            for b in buckets {
                let e = try #require(expected[b.start])
                #expect(b.sum == e.sum && b.count == e.count, "bucket \(b.start) of \(bucket) ms")
            }
            let total = try store.total(of: .stepCount, in: range)
            #expect(total.sum == expected.values.reduce(0) { $0 + $1.sum })
            #expect(total.count == expected.values.reduce(0) { $0 + $1.count })
        }
    }

    @Test("statistics of whole hours (the hourly rollup) equal the raw sums after inserts, duplicates and deletions by uuid and by range")
    func hourlyRollup() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        var samples = StoreTestData.samples(count: 4_000, seed: 8)
            + StoreTestData.samples(of: .heartRate, count: 1_000, spanMs: 60 * Milliseconds.day, seed: 9)
        try store.insert(samples)
        try store.insert(Array(samples.prefix(100)))  // duplicates change nothing
        var rng = SplitMix64(seed: 10)
        let victims = Set(samples.shuffled(using: &rng).prefix(300).map(\.uuid))
        try store.deleteSamples(uuids: victims)
        let cut = TimeRange(start: StoreTestData.origin + 3 * Milliseconds.day + 1_234,
                            end: StoreTestData.origin + 9 * Milliseconds.day + 999)
        try store.deleteSamples(of: [.stepCount], in: cut)
        samples.removeAll { victims.contains($0.uuid) || ($0.type == .stepCount && cut.contains($0.startMs)) }

        let day = Milliseconds.day
        let aligned = LayeringEngine.floorMultiple(StoreTestData.origin, of: 28 * day)
        for type in [SampleType.stepCount, .heartRate] {
            let own = samples.filter { $0.type == type }
            for (range, bucket) in [(TimeRange(start: aligned, end: aligned + 120 * day), Milliseconds.hour),
                                    (TimeRange(start: aligned, end: aligned + 120 * day), day),
                                    (TimeRange(start: aligned + 5 * Milliseconds.hour, end: aligned + 70 * day + 17), 28 * day),
                                    (LayeringEngine.domain, 28 * day)] {
                var expected: [Int64: (sum: Double, count: Int)] = [:]
                for s in own where range.contains(s.startMs) {
                    let key = range.start + (s.startMs - range.start) / bucket * bucket
                    expected[key, default: (0, 0)].sum += s.value
                    expected[key, default: (0, 0)].count += 1
                }
                let buckets = try store.statistics(of: type, in: range, bucketMs: bucket)
                #expect(buckets.count == expected.count)
                #expect(buckets.allSatisfy { expected[$0.start]?.sum == $0.sum && expected[$0.start]?.count == $0.count },
                        "\(type.shortName) by \(bucket) ms")
            }
        }
    }

    @Test("raw-sample paging returns every sample of a range exactly once, in (start, uuid) order",
          arguments: [1, 7, 100, 5_000])
    func pagingReturnsEachSampleOnce(pageSize: Int) throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let samples = StoreTestData.samples(count: 2_000, spanMs: 3 * Milliseconds.day, seed: 42)
        try store.insert(samples)
        let range = TimeRange(start: StoreTestData.origin + Milliseconds.hour, end: StoreTestData.origin + 2 * Milliseconds.day)
        var seen: [HealthSample] = []
        var pages = 0
        try store.forEachSamplePage(of: .stepCount, in: range, pageSize: pageSize) { page in
            #expect(page.count <= pageSize)
            pages += 1
            seen.append(contentsOf: page)
        }
        let expected = samples.filter { range.contains($0.startMs) }
            .sorted { ($0.startMs, $0.uuid.uuidString) < ($1.startMs, $1.uuid.uuidString) }
        #expect(seen.count == expected.count)
        #expect(Set(seen.map(\.uuid)).count == seen.count, "no sample twice")
        // Order: by start, then by uuid bytes (memcmp order equals the uppercase string order).
        #expect(seen.map(\.uuid) == expected.map(\.uuid))
        #expect(seen == expected, "every field round-trips")
        #expect(pages >= expected.count / pageSize)
    }

    @Test("inserting a sample twice stores it once and counts a duplicate; the change sequence grows")
    func duplicatesAreSkipped() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let samples = StoreTestData.samples(count: 100, seed: 9)
        let first = try store.insert(samples)
        #expect(first.inserted == 100 && first.duplicates == 0)
        #expect(first.insertedSteps == samples.reduce(0) { $0 + $1.value })
        let seqAfterFirst = try store.changeSequence()
        #expect(seqAfterFirst == 100)
        let second = try store.insert(samples.prefix(40) + StoreTestData.samples(count: 10, seed: 10))
        #expect(second.inserted == 10 && second.duplicates == 40)
        #expect(try store.changeSequence() == 110)
        let all = try store.total(of: .stepCount, in: TimeRange(start: 0, end: .max))
        #expect(all.count == 110)
    }

    @Test("a failing insert transaction leaves the store as it was")
    func failedInsertRollsBack() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        try store.insert(StoreTestData.samples(count: 10, seed: 1))
        var bad = StoreTestData.samples(count: 5, seed: 2)
        bad[3].endMs = bad[3].startMs - 1
        #expect(throws: StoreError.self) { try store.insert(bad) }
        #expect(try store.total(of: .stepCount, in: TimeRange(start: 0, end: .max)).count == 10)
        #expect(try store.changeSequence() == 10)
    }

    @Test("the inserter refuses what the sink would refuse, naming the sample and the field, and rolls back")
    func inserterValidates() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        try store.insert(StoreTestData.samples(count: 10, seed: 1))
        for mutate in [
            { (s: inout HealthSample) in s.endMs = Instants.max + 1 },
            { (s: inout HealthSample) in s.value = -5 },
            { (s: inout HealthSample) in s.sourceName = String(repeating: "n", count: 2_000) },
            { (s: inout HealthSample) in s.type = SampleType("HK Quantity") },
        ] {
            var bad = StoreTestData.samples(count: 5, seed: 2)
            mutate(&bad[3])
            let error = try #require(throws: StoreError.self) { try store.insert(bad) }
            #expect(error.description.contains("invalid sample"))
            #expect(error.description.count < 300)
            #expect(try store.total(of: .stepCount, in: TimeRange(start: 0, end: .max)).count == 10)
            #expect(try store.changeSequence() == 10)
        }
        var bad = StoreTestData.samples(count: 1, seed: 3)
        bad[0].endMs = Instants.max + 1
        let error = try #require(throws: StoreError.self) { try store.insert(bad) }
        #expect(error.description.contains("uuid \(bad[0].uuid)") && error.description.contains("field \"endDate\""))
    }

    @Test("details (a JSON object) are stored and read back with their sample; most samples have none")
    func detailsRoundTrip() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let details = #"{"activityType":"HKWorkoutActivityTypeRunning","duration":1800,"totalDistance":5.2}"#
        let workout = HealthSample(uuid: UUID(), type: .workout, startMs: 1_000_000, endMs: 2_800_000, value: 1_800,
                                   unit: "s", sourceName: "Apple Watch", sourceBundleId: "", details: details)
        var steps = StoreTestData.samples(count: 3, seed: 4)
        steps[0].details = nil
        try store.insert([workout] + steps)
        let back = try store.samplePage(of: .workout, in: TimeRange(start: 0, end: .max), limit: 10)
        #expect(back == [workout])
        let stepBack = try store.samplePage(of: .stepCount, in: TimeRange(start: .min, end: .max), limit: 10)
        #expect(stepBack.count == 3 && stepBack.allSatisfy { $0.details == nil })
    }

    @Test("bounds and per-source summaries")
    func boundsAndSummaries() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        #expect(try store.bounds(of: .stepCount) == nil)
        let samples = StoreTestData.samples(count: 500, seed: 3)
        try store.insert(samples)
        let bounds = try #require(try store.bounds(of: .stepCount))
        #expect(bounds.first == samples.map(\.startMs).min())
        #expect(bounds.last == samples.map(\.startMs).max())
        let summaries = try store.sourceSummaries()
        #expect(Set(summaries.map(\.source)) == ["Apple Watch", "iPhone"])
        #expect(summaries.reduce(0) { $0 + $1.samples } == 500)
        #expect(summaries.reduce(0.0) { $0 + $1.sum } == samples.reduce(0.0) { $0 + $1.value })
    }

    @Test("the store reopens with its samples (a real file)")
    func reopen() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("health.sqlite")
        let samples = StoreTestData.samples(count: 50, seed: 4)
        do { try StepStore(path: path).insert(samples) }
        let reopened = try StepStore(path: path)
        let page = try reopened.samplePage(of: .stepCount, in: TimeRange(start: 0, end: .max), limit: 100)
        #expect(Set(page.map(\.uuid)) == Set(samples.map(\.uuid)))
    }

    @Test("an unwritable data directory is named in the error")
    func unwritableDataDirectory() throws {
        let dir = try TemporaryDirectory()
        let file = dir.file("not-a-dir")
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        let error = #expect(throws: StoreError.self) { try StepStore(dataDirectory: DataDirectory(path: file)) }
        #expect(error?.description.contains(file) == true)
    }
}
