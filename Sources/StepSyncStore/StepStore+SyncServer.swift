import GRDB
import StepSyncCore

/// The sink the last sync used (`store_meta`), for `stepsync status`.
extension StepStore {
    // MARK: - Schema

    /// Registers `v7: store meta`: a key–value table for facts about the store as a whole (`last_sync_server`).
    static func registerStoreMetaMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7: store meta") { db in
            try db.execute(sql: """
                CREATE TABLE store_meta (
                    key TEXT PRIMARY KEY NOT NULL,
                    value TEXT NOT NULL
                ) WITHOUT ROWID;
                """)
        }
    }
}

/// The target the last sync sent to (``SinkTarget``): what a sync checks before sending only what is pending.
extension StepStore {
    /// Records `target` as the one this store's ledger syncs to (the server, the sink's identity, the token's
    /// fingerprint), in one transaction.
    public func recordSyncTarget(_ target: SinkTarget) throws {
        try dbWriter.write { db in
            for (key, value) in [("last_sync_server", target.server), ("last_sync_sink", target.sink ?? ""),
                                 ("last_sync_token", target.token ?? "")] {
                try db.execute(sql: "INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)",
                               arguments: [key, value])
            }
        }
    }

    /// The target the last sync sent to, `nil` when no sync ran on this store. A store last synced by an older
    /// stepsync knows only the server (``SinkTarget/sink`` and ``SinkTarget/token`` are `nil`).
    public func lastSyncTarget() throws -> SinkTarget? {
        try dbWriter.read { db in
            var meta: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM store_meta WHERE key LIKE 'last_sync_%'") {
                meta[row[0]] = row[1]
            }
            guard let server = meta["last_sync_server"] else { return nil }
            func nonEmpty(_ key: String) -> String? { meta[key].flatMap { $0.isEmpty ? nil : $0 } }
            return SinkTarget(server: server, sink: nonEmpty("last_sync_sink"), token: nonEmpty("last_sync_token"))
        }
    }

    /// Whether any interval is marked synced: whether the ledger claims anything of a sink.
    public func hasSyncedIntervals() throws -> Bool {
        try dbWriter.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sync_interval WHERE status = 'synced')") ?? false
        }
    }

    /// Puts every synced and failed interval back in the queue (`sync --resend`: the sink the next run sends to holds
    /// none of it), in one transaction; returns how many. Tombstones stay acknowledged only where they were: a
    /// deletion sent again deletes nothing that is not there.
    @discardableResult
    public func requeueAllIntervals() throws -> Int {
        try dbWriter.write { db in
            try db.execute(sql: """
                UPDATE sync_interval SET status = 'pending', attempts = 0, last_error = NULL, synced_at_ms = NULL
                WHERE status IN ('synced', 'failed')
                """)
            return db.changesCount
        }
    }
}
