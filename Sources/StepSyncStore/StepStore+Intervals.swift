import GRDB
import GRDBSQLite
import StepSyncCore

/// SQLite copies a parameter bound with this destructor (the C macro, which Swift does not import).
private var SQLITE_TRANSIENT_INTERVAL: sqlite3_destructor_type {
    unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}

extension StepStore {
    // MARK: - Reading the ledger

    /// The intervals of `type` — backfill first, oldest first, then each later layering run's deltas — optionally only
    /// those with one of `status`.
    public func intervals(of type: SampleType = .stepCount, status: Set<IntervalStatus>? = nil) throws -> [SyncInterval] {
        try dbWriter.read { db in
            guard let typeId = try Self.typeId(of: type, in: db, create: false) else { return [] }
            var sql = "SELECT \(Self.intervalColumns) FROM sync_interval WHERE type_id = ?"
            var arguments: StatementArguments = [typeId]
            if let status {
                sql += " AND status IN (\(status.map { _ in "?" }.joined(separator: ",")))"
                arguments += StatementArguments(status.map(\.rawValue))
            }
            sql += " ORDER BY seq_after, start_ms, id"
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { Self.interval(from: $0, type: type) }
        }
    }

    /// The interval with this id.
    public func interval(id: Int64) throws -> SyncInterval {
        try dbWriter.read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT \(Self.intervalColumns), t.identifier FROM sync_interval
                JOIN sample_type t ON t.id = sync_interval.type_id WHERE sync_interval.id = ?
                """, arguments: [id])
            else { throw StoreError.unknownInterval(id) }
            return Self.interval(from: row, type: SampleType(row[14] as String))
        }
    }

    /// The backfill interval of `type` that ends last, or `nil` when the ledger has none.
    public func lastInterval(of type: SampleType = .stepCount) throws -> SyncInterval? {
        try dbWriter.read { db in
            guard let typeId = try Self.typeId(of: type, in: db, create: false) else { return nil }
            return try Row.fetchOne(db, sql: """
                SELECT \(Self.intervalColumns) FROM sync_interval WHERE type_id = ? AND seq_after = 0 AND kind = 'samples'
                ORDER BY start_ms DESC LIMIT 1
                """, arguments: [typeId]).map { Self.interval(from: $0, type: type) }
        }
    }

    /// The intervals of the given types (every type when `nil`) in the order a sync should send them: the history
    /// oldest first across types (backfill), then samples added inside layered ranges (deltas, oldest first), then
    /// deletions (oldest first); ties by type identifier, then id. Optionally only those with one of `status`.
    ///
    /// Sending in this order keeps the sink complete up to a point in time for every type while a backfill runs.
    /// The order is not needed for correctness: a deletion whose uuid is alive again is never sent, and a sample
    /// deleted since layering is not read, so any order ends with the sink holding exactly the store's samples.
    public func intervals(types: Set<SampleType>?, status: Set<IntervalStatus>? = nil) throws -> [SyncInterval] {
        try dbWriter.read { db in
            var sql = "SELECT \(Self.intervalColumns), t.identifier FROM sync_interval JOIN sample_type t ON t.id = sync_interval.type_id"
            var conditions: [String] = []
            var arguments = StatementArguments()
            if let status {
                conditions.append("sync_interval.status IN (\(status.map { _ in "?" }.joined(separator: ",")))")
                arguments += StatementArguments(status.map(\.rawValue))
            }
            if let types {
                conditions.append("t.identifier IN (\(types.map { _ in "?" }.joined(separator: ",")))")
                arguments += StatementArguments(types.map(\.rawValue))
            }
            if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
            sql += """
                 ORDER BY sync_interval.kind = 'deletions', sync_interval.seq_after > 0, sync_interval.start_ms,
                    t.identifier, sync_interval.id
                """
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map {
                Self.interval(from: $0, type: SampleType($0[14] as String))
            }
        }
    }

    /// The pending intervals of the given types (every type when `nil`), in the order of
    /// ``intervals(types:status:)``: what a sync has left to send.
    public func pendingIntervals(types: Set<SampleType>? = nil) throws -> [SyncInterval] {
        try intervals(types: types, status: [.pending])
    }

    /// Counts of the ledger of `type` by status, with steps and samples.
    public func intervalSummary(of type: SampleType = .stepCount) throws -> IntervalSummary {
        try ledgerSummary(types: [type]).byType[type] ?? IntervalSummary()
    }

    /// Counts of the ledger by status, per type and overall, for the given types (every type when `nil`); with
    /// `countingStore`, also what the store holds now of each (``IntervalSummary/storeSamples``: a count over the
    /// sample index, which `stepsync status` wants and a sync's start does not).
    public func ledgerSummary(types: Set<SampleType>? = nil, countingStore: Bool = false) throws -> LedgerSummary {
        try dbWriter.read { db in
            var summary = LedgerSummary()
            let rows = try Row.fetchAll(db, sql: """
                SELECT t.identifier, i.status, i.kind, COUNT(*), TOTAL(i.steps), TOTAL(i.samples), TOTAL(i.oversize)
                FROM sync_interval i JOIN sample_type t ON t.id = i.type_id GROUP BY t.identifier, i.status, i.kind
                """)
            for row in rows {
                let type = SampleType(row[0] as String)
                if let types, !types.contains(type) { continue }
                let count: Int = row[3]
                let sum: Double = row[4]
                let samples = Int(row[5] as Double)
                let isSynced = IntervalStatus(rawValue: row[1]) == .synced
                var part = IntervalSummary()
                part.intervals = count
                part.oversize = Int(row[6] as Double)
                switch IntervalStatus(rawValue: row[1]) {
                case .pending: part.pending = count
                case .inFlight: part.inFlight = count
                case .synced: part.synced = count
                case .failed: part.failed = count
                case nil: break
                }
                if IntervalKind(rawValue: row[2]) == .deletions {
                    part.deletions = samples
                    if isSynced { part.syncedDeletions = samples }
                } else {
                    part.samples = samples
                    part.sum = sum
                    if type == .stepCount { part.steps = sum }
                    if isSynced {
                        part.syncedSamples = samples
                        part.syncedSum = sum
                        if type == .stepCount { part.syncedSteps = sum }
                    }
                }
                summary.byType[type, default: IntervalSummary()].add(part, keepSums: true)
                summary.overall.add(part, keepSums: false)
            }
            // What the store holds now of each type in the summary, from the (type, start, …) index: a deletion
            // lowers it at once, before it is layered or synced.
            guard countingStore else { return summary }
            for row in try Row.fetchAll(db, sql: """
                SELECT t.identifier, (SELECT COUNT(*) FROM sample s WHERE s.type_id = t.id) FROM sample_type t
                """) {
                let type = SampleType(row[0] as String)
                let count: Int = row[1]
                // Only the types the ledger knows (a type never layered has no line yet).
                guard summary.byType[type] != nil else { continue }
                var part = IntervalSummary()
                part.storeSamples = count
                summary.byType[type, default: IntervalSummary()].add(part, keepSums: true)
                summary.overall.add(part, keepSums: false)
            }
            return summary
        }
    }

    // MARK: - Writing the ledger

    /// Appends `intervals` (all of one type, oldest first, contiguous) after the ledger's last interval of that type,
    /// in one transaction: all of them commit, or none.
    ///
    /// - Throws: ``StoreError/intervalsNotContiguous(_:)`` when they leave a gap or overlap between themselves or
    ///   with the ledger.
    /// - Returns: the intervals with their ids.
    @discardableResult
    public func appendIntervals(_ intervals: [SyncInterval]) throws -> [SyncInterval] {
        guard let type = intervals.first?.type else { return [] }
        return try dbWriter.write { db in
            let typeId = try Self.typeId(of: type, in: db, create: true)!
            let previousEnd = try Int64.fetchOne(db, sql: """
                SELECT MAX(end_ms) FROM sync_interval WHERE type_id = ? AND seq_after = 0 AND kind = 'samples'
                """, arguments: [typeId])
            return try Self.insertIntervals(intervals, typeId: typeId, continuing: previousEnd, in: db)
        }
    }

    /// Inserts intervals of one type, checking that the backfill ones (`seqAfter == 0`, kind samples) continue the
    /// ledger from `continuing` and that each run of same-window intervals is contiguous.
    static func insertIntervals(
        _ intervals: [SyncInterval], typeId: Int64, continuing previousBackfillEnd: Int64?, in db: Database
    ) throws -> [SyncInterval] {
        guard let type = intervals.first?.type else { return [] }
        let statement = try db.makeStatement(sql: """
            INSERT INTO sync_interval (type_id, start_ms, end_ms, kind, seq_after, seq_through, steps, samples,
                oversize, status, attempts, last_error, synced_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        var backfillEnd = previousBackfillEnd
        var previous: SyncInterval?
        var stored: [SyncInterval] = []
        stored.reserveCapacity(intervals.count)
        for var interval in intervals {
            guard interval.type == type else {
                throw StoreError.intervalsNotContiguous("one append mixes \(type) and \(interval.type)")
            }
            if interval.kind == .samples, interval.seqAfter == 0 {
                if let end = backfillEnd, interval.range.start != end {
                    throw StoreError.intervalsNotContiguous(
                        "interval \(interval.range) does not start where the previous one ends (\(ISO8601Millis.format(end)))")
                }
                backfillEnd = interval.range.end
            } else if let previous, previous.kind == interval.kind, previous.seqAfter == interval.seqAfter,
                      previous.seqThrough == interval.seqThrough, interval.kind == .samples,
                      interval.range.start != previous.range.end {
                throw StoreError.intervalsNotContiguous(
                    "delta interval \(interval.range) does not start where the previous one ends")
            }
            interval.id = try insert(interval, typeId: typeId, with: statement, in: db)
            stored.append(interval)
            previous = interval
        }
        return stored
    }

    /// Inserts one interval through `statement` (the `INSERT` of ``insertIntervals(_:typeId:continuing:in:)``),
    /// binding its parameters with the SQLite C API (no argument array per row). Returns its id.
    private static func insert(_ interval: SyncInterval, typeId: Int64, with statement: Statement, in db: Database)
        throws -> Int64
    {
        let s = statement.sqliteStatement
        sqlite3_bind_int64(s, 1, typeId)
        sqlite3_bind_int64(s, 2, interval.range.start)
        sqlite3_bind_int64(s, 3, interval.range.end)
        bindStatic(interval.kind.rawValue, to: s, at: 4)
        sqlite3_bind_int64(s, 5, interval.seqAfter)
        sqlite3_bind_int64(s, 6, interval.seqThrough)
        sqlite3_bind_double(s, 7, interval.steps)
        sqlite3_bind_int64(s, 8, Int64(interval.samples))
        sqlite3_bind_int64(s, 9, interval.oversize ? 1 : 0)
        bindStatic(interval.status.rawValue, to: s, at: 10)
        sqlite3_bind_int64(s, 11, Int64(interval.attempts))
        if let error = interval.lastError {
            _ = error.withCString { sqlite3_bind_text(s, 12, $0, -1, SQLITE_TRANSIENT_INTERVAL) }
        } else {
            sqlite3_bind_null(s, 12)
        }
        if let syncedAt = interval.syncedAtMs { sqlite3_bind_int64(s, 13, syncedAt) } else { sqlite3_bind_null(s, 13) }
        let code = sqlite3_step(s)
        sqlite3_reset(s)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
        }
        return sqlite3_last_insert_rowid(db.sqliteConnection)
    }

    /// Binds a short ASCII text (a status or kind) to parameter `index`, copied by SQLite.
    private static func bindStatic(_ text: String, to s: OpaquePointer, at index: Int32) {
        _ = text.withCString { sqlite3_bind_text(s, index, $0, -1, SQLITE_TRANSIENT_INTERVAL) }
    }

    /// Deletes every interval of `type` (all types when `nil`) and what the layering runs recorded, so the next
    /// `layer` starts from scratch. Returns how many intervals were deleted.
    @discardableResult
    public func deleteIntervals(of type: SampleType? = nil) throws -> Int {
        try dbWriter.write { db in
            if let type {
                guard let typeId = try Self.typeId(of: type, in: db, create: false) else { return 0 }
                try db.execute(sql: "DELETE FROM sync_interval WHERE type_id = ?", arguments: [typeId])
                let count = db.changesCount
                try db.execute(sql: "DELETE FROM layer_state WHERE type_id = ?", arguments: [typeId])
                return count
            } else {
                try db.execute(sql: "DELETE FROM sync_interval")
                let count = db.changesCount
                try db.execute(sql: "DELETE FROM layer_state")
                return count
            }
        }
    }

    /// Claims an interval for sending: `pending` → `inFlight`, one more attempt. Returns false if it was not pending.
    public func markInFlight(_ id: Int64) throws -> Bool {
        try dbWriter.write { db in
            try db.execute(sql: """
                UPDATE sync_interval SET status = 'inFlight', attempts = attempts + 1 WHERE id = ? AND status = 'pending'
                """, arguments: [id])
            return db.changesCount == 1
        }
    }

    /// Records the sink's acknowledgement: the interval is `synced` once this returns (the commit is fsynced, so it
    /// survives power loss too).
    ///
    /// Marking a deletions interval synced also records, in the same transaction, that the sink acknowledged the
    /// deletion of each of its tombstones: a layering run after `reset` sends only the deletions never acknowledged.
    public func markSynced(_ id: Int64, atMs: Int64) throws {
        try dbWriter.write { db in
            let mark = try db.cachedStatement(sql: """
                UPDATE sync_interval SET status = 'synced', synced_at_ms = ?, last_error = NULL WHERE id = ?
                """)
            try mark.execute(arguments: [atMs, id])
            guard db.changesCount == 1 else { throw StoreError.unknownInterval(id) }
            let acknowledge = try db.cachedStatement(sql: """
                UPDATE tombstone SET acknowledged_at_ms = ?1
                FROM (SELECT type_id, seq_after, seq_through FROM sync_interval WHERE id = ?2 AND kind = 'deletions') AS i
                WHERE tombstone.seq > i.seq_after AND tombstone.seq <= i.seq_through AND tombstone.type_id = i.type_id
                  AND tombstone.acknowledged_at_ms IS NULL
                """)
            try acknowledge.execute(arguments: [atMs, id])
        }
    }

    /// Marks the interval `failed` with the reason the sink or the network gave; `additionalAttempts` adds the sends
    /// of this claim after its first (the claim counted one), so `attempts` counts sends.
    public func markFailed(_ id: Int64, error: String, additionalAttempts: Int = 0) throws {
        try dbWriter.write { db in
            try db.execute(sql: """
                UPDATE sync_interval SET status = 'failed', last_error = ?, attempts = attempts + ? WHERE id = ?
                """, arguments: [error, additionalAttempts, id])
            guard db.changesCount == 1 else { throw StoreError.unknownInterval(id) }
        }
    }

    /// Puts an interval back to `pending` (a paused sync that did not send it), keeping its attempts and error.
    public func markPending(_ id: Int64, error: String? = nil) throws {
        try dbWriter.write { db in
            try db.execute(sql: """
                UPDATE sync_interval SET status = 'pending', last_error = COALESCE(?, last_error) WHERE id = ?
                """, arguments: [error, id])
        }
    }

    /// Puts every interval left `inFlight` (by a crashed or killed sync) back to `pending`. Returns how many.
    @discardableResult
    public func requeueInFlight() throws -> Int {
        try dbWriter.write { db in
            try db.execute(sql: "UPDATE sync_interval SET status = 'pending' WHERE status = 'inFlight'")
            return db.changesCount
        }
    }

    /// Puts every `failed` interval back to `pending` (`sync --retry-failed`), resetting attempts. Returns how many.
    @discardableResult
    public func requeueFailed() throws -> Int {
        try dbWriter.write { db in
            try db.execute(sql: "UPDATE sync_interval SET status = 'pending', attempts = 0 WHERE status = 'failed'")
            return db.changesCount
        }
    }

    // MARK: - Rows

    static let intervalColumns = """
        sync_interval.id, sync_interval.start_ms, sync_interval.end_ms, sync_interval.steps, sync_interval.samples,
        sync_interval.oversize, sync_interval.status, sync_interval.attempts, sync_interval.last_error,
        sync_interval.synced_at_ms, sync_interval.type_id, sync_interval.kind, sync_interval.seq_after,
        sync_interval.seq_through
        """

    static func interval(from row: Row, type: SampleType) -> SyncInterval {
        SyncInterval(
            id: row[0],
            type: type,
            range: TimeRange(start: row[1], end: row[2]),
            kind: IntervalKind(rawValue: row[11]) ?? .samples,
            seqAfter: row[12],
            seqThrough: row[13],
            steps: row[3],
            samples: row[4],
            oversize: row[5],
            status: IntervalStatus(rawValue: row[6]) ?? .pending,
            attempts: row[7],
            lastError: row[8],
            syncedAtMs: row[9])
    }
}
