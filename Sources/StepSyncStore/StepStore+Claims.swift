import GRDB
import StepSyncCore

/// The sync engine's ledger writes for several intervals at once: one transaction (one WAL commit, one fsync) per
/// request rather than one per interval, through cached prepared statements.
///
/// They are `async`: the commit's fsync runs on GRDB's writer queue while the calling task is suspended, so a
/// cooperative thread is never blocked on the disk.
extension StepStore {
    /// Claims the intervals for sending in one transaction: each `pending` one becomes `inFlight` with one more
    /// attempt. Returns the ids that were pending (and are now claimed), in the order given.
    public func claim(_ ids: [Int64]) async throws -> [Int64] {
        guard !ids.isEmpty else { return [] }
        return try await dbWriter.write { db in
            let statement = try db.cachedStatement(sql: """
                UPDATE sync_interval SET status = 'inFlight', attempts = attempts + 1 WHERE id = ? AND status = 'pending'
                """)
            var claimed: [Int64] = []
            claimed.reserveCapacity(ids.count)
            for id in ids {
                try statement.execute(arguments: [id])
                if db.changesCount == 1 { claimed.append(id) }
            }
            return claimed
        }
    }

    /// Records one acknowledgement that covered every interval in `ids`: all of them are `synced` once this returns
    /// (one fsynced commit).
    ///
    /// - Throws: ``StoreError/unknownInterval(_:)`` (and commits nothing) when an id is not in the ledger.
    public func markSynced(_ ids: [Int64], atMs: Int64) async throws {
        guard !ids.isEmpty else { return }
        try await dbWriter.write { db in
            let statement = try db.cachedStatement(sql: """
                UPDATE sync_interval SET status = 'synced', synced_at_ms = ?, last_error = NULL WHERE id = ?
                """)
            // A synced deletions interval acknowledges its tombstones in the same commit (see ``markSynced(_:atMs:)``).
            let acknowledge = try db.cachedStatement(sql: """
                UPDATE tombstone SET acknowledged_at_ms = ?1
                FROM (SELECT type_id, seq_after, seq_through FROM sync_interval WHERE id = ?2 AND kind = 'deletions') AS i
                WHERE tombstone.seq > i.seq_after AND tombstone.seq <= i.seq_through AND tombstone.type_id = i.type_id
                  AND tombstone.acknowledged_at_ms IS NULL
                """)
            for id in ids {
                try statement.execute(arguments: [atMs, id])
                guard db.changesCount == 1 else { throw StoreError.unknownInterval(id) }
                try acknowledge.execute(arguments: [atMs, id])
            }
        }
    }

    /// Puts those of `ids` that are `inFlight` back to `pending` in one transaction, keeping their attempts and
    /// recording `error` when given (a claim that was not sent through: a pause, a wait for the sink, a cancellation).
    ///
    /// Synchronous on purpose: it also runs in cancelled tasks, where an `async` database access is interrupted.
    public func requeueClaimed(_ ids: [Int64], error: String? = nil) throws {
        guard !ids.isEmpty else { return }
        try dbWriter.write { db in
            let statement = try db.cachedStatement(sql: """
                UPDATE sync_interval SET status = 'pending', last_error = COALESCE(?, last_error)
                WHERE id = ? AND status = 'inFlight'
                """)
            for id in ids { try statement.execute(arguments: [error, id]) }
        }
    }

    /// Calls `body` once per interval of `intervals` with that interval's samples (start in its range, change
    /// sequence in its window, `(start, uuid)` order), all read in one read transaction through cached statements.
    ///
    /// Each interval is read in pages of `pageSize`, so memory is bounded by what `body` keeps.
    public func forEachSamplePage(
        of intervals: [SyncInterval], pageSize: Int = 5_000, _ body: (SyncInterval, [HealthSample]) throws -> Void
    ) throws {
        try dbWriter.read { db in
            for interval in intervals {
                var cursor: SampleCursor?
                let plain = interval.seqAfter == 0 && interval.seqThrough == .max
                while true {
                    let page = try Self.samplePage(db, of: interval.type, in: interval.range, after: cursor,
                                                   limit: pageSize, seqAfter: plain ? nil : interval.seqAfter,
                                                   seqThrough: plain ? nil : interval.seqThrough)
                    if page.isEmpty { break }
                    try body(interval, page)
                    guard page.count == pageSize, let last = page.last else { break }
                    cursor = SampleCursor(startMs: last.startMs, uuid: last.uuid)
                }
            }
        }
    }
}
