import Foundation
import StepSyncCore

/// A sample store, its ledger and a sink, in memory and as simple as possible: the reference the planner's tests
/// compare with. It keeps the store's rules (one change sequence for inserts and deletions, tombstones, windows,
/// acknowledgements) and the sink's (de-duplication by uuid; a deletion drops a uuid, a later insert brings it back).
final class LayeringModel {
    struct Sample: Hashable {
        var type: SampleType
        var seq: Int64
        var uuid: UUID
        var start: Int64
        var value: Double
    }

    struct Tomb: Hashable {
        var type: SampleType
        var seq: Int64
        var uuid: UUID
        var start: Int64
        var acknowledged = false
    }

    private(set) var changeSeq: Int64 = 0
    private(set) var samples: [UUID: Sample] = [:]
    private(set) var tombstones: [Tomb] = []
    private(set) var ledger: [SyncInterval] = []
    private(set) var states: [SampleType: LayerState] = [:]
    private(set) var sink: [UUID: SampleType] = [:]
    private var nextId: Int64 = 1

    // MARK: - The store

    @discardableResult
    func insert(_ type: SampleType, start: Int64, value: Double, uuid: UUID = UUID()) -> Sample? {
        guard samples[uuid] == nil else { return nil }
        changeSeq += 1
        let sample = Sample(type: type, seq: changeSeq, uuid: uuid, start: start, value: value)
        samples[uuid] = sample
        return sample
    }

    func delete(_ uuid: UUID) {
        guard let sample = samples.removeValue(forKey: uuid) else { return }
        changeSeq += 1
        tombstones.append(Tomb(type: sample.type, seq: changeSeq, uuid: uuid, start: sample.start))
    }

    /// What a layering run sees now.
    func snapshot() -> Snapshot {
        Snapshot(anchor: changeSeq, samples: Array(samples.values), tombstones: tombstones, alive: Set(samples.keys))
    }

    /// Appends a plan's intervals and records its states, as `StepStore.commit` does (after checking the states).
    func commit(_ plan: LayeringPlan) {
        for typePlan in plan.types where typePlan.needsCommit {
            precondition(states[typePlan.type] == typePlan.previous, "stale plan")
            for var interval in typePlan.intervals {
                interval.id = nextId
                nextId += 1
                ledger.append(interval)
            }
            if let state = typePlan.state { states[typePlan.type] = state }
        }
    }

    /// `stepsync reset`: forget the ledger and the layering states (the sink, the samples and the tombstones stay).
    func reset(remote: Bool = false) {
        ledger.removeAll()
        states.removeAll()
        if remote { sink.removeAll() }
    }

    // MARK: - The sync

    /// The samples of a samples interval, or the uuids of a deletions interval, as the engine reads them now.
    func content(of interval: SyncInterval) -> [UUID] {
        switch interval.kind {
        case .samples:
            return samples.values.filter {
                $0.type == interval.type && interval.range.contains($0.start)
                    && $0.seq > interval.seqAfter && $0.seq <= interval.seqThrough
            }.map(\.uuid)
        case .deletions:
            return pendingTombstones(of: interval.type, after: interval.seqAfter, through: interval.seqThrough,
                                     in: tombstones, alive: Set(samples.keys)).map(\.uuid)
        }
    }

    /// Sends every pending interval (in ledger order, or shuffled) and marks it synced; a synced deletions interval
    /// acknowledges its tombstones.
    func syncAll(using rng: inout SplitMix64, shuffled: Bool = false) {
        var order = Array(ledger.indices.filter { ledger[$0].status == .pending })
        if shuffled { order.shuffle(using: &rng) }
        for index in order {
            let interval = ledger[index]
            for uuid in content(of: interval) {
                switch interval.kind {
                case .samples: sink[uuid] = interval.type
                case .deletions: sink[uuid] = nil
                }
            }
            ledger[index].status = .synced
            if interval.kind == .deletions {
                for t in tombstones.indices where tombstones[t].type == interval.type
                    && tombstones[t].seq > interval.seqAfter && tombstones[t].seq <= interval.seqThrough {
                    tombstones[t].acknowledged = true
                }
            }
        }
    }

    static func pendingTombstones(of type: SampleType, after: Int64, through: Int64, in tombstones: [Tomb],
                                  alive: Set<UUID>) -> [Tomb] {
        tombstones.filter {
            $0.type == type && $0.seq > after && $0.seq <= through && !$0.acknowledged && !alive.contains($0.uuid)
        }.sorted { $0.seq < $1.seq }
    }

    func pendingTombstones(of type: SampleType, after: Int64, through: Int64, in tombstones: [Tomb],
                           alive: Set<UUID>) -> [Tomb] {
        Self.pendingTombstones(of: type, after: after, through: through, in: tombstones, alive: alive)
    }

    // MARK: - The snapshot the planner sees

    struct Snapshot: LayeringSnapshot {
        let anchor: Int64
        let samples: [Sample]
        let tombstones: [Tomb]
        let alive: Set<UUID>

        var types: Set<SampleType> { Set(samples.map(\.type)).union(tombstones.map(\.type)) }

        func statistics(of type: SampleType, seqAfter: Int64, seqThrough: Int64) throws -> InMemoryStatisticsSource {
            InMemoryStatisticsSource(samples.filter { $0.type == type && $0.seq > seqAfter && $0.seq <= seqThrough }
                .map { ($0.start, $0.value) })
        }

        func pendingTombstones(of type: SampleType, seqAfter: Int64, seqThrough: Int64, limit: Int) throws -> [Tombstone] {
            LayeringModel.pendingTombstones(of: type, after: seqAfter, through: seqThrough, in: tombstones, alive: alive)
                .prefix(limit).map { Tombstone(seq: $0.seq, uuid: $0.uuid, startMs: $0.start) }
        }
    }
}
