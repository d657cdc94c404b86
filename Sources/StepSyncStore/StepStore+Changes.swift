import Foundation
import GRDB
import StepSyncCore

/// Deletions, tombstones and the change sequence: what incremental layering and sync are built on.
extension StepStore {
    // MARK: - Deleting samples

    /// Deletes the samples with these uuids (of any type), leaving a tombstone (uuid, type, start, next change
    /// sequence) for each, in one transaction. A deleted workout takes its route parts with it
    /// (``routePartUUIDs(_:workouts:)``): they count in the summary as deleted samples of
    /// ``StepSyncCore/SampleType/workoutRoute``, and their tombstones delete them at the sink.
    @discardableResult
    public func deleteSamples(uuids: some Sequence<UUID>) throws -> DeleteSummary {
        try dbWriter.write { db in
            var deletion = try SampleDeletion(db)
            var workouts: [DeletedWorkout] = []
            for uuid in uuids {
                guard let row = try deletion.delete(uuid) else {
                    deletion.summary.missing += 1
                    continue
                }
                if row.type == .workout { workouts.append(DeletedWorkout(uuid: uuid, startMs: row.startMs, endMs: row.endMs)) }
            }
            for part in try Self.routePartUUIDs(db, workouts: workouts) { _ = try deletion.delete(part) }
            return try deletion.finish()
        }
    }

    /// Deletes every sample of `type` starting in `range`, leaving tombstones, in one transaction.
    @discardableResult
    public func deleteSamples(of type: SampleType, in range: TimeRange) throws -> DeleteSummary {
        try deleteSamples(of: [type], in: range)
    }

    /// Deletes every sample of the given types (every type when `nil`) starting in `range`, leaving tombstones, in
    /// one transaction. Tombstones take the next sequence numbers type by type, in `(start, uuid)` order. The deleted
    /// workouts' route parts go too, wherever they start (``routePartUUIDs(_:workouts:)``), after the range's.
    @discardableResult
    public func deleteSamples(of types: Set<SampleType>?, in range: TimeRange) throws -> DeleteSummary {
        try dbWriter.write { db in
            var summary = DeleteSummary()
            var seq = try Self.currentSequence(db)
            var workouts: [DeletedWorkout] = []
            if types?.contains(.workout) ?? true, let workoutId = try Self.typeId(of: .workout, in: db, create: false) {
                workouts = try Row.fetchAll(db, sql: """
                    SELECT uuid, start_ms, end_ms FROM sample WHERE type_id = ? AND start_ms >= ? AND start_ms < ?
                    """, arguments: [workoutId, range.start, range.end]).map {
                    DeletedWorkout(uuid: $0[0], startMs: $0[1], endMs: $0[2])
                }
            }
            for row in try Row.fetchAll(db, sql: "SELECT id, identifier FROM sample_type ORDER BY identifier") {
                let typeId: Int64 = row[0]
                let type = SampleType(row[1] as String)
                if let types, !types.contains(type) { continue }
                let totals = try Row.fetchOne(db, sql: """
                    SELECT COUNT(*), TOTAL(value) FROM sample WHERE type_id = ? AND start_ms >= ? AND start_ms < ?
                    """, arguments: [typeId, range.start, range.end])!
                let count: Int64 = totals[0]
                guard count > 0 else { continue }
                try db.execute(sql: """
                    INSERT INTO tombstone (seq, uuid, type_id, start_ms)
                    SELECT ?1 + ROW_NUMBER() OVER (ORDER BY start_ms, uuid), uuid, type_id, start_ms FROM sample
                    WHERE type_id = ?2 AND start_ms >= ?3 AND start_ms < ?4
                    """, arguments: [seq, typeId, range.start, range.end])
                try db.execute(sql: "DELETE FROM sample WHERE type_id = ? AND start_ms >= ? AND start_ms < ?",
                               arguments: [typeId, range.start, range.end])
                try Self.recomputeRollup(db, typeId: typeId, hours: Self.hour(of: range.start),
                                         through: Self.hour(of: range.end - 1))
                seq += count
                summary.add(type, count: Int(count), value: totals[1])
            }
            try db.execute(sql: "UPDATE store_state SET change_seq = ? WHERE id = 1", arguments: [seq])
            let parts = try Self.routePartUUIDs(db, workouts: workouts)
            guard !parts.isEmpty else { return summary }
            var deletion = try SampleDeletion(db)
            for part in parts { _ = try deletion.delete(part) }
            let cascaded = try deletion.finish()
            for (type, count) in cascaded.deletedByType {
                summary.deleted += count
                summary.deletedByType[type, default: 0] += count
            }
            summary.deletedValue += cascaded.deletedValue
            return summary
        }
    }

    // MARK: - Route parts of deleted workouts

    /// A workout being deleted: what finds its route parts.
    struct DeletedWorkout {
        var uuid: UUID
        var startMs: Int64
        var endMs: Int64
    }

    /// How far before a workout's start, and after its end, its route parts are looked for (a GPS fix may come
    /// before the workout starts; a route never spans days beyond it).
    static let routeSearchMarginMs: Int64 = 86_400_000

    /// The uuids of the stored route parts (``StepSyncCore/SampleType/workoutRoute``) whose details name one of
    /// `workouts` (`"workout":"UUID"`, `Planning/series.md`), found with `json_extract` among the route samples
    /// starting within ``routeSearchMarginMs`` of the workout (the `(type, start)` index bounds the scan).
    static func routePartUUIDs(_ db: Database, workouts: [DeletedWorkout]) throws -> [UUID] {
        guard !workouts.isEmpty, let routeId = try typeId(of: .workoutRoute, in: db, create: false) else { return [] }
        let find = try db.makeStatement(sql: """
            SELECT uuid FROM sample
            WHERE type_id = ? AND start_ms >= ? AND start_ms <= ? AND upper(json_extract(details, '$.workout')) = ?
            ORDER BY start_ms, uuid
            """)
        var parts: [UUID] = []
        for workout in workouts {
            parts += try UUID.fetchAll(find, arguments: [
                routeId, workout.startMs - routeSearchMarginMs, workout.endMs + routeSearchMarginMs,
                workout.uuid.uuidString.uppercased(),
            ])
        }
        return parts
    }

    // MARK: - Tombstones

    /// Up to `limit` tombstones of `type` with a change sequence in `(seqAfter, seqThrough]` that still have to
    /// reach the sink, oldest first: what a deletions interval sends.
    ///
    /// Left out: a tombstone the sink has already acknowledged (a synced deletions interval held it), and one whose
    /// uuid is back in the store (deleted, then inserted again, e.g. by re-importing an export) — the sample is
    /// alive, and the sink must keep it.
    public func tombstones(
        of type: SampleType, seqAfter: Int64, seqThrough: Int64, limit: Int
    ) throws -> [Tombstone] {
        try dbWriter.read { db in
            guard let typeId = try Self.typeId(of: type, in: db, create: false) else { return [] }
            return try Self.pendingTombstones(db, typeId: typeId, seqAfter: seqAfter, seqThrough: seqThrough, limit: limit)
        }
    }

    static func pendingTombstones(
        _ db: Database, typeId: Int64, seqAfter: Int64, seqThrough: Int64, limit: Int
    ) throws -> [Tombstone] {
        let statement = try db.cachedStatement(sql: """
            SELECT seq, uuid, start_ms FROM tombstone t
            WHERE seq > ? AND seq <= ? AND type_id = ? AND acknowledged_at_ms IS NULL
              AND NOT EXISTS (SELECT 1 FROM sample s WHERE s.uuid = t.uuid)
            ORDER BY seq LIMIT ?
            """)
        return try Row.fetchAll(statement, arguments: [seqAfter, seqThrough, typeId, limit]).map {
            Tombstone(seq: $0[0], uuid: $0[1], startMs: $0[2])
        }
    }

    /// How many tombstones of each type the sink has not acknowledged yet.
    public func unacknowledgedTombstones() throws -> [SampleType: Int] {
        try dbWriter.read { db in
            var counts: [SampleType: Int] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT t.identifier, COUNT(*) FROM tombstone JOIN sample_type t ON t.id = tombstone.type_id
                WHERE acknowledged_at_ms IS NULL GROUP BY t.identifier
                """) {
                counts[SampleType(row[0] as String)] = row[1]
            }
            return counts
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
            return try Self.windowedStatistics(db, typeId: typeId, in: range, bucketMs: bucketMs, seqAfter: seqAfter,
                                               seqThrough: seqThrough)
        }
    }

    static func windowedStatistics(
        _ db: Database, typeId: Int64, in range: TimeRange, bucketMs: Int64, seqAfter: Int64, seqThrough: Int64
    ) throws -> [StatisticsBucket] {
        let statement = try db.cachedStatement(sql: seqAfter > 0 ? """
            SELECT (start_ms - ?1) / ?2 AS b, SUM(value), COUNT(*) FROM sample NOT INDEXED
            WHERE seq > ?5 AND seq <= ?6 AND type_id = ?3 AND start_ms >= ?1 AND start_ms < ?4
            GROUP BY b ORDER BY b
            """ : """
            SELECT (start_ms - ?1) / ?2 AS b, SUM(value), COUNT(*) FROM sample INDEXED BY sample_type_start
            WHERE seq > ?5 AND seq <= ?6 AND type_id = ?3 AND start_ms >= ?1 AND start_ms < ?4
            GROUP BY b ORDER BY b
            """)
        statement.setUncheckedArguments([range.start, bucketMs, typeId, range.end, seqAfter, seqThrough])
        let rows = try Row.fetchCursor(statement)
        var buckets: [StatisticsBucket] = []
        while let row = try rows.next() {
            let index: Int64 = row[0]
            buckets.append(StatisticsBucket(start: range.start + index * bucketMs, sum: row[1], count: row[2]))
        }
        return buckets
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
