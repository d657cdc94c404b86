import Foundation
import StepSyncCore
import StepSyncStore
import Testing
import StepSyncTestSupport

@Suite("Layering a real store")
struct LayeringStoreTests {
    /// Checks contiguity, limits and conservation of `intervals` against the store's own totals.
    func expectValid(_ intervals: [SyncInterval], store: StepStore, maxSteps: Double, maxSamples: Int) throws {
        for (a, b) in zip(intervals, intervals.dropFirst()) { #expect(a.range.end == b.range.start) }
        for interval in intervals {
            let held = try store.total(of: .stepCount, in: interval.range)
            #expect(held.sum == interval.steps)
            #expect(held.count == interval.samples)
            #expect(interval.oversize == (held.sum > maxSteps || held.count > maxSamples))
        }
        let all = try store.total(of: .stepCount, in: LayeringEngine.domain)
        #expect(intervals.reduce(0) { $0 + $1.samples } == all.count)
        #expect(intervals.reduce(0.0) { $0 + $1.steps } == all.sum)
    }

    @Test("a store of random samples layers within the limits, conserving its total, then appends nothing")
    func randomStore() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        try store.insert(StoreTestData.samples(count: 3_000, seed: 11))
        let engine = LayeringEngine(maxSteps: 5_000, maxSamples: 40)
        let result = try engine.layer(store.statisticsSource(for: .stepCount), type: .stepCount)
        try expectValid(result.intervals, store: store, maxSteps: 5_000, maxSamples: 40)
        let stored = try store.appendIntervals(result.intervals)
        #expect(try store.intervals(of: .stepCount).map(\.id) == stored.map(\.id))
        let again = try engine.layer(store.statisticsSource(for: .stepCount), type: .stepCount,
                                     from: try store.lastInterval(of: .stepCount)?.range.end)
        #expect(again.intervals.isEmpty)
        #expect(again.queries == 1)
    }

    @Test("both generator profiles, a year each, layered from the store", arguments: GeneratorProfile.allCases)
    func generatedStore(profile: GeneratorProfile) throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        _ = try store.insertSamples { inserter in
            for day in SampleGenerator(profile: profile, seed: 3, years: 1, end: CivilDate(year: 2024, month: 12, day: 31)) {
                for sample in day { try inserter.insert(sample) }
            }
        }
        let result = try LayeringEngine().layer(store.statisticsSource(for: .stepCount), type: .stepCount)
        try expectValid(result.intervals, store: store, maxSteps: 10_000, maxSamples: 5_000)
        if profile == .realistic {
            #expect(Double(result.intervals.count) <= 1.05 * (result.steps / 10_000).rounded(.up))
        }
        #expect(result.queries < 50)
    }
}

@Suite("Layering every type of a real store")
struct TypedLayeringStoreTests {
    static let distance = SampleType.distanceWalkingRunning
    static let limits = LayeringLimits(maxSteps: 5_000, maxSamples: 40, maxSums: [distance: 30])

    /// A store holding steps, heart rate, distance, sleep and workouts, and the samples put in it.
    static func mixedStore(_ dir: TemporaryDirectory) throws -> (StepStore, [HealthSample]) {
        let store = try StepStore(path: dir.file("health.sqlite"))
        let samples = StoreTestData.samples(count: 3_000, seed: 21)
            + StoreTestData.samples(of: .heartRate, count: 2_000, seed: 22)
            + StoreTestData.samples(of: distance, count: 1_500, seed: 23)
            + StoreTestData.samples(of: .sleepAnalysis, count: 200, seed: 24)
            + StoreTestData.samples(of: .workout, count: 50, seed: 25)
        #expect(try store.insert(samples).inserted == samples.count)
        return (store, samples)
    }

    /// The fewest intervals any partition of `samples` into time ranges within the limits can have (greedy over
    /// millisecond groups), computed from the raw samples.
    static func optimum(_ samples: [HealthSample], maxSum: Double, maxSamples: Int) -> Int {
        let groups = Dictionary(grouping: samples, by: \.startMs).sorted { $0.key < $1.key }
        var count = 0, sum = 0.0, held = 0, open = false
        for (_, group) in groups {
            let s = group.reduce(0.0) { $0 + $1.value }
            if open, sum + s <= maxSum, held + group.count <= maxSamples {
                sum += s
                held += group.count
            } else {
                (count, open, sum, held) = (count + 1, true, s, group.count)
            }
        }
        return count
    }

    @Test("every type is layered by its kind's limits; each interval holds exactly what the store holds; the counts are optimal")
    func everyType() throws {
        let dir = try TemporaryDirectory()
        let (store, samples) = try Self.mixedStore(dir)
        let report = try store.layer(limits: Self.limits)
        #expect(report.types.map(\.type) == [.sleepAnalysis, .distanceWalkingRunning, .heartRate, .stepCount, .workout])
        for type in report.types.map(\.type) {
            let own = samples.filter { $0.type == type }
            let intervals = try store.intervals(of: type)
            let maxSum = Self.limits.maxSum(of: type) ?? .infinity
            #expect(intervals.count == Self.optimum(own, maxSum: maxSum, maxSamples: 40), "\(type.shortName)")
            #expect(zip(intervals, intervals.dropFirst()).allSatisfy { $0.range.end == $1.range.start })
            #expect(intervals.first?.range.start == own.map(\.startMs).min())
            #expect(intervals.last?.range.end == own.map(\.startMs).max()! + 1)
            for interval in intervals {
                let held = own.filter { interval.range.contains($0.startMs) }
                #expect(held.count == interval.samples && held.reduce(0.0) { $0 + $1.value } == interval.steps)
                #expect(interval.oversize == (held.count > 40 || interval.steps > maxSum))
            }
            #expect(intervals.reduce(0) { $0 + $1.samples } == own.count)
        }
        // Heart rates are bounded by count only: a sum of heart rates means nothing.
        #expect(try store.intervals(of: .heartRate).contains { $0.steps > 5_000 })
        #expect(try store.intervals(of: Self.distance).allSatisfy { $0.steps <= 30 })

        // Step counts layer the same with or without the other types beside them.
        let alone = try TemporaryDirectory()
        let stepsOnly = try StepStore(path: alone.file("health.sqlite"))
        try stepsOnly.insert(samples.filter { $0.type == .stepCount })
        try stepsOnly.layer(limits: Self.limits)
        #expect(try stepsOnly.intervals(of: .stepCount).map(\.range) == store.intervals(of: .stepCount).map(\.range))
    }

    @Test("a late heart-rate sample becomes a heart-rate delta interval; a deleted sleep sample a sleep deletion interval")
    func incrementalPerType() throws {
        let dir = try TemporaryDirectory()
        let (store, samples) = try Self.mixedStore(dir)
        let first = try store.layer(limits: Self.limits)
        let late = HealthSample(uuid: UUID(), type: .heartRate, startMs: StoreTestData.origin + 10 * Milliseconds.day + 7,
                                endMs: StoreTestData.origin + 10 * Milliseconds.day + 7, value: 91, unit: "count/min",
                                sourceName: "Polar", sourceBundleId: "com.polar")
        try store.insert([late])
        let sleep = try #require(samples.first { $0.type == .sleepAnalysis })
        #expect(try store.deleteSamples(uuids: [sleep.uuid]).deletedByType == [.sleepAnalysis: 1])

        let second = try store.layer(limits: Self.limits)
        #expect(second.anchor == first.anchor + 2)
        #expect(second.types.filter { !$0.intervals.isEmpty }.map(\.type) == [.sleepAnalysis, .heartRate])
        let delta = try #require(second.plan[.heartRate]?.intervals.first)
        #expect(delta.kind == .samples && delta.seqAfter == first.anchor && delta.seqThrough == second.anchor)
        #expect(delta.range == TimeRange(start: late.startMs, end: late.startMs + 1) && delta.samples == 1 && delta.steps == 91)
        var sent: [UUID] = []
        try store.forEachSamplePage(for: delta) { sent += $0.map(\.uuid) }
        #expect(sent == [late.uuid])
        let deletion = try #require(second.plan[.sleepAnalysis]?.intervals.first)
        #expect(deletion.kind == .deletions && deletion.samples == 1)
        #expect(try store.tombstones(of: .sleepAnalysis, seqAfter: deletion.seqAfter, seqThrough: deletion.seqThrough,
                                     limit: 10).map(\.uuid) == [sleep.uuid])
        #expect(try store.layer(limits: Self.limits).upToDate)
    }

    @Test("a synced deletions interval acknowledges its tombstones; after a reset only unacknowledged deletions are layered again")
    func deletionsSurviveReset() throws {
        let dir = try TemporaryDirectory()
        let (store, samples) = try Self.mixedStore(dir)
        try store.layer(limits: Self.limits)
        let steps = samples.filter { $0.type == .stepCount }
        let acknowledged = steps.prefix(5).map(\.uuid)
        try store.deleteSamples(uuids: acknowledged)
        let deletion = try #require(try store.layer(limits: Self.limits).intervals.first { $0.kind == .deletions })
        #expect(try store.unacknowledgedTombstones() == [.stepCount: 5])
        #expect(try store.markInFlight(deletion.id))
        try store.markSynced(deletion.id, atMs: 1_000)
        #expect(try store.unacknowledgedTombstones() == [:])
        #expect(try store.tombstones(of: .stepCount, seqAfter: 0, seqThrough: .max, limit: 100).isEmpty)

        let owed = steps[100..<103].map(\.uuid) + samples.filter { $0.type == .heartRate }.prefix(2).map(\.uuid)
        try store.deleteSamples(uuids: owed)
        try store.layer(limits: Self.limits)     // deletion intervals for them, never sent …
        try store.deleteIntervals()              // … and forgotten by a reset
        #expect(try store.layerState(of: .stepCount) == nil)

        let again = try store.layer(limits: Self.limits)
        let deletions = again.intervals.filter { $0.kind == .deletions }
        #expect(deletions.map(\.type) == [.heartRate, .stepCount] && again.deletedSamples == 5)
        var layered: [UUID] = []
        for interval in deletions {
            layered += try store.tombstones(of: interval.type, seqAfter: interval.seqAfter, seqThrough: interval.seqThrough,
                                            limit: 100).map(\.uuid)
        }
        #expect(Set(layered) == Set(owed))
        #expect(try store.intervals(of: .stepCount).filter { $0.kind == .samples }.reduce(0) { $0 + $1.samples } == steps.count - 8)
    }

    @Test("pending intervals come in sending order across types; the ledger is summarised per type and overall")
    func sendingOrderAndSummaries() throws {
        let dir = try TemporaryDirectory()
        let (store, samples) = try Self.mixedStore(dir)
        try store.layer(limits: Self.limits)
        try store.insert(StoreTestData.samples(of: .heartRate, count: 30, seed: 99))   // deltas
        try store.deleteSamples(uuids: samples.filter { $0.type == .workout }.prefix(3).map(\.uuid))
        try store.layer(limits: Self.limits)

        let pending = try store.pendingIntervals()
        let keys = pending.map { ($0.kind == .deletions ? 1 : 0, $0.seqAfter > 0 ? 1 : 0, $0.range.start) }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(Set(pending.map(\.type)) == [.stepCount, .heartRate, Self.distance, .sleepAnalysis, .workout])
        #expect(try store.pendingIntervals(types: [.heartRate]).allSatisfy { $0.type == .heartRate })
        #expect(try store.pendingIntervals(types: [.heartRate]).count == store.intervals(of: .heartRate).count)

        let first = pending[0]
        #expect(try store.markInFlight(first.id))
        try store.markSynced(first.id, atMs: 1)
        let ledger = try store.ledgerSummary()
        #expect(ledger.overall.intervals == pending.count && ledger.overall.synced == 1)
        #expect(ledger.overall.samples == samples.count + 30, "recorded when layered: deletions do not change them")
        #expect(ledger.overall.deletions == 3 && ledger.byType[.workout]?.deletions == 3)
        #expect(ledger.overall.steps == samples.filter { $0.type == .stepCount }.reduce(0.0) { $0 + $1.value })
        for (type, summary) in ledger.byType {
            let intervals = try store.intervals(of: type)
            #expect(summary.intervals == intervals.count)
            #expect(summary.sum == intervals.filter { $0.kind == .samples }.reduce(0.0) { $0 + $1.steps })
            #expect(summary.synced == intervals.filter { $0.status == .synced }.count)
        }
        #expect(ledger.byType[first.type]?.syncedSamples == first.samples)
    }

    @Test("a plan made against a ledger that moved since is refused whole")
    func stalePlan() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try Self.mixedStore(dir)
        let plan = try store.planLayering(limits: Self.limits)
        let stale = try store.planLayering(limits: Self.limits)
        try store.commit(plan)
        let before = try store.ledgerSummary()
        #expect(throws: StoreError.self) { try store.commit(stale) }
        #expect(try store.ledgerSummary() == before)
    }
}
