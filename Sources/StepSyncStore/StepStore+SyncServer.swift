import GRDB

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

    // MARK: - The last sync's sink

    /// Records `url` as the sink of the sync that is starting (`stepsync sync --server`).
    public func recordSyncServer(_ url: String) throws {
        try dbWriter.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO store_meta (key, value) VALUES ('last_sync_server', ?)",
                           arguments: [url])
        }
    }

    /// The base URL of the sink the last sync used, `nil` when no sync ran on this store yet.
    public func lastSyncServer() throws -> String? {
        try dbWriter.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM store_meta WHERE key = 'last_sync_server'")
        }
    }
}
