import Foundation
import GRDB
import StepSyncCore

/// Deletions, tombstones and the change sequence: what incremental layering and sync are built on.
extension StepStore {
    // MARK: - Deleting samples

    /// Deletes the samples with these uuids, leaving a tombstone (uuid, type, start, next change sequence) for each,
    /// in one transaction.
    @discardableResult
    public func deleteSamples(uuids: some Sequence<UUID>) throws -> DeleteSummary {
        try dbWriter.write { db in
            var summary = DeleteSummary()
            var seq = try Self.currentSequence(db)
            let find = try db.makeStatement(sql: "SELECT seq, type_id, start_ms, value FROM sample WHERE uuid = ?")
            let tombstone = try db.makeStatement(sql: "INSERT INTO tombstone (seq, uuid, type_id, start_ms) VALUES (?, ?, ?, ?)")
            let delete = try db.makeStatement(sql: "DELETE FROM sample WHERE seq = ?")
            for uuid in uuids {
                guard let row = try Row.fetchOne(find, arguments: [uuid]) else {
                    summary.missing += 1
                    continue
                }
                seq += 1
                try tombstone.execute(arguments: [seq, uuid, row[1] as Int64, row[2] as Int64])
                try delete.execute(arguments: [row[0] as Int64])
                summary.deleted += 1
                summary.deletedValue += row[3] as Double
            }
            try db.execute(sql: "UPDATE store_state SET change_seq = ? WHERE id = 1", arguments: [seq])
            return summary
        }
    }

    /// Deletes every sample of `type` starting in `range`, leaving tombstones, in one transaction.
    @discardableResult
    public func deleteSamples(of type: SampleType, in range: TimeRange) throws -> DeleteSummary {
        try dbWriter.write { db in
            guard let typeId = try Self.typeId(of: type, in: db, create: false) else { return DeleteSummary() }
            let seq = try Self.currentSequence(db)
            let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*), TOTAL(value) FROM sample WHERE type_id = ? AND start_ms >= ? AND start_ms < ?
                """, arguments: [typeId, range.start, range.end])!
            let count: Int64 = row[0]
            // Tombstones take the next sequence numbers in (start, uuid) order.
            try db.execute(sql: """
                INSERT INTO tombstone (seq, uuid, type_id, start_ms)
                SELECT ?1 + ROW_NUMBER() OVER (ORDER BY start_ms, uuid), uuid, type_id, start_ms FROM sample
                WHERE type_id = ?2 AND start_ms >= ?3 AND start_ms < ?4
                """, arguments: [seq, typeId, range.start, range.end])
            try db.execute(sql: "DELETE FROM sample WHERE type_id = ? AND start_ms >= ? AND start_ms < ?",
                           arguments: [typeId, range.start, range.end])
            try db.execute(sql: "UPDATE store_state SET change_seq = ? WHERE id = 1", arguments: [seq + count])
            return DeleteSummary(deleted: Int(count), deletedValue: row[1], missing: 0)
        }
    }

    /// Up to `limit` tombstones of `type` with a change sequence in `(seqAfter, seqThrough]`, oldest first.
    ///
    /// A tombstone whose uuid is back in the store (deleted, then inserted again, e.g. by re-importing an export) is
    /// left out: the sample is alive, and the sink must keep it.
    public func tombstones(
        of type: SampleType, seqAfter: Int64, seqThrough: Int64, limit: Int
    ) throws -> [Tombstone] {
        try dbWriter.read { db in
            guard let typeId = try Self.typeId(of: type, in: db, create: false) else { return [] }
            return try Row.fetchAll(db, sql: """
                SELECT seq, uuid, start_ms FROM tombstone t
                WHERE type_id = ? AND seq > ? AND seq <= ? AND NOT EXISTS (SELECT 1 FROM sample s WHERE s.uuid = t.uuid)
                ORDER BY seq LIMIT ?
                """, arguments: [typeId, seqAfter, seqThrough, limit]).map {
                Tombstone(seq: $0[0], uuid: $0[1], startMs: $0[2])
            }
        }
    }

    // MARK: - Layering state

    /// What the layering runs of `type` have covered, or `nil` before the first run.
    public func layerState(of type: SampleType = .stepCount) throws -> LayerState? {
        try dbWriter.read { db in
            guard let typeId = try Self.typeId(of: type, in: db, create: false),
                  let row = try Row.fetchOne(db, sql: "SELECT anchor, layered_end_ms FROM layer_state WHERE type_id = ?",
                                             arguments: [typeId])
            else { return nil }
            return LayerState(anchor: row[0], layeredEndMs: row[1])
        }
    }

    /// Commits one layering run in one transaction: its intervals (backfill continuing the ledger, then deltas) and
    /// the new state. If `expectedAnchor` no longer matches (another run committed meanwhile) nothing is written.
    ///
    /// - Returns: the intervals with their ids.
    @discardableResult
    public func commitLayering(
        type: SampleType, intervals: [SyncInterval], state: LayerState, expectedPrevious: LayerState?
    ) throws -> [SyncInterval] {
        try dbWriter.write { db in
            let typeId = try Self.typeId(of: type, in: db, create: true)!
            let current = try Row.fetchOne(db, sql: "SELECT anchor, layered_end_ms FROM layer_state WHERE type_id = ?",
                                           arguments: [typeId]).map { LayerState(anchor: $0[0], layeredEndMs: $0[1]) }
            guard current == expectedPrevious else {
                throw StoreError.intervalsNotContiguous("another layering run committed meanwhile; run `stepsync layer` again")
            }
            let backfillEnd = try Int64.fetchOne(db, sql: """
                SELECT MAX(end_ms) FROM sync_interval WHERE type_id = ? AND seq_after = 0 AND kind = 'samples'
                """, arguments: [typeId])
            let stored = try Self.insertIntervals(intervals, typeId: typeId, continuing: backfillEnd, in: db)
            try db.execute(sql: """
                INSERT INTO layer_state (type_id, anchor, layered_end_ms) VALUES (?, ?, ?)
                ON CONFLICT(type_id) DO UPDATE SET anchor = excluded.anchor, layered_end_ms = excluded.layered_end_ms
                """, arguments: [typeId, state.anchor, state.layeredEndMs])
            return stored
        }
    }

    // MARK: - Windowed queries

    /// Statistics of the samples of `type` whose change sequence lies in `(seqAfter, seqThrough]`: what changed
    /// since a layering run. With `seqAfter > 0` it scans the sequence range (the rowid), so it costs what changed,
    /// not the history; with `seqAfter == 0` it uses the time index like the unwindowed query.
    public func statistics(
        of type: SampleType, in range: TimeRange, bucketMs: Int64, seqAfter: Int64, seqThrough: Int64
    ) throws -> [StatisticsBucket] {
        precondition(bucketMs > 0, "bucketMs must be positive")
        return try dbWriter.read { db in
            guard let typeId = try Self.typeId(of: type, in: db, create: false) else { return [] }
            let rows = try Row.fetchCursor(db, sql: """
                SELECT (start_ms - ?1) / ?2 AS b, SUM(value), COUNT(*)
                FROM sample \(seqAfter > 0 ? "NOT INDEXED" : "INDEXED BY sample_type_start")
                WHERE seq > ?5 AND seq <= ?6 AND type_id = ?3 AND start_ms >= ?1 AND start_ms < ?4
                GROUP BY b ORDER BY b
                """, arguments: [range.start, bucketMs, typeId, range.end, seqAfter, seqThrough])
            var buckets: [StatisticsBucket] = []
            while let row = try rows.next() {
                let index: Int64 = row[0]
                buckets.append(StatisticsBucket(start: range.start + index * bucketMs, sum: row[1], count: row[2]))
            }
            return buckets
        }
    }

    /// A ``StatisticsSource`` over the samples of `type` added in `(seqAfter, seqThrough]`.
    public func statisticsSource(for type: SampleType, seqAfter: Int64, seqThrough: Int64) -> some StatisticsSource & Sendable {
        WindowedStatisticsSource(store: self, type: type, seqAfter: seqAfter, seqThrough: seqThrough)
    }

    /// One page of the samples an interval sends: start in its range, change sequence in its window, in
    /// `(start, uuid)` order after `cursor`.
    public func samplePage(for interval: SyncInterval, after cursor: SampleCursor? = nil, limit: Int) throws -> [HealthSample] {
        if interval.seqAfter == 0 && interval.seqThrough == .max {
            return try samplePage(of: interval.type, in: interval.range, after: cursor, limit: limit)
        }
        return try dbWriter.read { db in
            try Self.samplePage(db, of: interval.type, in: interval.range, after: cursor, limit: limit,
                                seqAfter: interval.seqAfter, seqThrough: interval.seqThrough)
        }
    }

    /// Calls `body` with each page of the samples an interval sends.
    public func forEachSamplePage(
        for interval: SyncInterval, pageSize: Int = 5_000, _ body: ([HealthSample]) throws -> Void
    ) throws {
        var cursor: SampleCursor?
        while true {
            let page = try samplePage(for: interval, after: cursor, limit: pageSize)
            if page.isEmpty { return }
            try body(page)
            guard page.count == pageSize, let last = page.last else { return }
            cursor = SampleCursor(startMs: last.startMs, uuid: last.uuid)
        }
    }
}

/// The store seen through statistics of one type restricted to a change-sequence window.
struct WindowedStatisticsSource: StatisticsSource, Sendable {
    let store: StepStore
    let type: SampleType
    let seqAfter: Int64
    let seqThrough: Int64

    func statistics(in range: TimeRange, bucketMs: Int64) throws -> [StatisticsBucket] {
        try store.statistics(of: type, in: range, bucketMs: bucketMs, seqAfter: seqAfter, seqThrough: seqThrough)
    }

    func total(in range: TimeRange) throws -> StatisticsBucket {
        let buckets = try statistics(in: range, bucketMs: max(1, range.duration))
        return StatisticsBucket(start: range.start, sum: buckets.reduce(0) { $0 + $1.sum },
                                count: buckets.reduce(0) { $0 + $1.count })
    }
}
