import GRDB
import StepSyncCore

/// The store inside one read transaction, as the ``LayeringPlanner`` sees it: statistics and pending tombstones at
/// one anchor. Every query goes through a statement cached on the transaction's connection.
///
/// Only valid inside the `read` that created it.
struct StoreLayeringSnapshot: LayeringSnapshot {
    let db: Database
    let anchor: Int64
    /// Type ids by type, read once.
    let typeIds: [SampleType: Int64]
    /// The statements of the whole-snapshot statistics, shared by every type's source.
    let reader: SnapshotReader
    /// Queries are cheap here (cached statements in one transaction, whole hours from the rollup) and reading
    /// samples is what costs, so the engine refines only where a cut must land (measured in `layering.md`).
    var maxBucketsPerQuery: Int { 16 }

    init(db: Database) throws {
        self.db = db
        anchor = try StepStore.currentSequence(db)
        var ids: [SampleType: Int64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, identifier FROM sample_type") {
            ids[SampleType(row[1] as String)] = row[0]
        }
        typeIds = ids
        reader = try SnapshotReader(db: db)
    }

    /// Every type the store has ever held (a type stays known after its samples are deleted).
    var types: [SampleType] { typeIds.keys.sorted() }

    func statistics(of type: SampleType, seqAfter: Int64, seqThrough: Int64) throws -> SnapshotStatistics {
        SnapshotStatistics(db: db, reader: reader, typeId: typeIds[type],
                           // The whole snapshot: the window hides nothing, so the time index answers alone.
                           window: seqAfter <= 0 && seqThrough >= anchor ? nil : (seqAfter, seqThrough))
    }

    func pendingTombstones(of type: SampleType, seqAfter: Int64, seqThrough: Int64, limit: Int) throws -> [Tombstone] {
        guard let typeId = typeIds[type] else { return [] }
        return try StepStore.pendingTombstones(db, typeId: typeId, seqAfter: seqAfter, seqThrough: seqThrough,
                                               limit: limit)
    }
}

/// Statistics of one type inside a ``StoreLayeringSnapshot``: the samples in a change-sequence window, or all of them.
struct SnapshotStatistics: StatisticsSource {
    let db: Database
    let reader: SnapshotReader
    let typeId: Int64?
    /// `(seqAfter, seqThrough]`, or `nil` for every sample of the snapshot.
    let window: (after: Int64, through: Int64)?

    func statistics(in range: TimeRange, bucketMs: Int64) throws -> [StatisticsBucket] {
        guard let typeId else { return [] }
        if let window {
            return try StepStore.windowedStatistics(db, typeId: typeId, in: range, bucketMs: bucketMs,
                                                    seqAfter: window.after, seqThrough: window.through)
        }
        return try reader.statistics(typeId: typeId, in: range, bucketMs: bucketMs)
    }

    func total(in range: TimeRange) throws -> StatisticsBucket {
        let buckets = try statistics(in: range, bucketMs: max(1, range.duration))
        return StatisticsBucket(start: range.start, sum: buckets.reduce(0) { $0 + $1.sum },
                                count: buckets.reduce(0) { $0 + $1.count })
    }
}

