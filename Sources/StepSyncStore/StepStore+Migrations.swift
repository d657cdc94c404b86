import GRDB

extension StepStore {
    /// The schema, as string-named migrations. A migration that has landed on main is never edited: add a new one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        migrator.registerMigration("v1: samples, tombstones, intervals") { db in
            // The change sequence (anchor) shared by inserts and deletions.
            try db.execute(sql: """
                CREATE TABLE store_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    change_seq INTEGER NOT NULL
                );
                INSERT INTO store_state (id, change_seq) VALUES (1, 0);

                CREATE TABLE sample_type (
                    id INTEGER PRIMARY KEY,
                    identifier TEXT NOT NULL UNIQUE
                );

                -- One row per raw sample. `seq` is the change sequence at insertion (and the rowid: inserts append).
                CREATE TABLE sample (
                    seq INTEGER PRIMARY KEY,
                    uuid BLOB NOT NULL,
                    type_id INTEGER NOT NULL REFERENCES sample_type(id),
                    start_ms INTEGER NOT NULL,
                    end_ms INTEGER NOT NULL CHECK (end_ms >= start_ms),
                    utc_offset INTEGER,
                    value REAL NOT NULL,
                    unit TEXT NOT NULL,
                    source_name TEXT NOT NULL,
                    source_bundle_id TEXT NOT NULL,
                    source_version TEXT,
                    device_name TEXT,
                    device_model TEXT
                );
                CREATE UNIQUE INDEX sample_uuid ON sample(uuid);
                -- Time-range queries on one type: (start, uuid) paging, and statistics read from the index alone.
                CREATE INDEX sample_type_start ON sample(type_id, start_ms, uuid, value);

                -- Deleted samples, as HealthKit's deleted objects: what an incremental sync must send as deletions.
                CREATE TABLE tombstone (
                    seq INTEGER PRIMARY KEY,
                    uuid BLOB NOT NULL,
                    type_id INTEGER NOT NULL REFERENCES sample_type(id),
                    start_ms INTEGER NOT NULL
                );
                CREATE INDEX tombstone_uuid ON tombstone(uuid);

                -- The ledger of sync intervals: half-open [start_ms, end_ms) per type, each with the sequence window
                -- (seq_after, seq_through] it snapshots. The backfill intervals (seq_after = 0) are contiguous.
                CREATE TABLE sync_interval (
                    id INTEGER PRIMARY KEY,
                    type_id INTEGER NOT NULL REFERENCES sample_type(id),
                    start_ms INTEGER NOT NULL,
                    end_ms INTEGER NOT NULL CHECK (end_ms > start_ms),
                    kind TEXT NOT NULL DEFAULT 'samples' CHECK (kind IN ('samples', 'deletions')),
                    seq_after INTEGER NOT NULL DEFAULT 0,
                    seq_through INTEGER NOT NULL,
                    steps REAL NOT NULL,
                    samples INTEGER NOT NULL,
                    oversize INTEGER NOT NULL DEFAULT 0,
                    status TEXT NOT NULL DEFAULT 'pending'
                        CHECK (status IN ('pending', 'inFlight', 'synced', 'failed')),
                    attempts INTEGER NOT NULL DEFAULT 0,
                    last_error TEXT,
                    synced_at_ms INTEGER
                );
                CREATE INDEX sync_interval_type_start ON sync_interval(type_id, start_ms);
                CREATE INDEX sync_interval_status ON sync_interval(status, start_ms);

                -- What each layering run has covered: samples and tombstones up to `anchor` are in the ledger.
                CREATE TABLE layer_state (
                    type_id INTEGER PRIMARY KEY REFERENCES sample_type(id),
                    anchor INTEGER NOT NULL,
                    layered_end_ms INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v2: sample details") { db in
            // Type-specific fields (a workout's activity, duration, totals, statistics and events; HRV beats) as one
            // JSON object, NULL for most samples. Not indexed: it is only read back with its sample.
            try db.execute(sql: "ALTER TABLE sample ADD COLUMN details TEXT")
        }
        registerRejectedSamplesMigration(&migrator)
        registerLongSampleIndexMigration(&migrator)

        migrator.registerMigration("v5: tombstone acknowledgements") { db in
            // When the sink acknowledged the deletion of a tombstone's uuid (a deletions interval holding it was
            // marked synced). A layering run after `reset` sends again every tombstone without one.
            try db.execute(sql: """
                ALTER TABLE tombstone ADD COLUMN acknowledged_at_ms INTEGER;
                UPDATE tombstone SET acknowledged_at_ms = (
                    SELECT MAX(i.synced_at_ms) FROM sync_interval i
                    WHERE i.kind = 'deletions' AND i.status = 'synced' AND i.type_id = tombstone.type_id
                      AND tombstone.seq > i.seq_after AND tombstone.seq <= i.seq_through);
                """)
        }

        registerHourlyRollupMigration(&migrator)
        registerStoreMetaMigration(&migrator)

        return migrator
    }
}
