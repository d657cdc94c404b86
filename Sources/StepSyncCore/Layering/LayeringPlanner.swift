/// Decides what one `stepsync layer` run adds to the ledger, type by type: pure logic over a ``LayeringSnapshot``.
///
/// For each type, against the state its previous run recorded (``LayerState``):
///
/// | what changed since the previous run | becomes | selected by |
/// |---|---|---|
/// | nothing (the anchor did not move) | nothing, and no query | — |
/// | the first run of the type (or the first after `reset`) | backfill intervals over the whole history | window `(0, anchor]` |
/// | samples starting at or after the ledger's end | backfill intervals continuing the ledger | range `[end, …)`, window `(0, anchor]` |
/// | samples added inside layered ranges | **delta** intervals, clipped to the ledger's end | window `(previous anchor, anchor]` |
/// | tombstones the sink has not acknowledged | **deletion** intervals of ≤ `maxSamples` uuids each | window `(previous anchor, anchor]`, or `(0, anchor]` on a first run |
///
/// A first run after `stepsync reset` therefore sends again every deletion the sink never acknowledged, so a sample
/// deleted after it was synced is deleted at the sink even when the ledger that knew about it is gone.
/// Every interval of a run carries `seqThrough = anchor`, so samples that arrive later never grow it; nothing
/// already in the ledger is modified. Each type is layered by ``LayeringLimits/engine(for:)``. See
/// `Planning/layering.md` and `Planning/incremental.md`.
public struct LayeringPlanner: Hashable, Sendable {
    /// The limits of every type's intervals.
    public var limits: LayeringLimits

    /// Creates a planner with these limits.
    public init(limits: LayeringLimits = LayeringLimits()) {
        self.limits = limits
    }

    /// Plans a run over `types` (in identifier order), each against its previous state (absent: its first run).
    public func plan(
        types: some Sequence<SampleType>, previous: [SampleType: LayerState], in snapshot: some LayeringSnapshot
    ) throws -> LayeringPlan {
        let plans = try Set(types).sorted().map { try plan($0, previous: previous[$0], in: snapshot) }
        return LayeringPlan(anchor: snapshot.anchor, types: plans)
    }

    /// Plans the run of one type against its previous state (`nil`: its first run).
    public func plan(_ type: SampleType, previous: LayerState?, in snapshot: some LayeringSnapshot) throws
        -> TypeLayeringPlan
    {
        let anchor = snapshot.anchor
        var plan = TypeLayeringPlan(type: type, previous: previous, state: previous)
        if let previous, previous.anchor == anchor {
            plan.upToDate = true
            return plan
        }
        let engine = limits.engine(for: type, maxBucketsPerQuery: snapshot.maxBucketsPerQuery)
        var layeredEnd = previous?.layeredEndMs

        // 1. Backfill: the whole history on a first run, else what starts at or after the ledger's end.
        let backfill = try engine.layer(snapshot.statistics(of: type, seqAfter: 0, seqThrough: anchor),
                                        type: type, from: previous?.layeredEndMs)
        plan.queries += backfill.queries
        for var interval in backfill.intervals {
            interval.seqAfter = 0
            interval.seqThrough = anchor
            plan.intervals.append(interval)
            layeredEnd = interval.range.end
        }
        plan.appended = backfill.intervals.count

        // 2. Deltas: samples added since the previous run that start inside the layered range.
        if let previous, let end = previous.layeredEndMs {
            let source = ClippedStatisticsSource(
                base: try snapshot.statistics(of: type, seqAfter: previous.anchor, seqThrough: anchor), end: end)
            let deltas = try engine.layer(source, type: type)
            plan.queries += deltas.queries
            for var interval in deltas.intervals {
                interval.seqAfter = previous.anchor
                interval.seqThrough = anchor
                interval.range = TimeRange(start: interval.range.start, end: min(interval.range.end, end))
                plan.intervals.append(interval)
            }
            plan.deltas = deltas.intervals.count
        }

        // 3. Deletions: tombstones the sink has not acknowledged, in chunks of at most maxSamples uuids. A chunk's
        //    window runs from the previous chunk's last tombstone to its own last one.
        var after = previous?.anchor ?? 0
        while true {
            let chunk = try snapshot.pendingTombstones(of: type, seqAfter: after, seqThrough: anchor,
                                                       limit: limits.maxSamples)
            guard let last = chunk.last else { break }
            var low = Int64.max, high = Int64.min
            for tombstone in chunk {
                low = min(low, tombstone.startMs)
                high = max(high, tombstone.startMs)
            }
            plan.intervals.append(SyncInterval(
                type: type, range: TimeRange(start: low, end: high + 1), kind: .deletions,
                seqAfter: after, seqThrough: last.seq, steps: 0, samples: chunk.count))
            plan.deletionIntervals += 1
            plan.deletedSamples += chunk.count
            after = last.seq
            if chunk.count < limits.maxSamples { break }
        }

        // An untouched type on its first run records nothing, so its first samples are layered as a first run.
        plan.state = plan.intervals.isEmpty && previous == nil ? nil : LayerState(anchor: anchor, layeredEndMs: layeredEnd)
        return plan
    }
}
