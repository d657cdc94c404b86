import Foundation
import StepSyncCore
import Testing

@Suite("Layering planner: every type, backfill, deltas, deletions, reset")
struct LayeringPlannerTests {
    static let t0: Int64 = 1_715_444_842_000  // 2024-05-11T16:27:22Z
    static let distance = SampleType.distanceWalkingRunning

    /// A model with steps, heart rate, distance and sleep over `days` days from `t0`.
    static func history(days: Int = 6, seed: UInt64 = 1) -> LayeringModel {
        var rng = SplitMix64(seed: seed)
        let model = LayeringModel()
        for day in 0..<Int64(days) {
            let base = t0 + day * Milliseconds.day
            for i in 0..<Int64(40) {
                let t = base + i * 7 * Milliseconds.minute + Int64.random(in: 0..<60_000, using: &rng)
                model.insert(.stepCount, start: t, value: Double(Int.random(in: 0...300, using: &rng)))
                model.insert(distance, start: t, value: Double(Int.random(in: 0...8, using: &rng)) / 8)
                model.insert(.heartRate, start: t + 1_000, value: Double(Int.random(in: 55...175, using: &rng)))
            }
            model.insert(.sleepAnalysis, start: base + 20 * Milliseconds.hour, value: 3)
            model.insert(.sleepAnalysis, start: base + 22 * Milliseconds.hour, value: 4)
        }
        return model
    }

    static let limits = LayeringLimits(maxSteps: 1_000, maxSamples: 20,
                                       maxSums: [distance: 4, .heartRate: 100])  // heart rate's is ignored

    /// Plans against the model's states and commits.
    @discardableResult
    static func layer(_ model: LayeringModel, limits: LayeringLimits = limits, types: Set<SampleType>? = nil) throws
        -> LayeringPlan
    {
        let snapshot = model.snapshot()
        let plan = try LayeringPlanner(limits: limits).plan(types: types ?? snapshot.types, previous: model.states,
                                                            in: snapshot)
        model.commit(plan)
        return plan
    }

    @Test("each type is bounded by its kind: steps by steps and samples, distance by its sum limit, heart rate and sleep by samples only")
    func limitsByKind() throws {
        let model = Self.history()
        let plan = try Self.layer(model)
        #expect(plan.types.map(\.type) == [.distanceWalkingRunning, .heartRate, .stepCount, .sleepAnalysis].sorted())
        for typePlan in plan.types {
            let source = try model.snapshot().statistics(of: typePlan.type, seqAfter: 0, seqThrough: .max)
            let maxSum = Self.limits.maxSum(of: typePlan.type) ?? .infinity
            #expect(LayeringInvariants.check(typePlan.intervals, samples: source, maxSteps: maxSum, maxSamples: 20) == [],
                    "\(typePlan.type)")
            #expect(typePlan.intervals.count == LayeringInvariants.optimalCount(source, maxSteps: maxSum, maxSamples: 20))
            #expect(typePlan.intervals.allSatisfy { $0.type == typePlan.type && $0.seqAfter == 0 && $0.seqThrough == plan.anchor })
            #expect(typePlan.state == LayerState(anchor: plan.anchor, layeredEndMs: typePlan.intervals.last?.range.end))
        }
        #expect(Self.limits.maxSum(of: .heartRate) == nil)
        let heartRate = try #require(plan[.heartRate])
        #expect(heartRate.intervals.map(\.samples) == Array(repeating: 20, count: 12), "240 readings, 20 a chunk, no sum limit")
        #expect(heartRate.intervals.contains { $0.steps > 1_000 }, "a sum of heart rates is not bounded")
        let distance = try #require(plan[Self.distance])
        #expect(distance.intervals.allSatisfy { $0.steps <= 4 && $0.samples <= 20 })
        #expect(distance.intervals.contains { $0.samples < 20 && !$0.oversize }, "the sum limit cut some intervals")
        let sleep = try #require(plan[.sleepAnalysis])
        #expect(sleep.intervals.count == 1 && sleep.intervals[0].samples == 12)
    }

    @Test("with nothing changed, every type is up to date: no query, nothing to commit")
    func upToDate() throws {
        let model = Self.history()
        try Self.layer(model)
        let again = try Self.layer(model)
        #expect(again.upToDate && !again.needsCommit)
        #expect(again.queries == 0 && again.intervals.isEmpty)
    }

    @Test("a late heart-rate sample becomes a heart-rate delta; a deleted sleep sample a sleep deletion; new steps continue the ledger")
    func incrementalPerType() throws {
        let model = Self.history()
        let first = try Self.layer(model)
        var rng = SplitMix64(seed: 3)
        model.syncAll(using: &rng)
        let heartRateEnd = try #require(first[.heartRate]?.state?.layeredEndMs)
        let stepsEnd = try #require(first[.stepCount]?.state?.layeredEndMs)

        let late = try #require(model.insert(.heartRate, start: Self.t0 + 2 * Milliseconds.day + 5, value: 88))
        let sleep = try #require(model.samples.values.first { $0.type == .sleepAnalysis })
        model.delete(sleep.uuid)
        let newSteps = (0..<3).compactMap { i in
            model.insert(.stepCount, start: stepsEnd + Int64(i) * Milliseconds.hour, value: 300)
        }
        let plan = try Self.layer(model)

        let heartRate = try #require(plan[.heartRate])
        #expect(heartRate.deltas == 1 && heartRate.appended == 0 && heartRate.deletionIntervals == 0)
        let delta = heartRate.intervals[0]
        #expect(delta.kind == .samples && delta.seqAfter == first.anchor && delta.seqThrough == plan.anchor)
        #expect(delta.range == TimeRange(start: late.start, end: late.start + 1) && delta.steps == 88 && delta.samples == 1)
        #expect(heartRate.state == LayerState(anchor: plan.anchor, layeredEndMs: heartRateEnd))

        let sleepPlan = try #require(plan[.sleepAnalysis])
        #expect(sleepPlan.deletionIntervals == 1 && sleepPlan.deletedSamples == 1 && sleepPlan.intervals.count == 1)
        let deletion = sleepPlan.intervals[0]
        #expect(deletion.kind == .deletions && deletion.range == TimeRange(start: sleep.start, end: sleep.start + 1))
        #expect(model.content(of: deletion) == [sleep.uuid])

        let steps = try #require(plan[.stepCount])
        #expect(steps.appended == 1 && steps.deltas == 0 && steps.intervals[0].range.start == stepsEnd)
        #expect(steps.intervals[0].samples == 3 && steps.intervals[0].steps == 900 && steps.intervals[0].seqAfter == 0)
        #expect(Set(model.content(of: steps.intervals[0])) == Set(newSteps.map(\.uuid)))
        #expect(plan[Self.distance]?.intervals.isEmpty == true && plan[Self.distance]?.upToDate == false)

        model.syncAll(using: &rng)
        #expect(model.sink == model.samples.mapValues(\.type))
    }

    @Test("the first run after a reset sends again every deletion the sink has not acknowledged, and only those")
    func resetResendsUnacknowledgedDeletions() throws {
        let model = Self.history()
        try Self.layer(model)
        var rng = SplitMix64(seed: 4)
        model.syncAll(using: &rng)
        let steps = model.samples.values.filter { $0.type == .stepCount }.sorted { $0.start < $1.start }
        let acknowledged = steps.prefix(3).map(\.uuid)
        acknowledged.forEach(model.delete)
        try Self.layer(model)
        model.syncAll(using: &rng)                       // the sink deleted them and acknowledged it
        let unsent = steps[10..<14].map(\.uuid) + model.samples.values.filter { $0.type == .heartRate }.prefix(2).map(\.uuid)
        unsent.forEach(model.delete)
        try Self.layer(model)                              // deletion intervals made, never sent …
        model.reset()                                      // … and forgotten
        #expect(unsent.allSatisfy { model.sink[$0] != nil })

        let plan = try Self.layer(model)
        let deletions = plan.intervals.filter { $0.kind == .deletions }
        #expect(Set(deletions.flatMap(model.content)) == Set(unsent))
        #expect(deletions.map(\.type).sorted() == [.heartRate, .stepCount])
        #expect(plan.deletedSamples == 6)
        model.syncAll(using: &rng)
        #expect(model.sink == model.samples.mapValues(\.type), "the sink holds exactly the store's samples")
    }

    @Test("deletion intervals hold at most maxSamples uuids, with windows that follow each other")
    func deletionChunks() throws {
        let model = Self.history()
        try Self.layer(model)
        let victims = model.samples.values.filter { $0.type == .heartRate }.sorted { $0.seq < $1.seq }.prefix(45)
        victims.forEach { model.delete($0.uuid) }
        let plan = try Self.layer(model)
        let deletions = try #require(plan[.heartRate]).intervals
        #expect(deletions.map(\.samples) == [20, 20, 5] && deletions.allSatisfy { $0.kind == .deletions })
        #expect(zip(deletions, deletions.dropFirst()).allSatisfy { $0.seqThrough == $1.seqAfter })
        #expect(Set(deletions.flatMap(model.content)) == Set(victims.map(\.uuid)))
    }

    @Test("a type whose samples were all deleted before its first run: deletions only, then later samples start a fresh backfill")
    func tombstonesOnlyThenSamples() throws {
        let model = LayeringModel()
        let gone = (0..<4).compactMap { model.insert(.sleepAnalysis, start: Self.t0 + Int64($0) * Milliseconds.hour, value: 1) }
        gone.forEach { model.delete($0.uuid) }
        let first = try Self.layer(model)
        let sleep = try #require(first[.sleepAnalysis])
        #expect(sleep.deletionIntervals == 1 && sleep.appended == 0)
        #expect(sleep.state == LayerState(anchor: 8, layeredEndMs: nil))

        let later = Self.t0 + 3 * Milliseconds.day
        model.insert(.sleepAnalysis, start: later, value: 2)
        model.insert(.sleepAnalysis, start: later + Milliseconds.hour, value: 3)
        let second = try #require(try Self.layer(model)[.sleepAnalysis])
        #expect(second.appended == 1 && second.deltas == 0 && second.deletionIntervals == 0)
        #expect(second.intervals[0].range == TimeRange(start: later, end: later + Milliseconds.hour + 1))
    }

    @Test("--type restricts a run: other types keep their state and get no interval")
    func restrictedRun() throws {
        let model = Self.history()
        let plan = try Self.layer(model, types: [.heartRate])
        #expect(plan.types.map(\.type) == [.heartRate])
        #expect(model.states.keys.sorted() == [.heartRate])
        let rest = try Self.layer(model)
        #expect(rest[.heartRate]?.upToDate == true && rest[.stepCount]?.appended ?? 0 > 0)
    }

    @Test("random inserts, late inserts, deletions, re-insertions and resets: every run keeps the per-type invariants, and after each sync the sink holds exactly the store's samples",
          arguments: 0..<60)
    func randomHistories(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let model = LayeringModel()
        let types: [SampleType] = [.stepCount, .heartRate, Self.distance, .sleepAnalysis, .workout]
        let limits = LayeringLimits(maxSteps: Double([50, 500, 2_000].randomElement(using: &rng)!),
                                    maxSamples: [1, 3, 10].randomElement(using: &rng)!,
                                    maxSums: [Self.distance: 2])
        var clock = Self.t0
        var deleted: [LayeringModel.Sample] = []
        for round in 0..<8 {
            // New samples after everything so far, late ones in the past, deletions, re-insertions.
            for _ in 0..<Int.random(in: 0...30, using: &rng) {
                clock += Int64.random(in: 0...Milliseconds.hour, using: &rng)
                let type = types.randomElement(using: &rng)!
                let late = Int.random(in: 0..<5, using: &rng) == 0
                let start = late ? Self.t0 + Int64.random(in: 0...max(0, clock - Self.t0), using: &rng) : clock
                model.insert(type, start: start, value: Double(Int.random(in: 0...80, using: &rng)) / (type == Self.distance ? 8 : 1))
            }
            for sample in model.samples.values.sorted(by: { $0.seq < $1.seq }) where Int.random(in: 0..<12, using: &rng) == 0 {
                model.delete(sample.uuid)
                deleted.append(sample)
            }
            if let back = deleted.randomElement(using: &rng), Int.random(in: 0..<3, using: &rng) == 0 {
                model.insert(back.type, start: back.start, value: back.value, uuid: back.uuid)
            }
            if round > 0, Int.random(in: 0..<4, using: &rng) == 0 { model.reset(remote: Bool.random(using: &rng)) }

            let before = model.ledger.count
            let plan = try Self.layer(model, limits: limits)
            try Self.checkLedger(model, plan: plan, newFrom: before, limits: limits)
            model.syncAll(using: &rng, shuffled: true)
            #expect(model.sink == model.samples.mapValues(\.type), "round \(round)")
        }
    }

    /// The ledger after a run: every live sample in exactly one samples interval of its type; backfill contiguous per
    /// type; the run's intervals within their limits and holding what they say; every deletion still owed to the
    /// sink (a deleted uuid's latest tombstone, unacknowledged) in exactly one unsent deletions interval.
    static func checkLedger(_ model: LayeringModel, plan: LayeringPlan, newFrom: Int, limits: LayeringLimits) throws {
        for sample in model.samples.values {
            let holders = model.ledger.filter {
                $0.kind == .samples && $0.type == sample.type && $0.range.contains(sample.start)
                    && sample.seq > $0.seqAfter && sample.seq <= $0.seqThrough
            }
            #expect(holders.count == 1, "sample \(sample.seq) of \(sample.type.shortName) is in \(holders.count) intervals")
        }
        for type in Set(model.ledger.map(\.type)) {
            let backfill = model.ledger.filter { $0.type == type && $0.kind == .samples && $0.seqAfter == 0 }
            #expect(zip(backfill, backfill.dropFirst()).allSatisfy { $0.range.end == $1.range.start }, "\(type) backfill")
            #expect(backfill.last?.range.end == model.states[type]?.layeredEndMs)
        }
        for interval in model.ledger[newFrom...] where interval.kind == .samples {
            let held = model.samples.values.filter {
                $0.type == interval.type && interval.range.contains($0.start)
                    && $0.seq > interval.seqAfter && $0.seq <= interval.seqThrough
            }
            #expect(held.count == interval.samples && held.reduce(0.0) { $0 + $1.value } == interval.steps)
            let over = interval.samples > limits.maxSamples || interval.steps > (limits.maxSum(of: interval.type) ?? .infinity)
            #expect(over == interval.oversize)
            if over { #expect(Set(held.map(\.start)).count == 1, "an oversize interval must be indivisible") }
        }
        // A uuid deleted, inserted again and deleted again has two tombstones; the latest is the one owed.
        let alive = Set(model.samples.keys)
        let latest = Dictionary(model.tombstones.map { ($0.uuid, $0) }, uniquingKeysWith: { $0.seq > $1.seq ? $0 : $1 })
        for tomb in latest.values where !tomb.acknowledged && !alive.contains(tomb.uuid) {
            let holders = model.ledger.filter {
                $0.kind == .deletions && $0.status == .pending && $0.type == tomb.type
                    && tomb.seq > $0.seqAfter && tomb.seq <= $0.seqThrough
            }
            #expect(holders.count == 1, "tombstone \(tomb.seq) is owed to the sink by \(holders.count) intervals")
        }
        for deletion in model.ledger[newFrom...] where deletion.kind == .deletions {
            #expect(deletion.samples <= limits.maxSamples && model.content(of: deletion).count == deletion.samples)
        }
    }
}
