import Foundation
import StepSyncCore

/// What one `stepsync layer` run did.
public struct LayeringReport: Hashable, Sendable {
    /// The new intervals, with their ids: backfill of the new range first, then deltas and deletions.
    public var intervals: [SyncInterval]
    /// New backfill intervals (samples after the previous run's end).
    public var appended: Int
    /// New delta intervals (samples added inside already-layered ranges).
    public var deltas: Int
    /// New deletion intervals (tombstones since the previous run).
    public var deletionIntervals: Int
    /// Tombstones the deletion intervals carry.
    public var deletedSamples: Int
    /// Statistics queries issued.
    public var queries: Int
    /// The store's change sequence the run covered up to.
    public var anchor: Int64
    /// Whether the store had not changed since the previous run (nothing was written).
    public var upToDate: Bool
}

extension StepStore {
    /// Layers what changed since the previous run of `type` and commits it in one transaction.
    ///
    /// - The first run layers the whole history (every sample with a change sequence ≤ the current anchor).
    /// - A later run layers only what came after the previous run's anchor: samples starting at or after the end of
    ///   the ledger become backfill intervals continuing it; samples added inside already-layered ranges become
    ///   *delta* intervals (their window `(previous anchor, anchor]` selects exactly them); tombstones become
    ///   *deletion* intervals of at most `engine.maxSamples` uuids. Nothing already in the ledger changes, so sync
    ///   progress is never lost. With no change since the previous run, nothing is written.
    ///
    /// The engine sees the store through statistics only. See `Planning/incremental.md`.
    public func layer(type: SampleType = .stepCount, engine: LayeringEngine) throws -> LayeringReport {
        let previous = try layerState(of: type)
        let anchor = try changeSequence()
        var report = LayeringReport(intervals: [], appended: 0, deltas: 0, deletionIntervals: 0, deletedSamples: 0,
                                    queries: 0, anchor: anchor, upToDate: false)
        if let previous, previous.anchor == anchor {
            report.upToDate = true
            return report
        }
        var intervals: [SyncInterval] = []
        var layeredEnd = previous?.layeredEndMs

        // 1. Backfill: the whole history on the first run, else the range after the ledger's end.
        let backfill = try engine.layer(statisticsSource(for: type, seqAfter: 0, seqThrough: anchor),
                                        type: type, from: previous?.layeredEndMs)
        report.queries += backfill.queries
        for var interval in backfill.intervals {
            interval.seqAfter = 0
            interval.seqThrough = anchor
            intervals.append(interval)
            layeredEnd = interval.range.end
        }
        report.appended = backfill.intervals.count

        if let previous {
            // 2. Deltas: samples added since the previous run that start inside the layered range.
            let clipped = ClippedStatisticsSource(
                base: statisticsSource(for: type, seqAfter: previous.anchor, seqThrough: anchor),
                end: previous.layeredEndMs)
            let deltas = try engine.layer(clipped, type: type)
            report.queries += deltas.queries
            for var interval in deltas.intervals {
                interval.seqAfter = previous.anchor
                interval.seqThrough = anchor
                interval.range = TimeRange(start: interval.range.start, end: min(interval.range.end, previous.layeredEndMs))
                intervals.append(interval)
            }
            report.deltas = deltas.intervals.count

            // 3. Deletions: tombstones since the previous run, in chunks of at most maxSamples uuids.
            var after = previous.anchor
            while true {
                let chunk = try tombstones(of: type, seqAfter: after, seqThrough: anchor, limit: engine.maxSamples)
                guard let last = chunk.last else { break }
                let starts = chunk.map(\.startMs)
                intervals.append(SyncInterval(
                    type: type, range: TimeRange(start: starts.min()!, end: starts.max()! + 1), kind: .deletions,
                    seqAfter: after, seqThrough: last.seq, steps: 0, samples: chunk.count))
                report.deletionIntervals += 1
                report.deletedSamples += chunk.count
                after = last.seq
            }
        }

        let state = LayerState(anchor: anchor, layeredEndMs: layeredEnd ?? previous?.layeredEndMs ?? 0)
        if intervals.isEmpty && previous == nil {
            // An empty store: record nothing, so the first samples are layered as a first run.
            return report
        }
        report.intervals = try commitLayering(type: type, intervals: intervals, state: state, expectedPrevious: previous)
        return report
    }
}

/// A statistics source that sees nothing at or after `end`: the deltas of already-layered ranges only.
struct ClippedStatisticsSource<Base: StatisticsSource>: StatisticsSource {
    let base: Base
    let end: Int64

    func statistics(in range: TimeRange, bucketMs: Int64) throws -> [StatisticsBucket] {
        guard range.start < end else { return [] }
        return try base.statistics(in: TimeRange(start: range.start, end: min(range.end, end)), bucketMs: bucketMs)
    }

    func total(in range: TimeRange) throws -> StatisticsBucket {
        guard range.start < end else { return StatisticsBucket(start: range.start, sum: 0, count: 0) }
        return try base.total(in: TimeRange(start: range.start, end: min(range.end, end)))
    }
}
