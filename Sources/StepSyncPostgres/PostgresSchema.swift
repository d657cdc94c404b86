import Logging
import PostgresNIO

/// One schema change: applied once, in order, recorded in `schema_migrations`. **Never edit a migration once it
/// has landed on main**; add a new one.
struct PostgresMigration: Sendable {
    /// The order of application; recorded in `schema_migrations.version`.
    let version: Int
    /// A short name, for logs and `schema_migrations.name`.
    let name: String
    /// The statements, run in one transaction with the rest of the migration run.
    let statements: [String]
}

/// The sink's schema and its migrations (see `Planning/postgres.md`).
///
/// **Concurrent starts.** Several `serve` processes may start on one database at once. ``migrate(_:upTo:logger:)`` runs in
/// one transaction that first takes a transaction-level advisory lock (``lockKey``): the others wait on it, then see
/// the versions the first recorded and apply nothing. DDL is transactional in PostgreSQL, so a failed migration
/// leaves no half-built schema.
enum PostgresSchema {
    /// `pg_advisory_xact_lock` key of the migration run ("stepsync" in ASCII).
    static let lockKey: Int64 = 0x7374_6570_7379_6E63

    static let migrations: [PostgresMigration] = [
        PostgresMigration(version: 1, name: "clients and samples", statements: [
            """
            CREATE TABLE clients (
                id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
                token_sha256  bytea NOT NULL UNIQUE CHECK (length(token_sha256) = 32),
                created_at    timestamptz NOT NULL DEFAULT now(),
                last_seen_at  timestamptz,
                revoked_at    timestamptz
            )
            """,
            // A name is taken while its client is active; a revoked client keeps its row (and its samples).
            "CREATE UNIQUE INDEX clients_active_name ON clients (name) WHERE revoked_at IS NULL",
            """
            CREATE TABLE samples (
                client_id          bigint NOT NULL REFERENCES clients (id),
                uuid               uuid NOT NULL,
                type               text NOT NULL,
                start_at           timestamptz NOT NULL,
                end_at             timestamptz NOT NULL,
                utc_offset_seconds integer,
                value              double precision NOT NULL,
                unit               text NOT NULL,
                source_name        text NOT NULL,
                source_bundle_id   text NOT NULL,
                source_version     text,
                device_name        text,
                device_model       text,
                details            json,
                PRIMARY KEY (client_id, uuid)
            )
            """,
            // Paging by (client, type, start) with the uuid as tie-breaker, and the ranges the daily totals read.
            "CREATE INDEX samples_client_type_start ON samples (client_id, type, start_at, uuid)",
        ]),
        PostgresMigration(version: 2, name: "index of samples longer than an hour", statements: [
            // Bounds the look-back of the daily totals (a sample overlapping the first day may start before it):
            // the longest sample of a client and type over an hour, read from this index in a few pages where the
            // whole table would be read otherwise. Samples over an hour are rare (39 of 624k in the realistic
            // decade). Queries must repeat the condition `end_at - start_at > interval '1 hour'` word for word
            // (``PostgresSampleStorage/stepSpans(client:overlapping:)``).
            """
            CREATE INDEX samples_long_duration ON samples (client_id, type, (end_at - start_at))
            WHERE end_at - start_at > interval '1 hour'
            """,
        ]),
        PostgresMigration(version: 3, name: "type keys in the indexes, no uuid tie-breaker, no per-row client check", statements: [
            // Schema v3 (issue 26): the indexes carry an 8-byte key of the type instead of its name (33 bytes for
            // steps), and the paging index drops the uuid tie-breaker: `(client_id, type_key, start_at)` is 24 bytes
            // a row where `(client_id, type, start_at, uuid)` was 72. The name stays in the row; statements filter
            // on both (see `SampleTypeKey`, which computes the same key in the sink).
            """
            CREATE FUNCTION stepsync_type_key(name text) RETURNS bigint
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            RETURN ('x' || substr(md5(name), 1, 16))::bit(64)::bigint
            """,
            "DROP INDEX samples_long_duration",
            "DROP INDEX samples_client_type_start",
            // A constant default is recorded, not written; the type change then rewrites the table once, compactly
            // (an UPDATE would leave a dead copy of every row), computing each row's key.
            "ALTER TABLE samples ADD COLUMN type_key bigint NOT NULL DEFAULT 0",
            """
            ALTER TABLE samples ALTER COLUMN type_key TYPE bigint USING stepsync_type_key(type),
                                ALTER COLUMN type_key DROP DEFAULT
            """,
            "CREATE INDEX samples_client_type_start ON samples (client_id, type_key, start_at)",
            """
            CREATE INDEX samples_long_duration ON samples (client_id, type_key, (end_at - start_at))
            WHERE end_at - start_at > interval '1 hour'
            """,
            // The foreign key samples.client_id → clients checked every inserted row with a query of its own (an
            // SPI `SELECT … FOR KEY SHARE` of the client's row: ≈ 15 % of PostgreSQL's CPU on ingest, profiled
            // 2026-11-26). What it guarded is kept cheaper: a client is never deleted (revoked, its row kept), which
            // the trigger below enforces, and every batch checks its client once (`newTypes`).
            "ALTER TABLE samples DROP CONSTRAINT samples_client_id_fkey",
            """
            CREATE FUNCTION stepsync_clients_are_kept() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'clients are never deleted: revoke them (stepsync clients revoke); samples name them'
                    USING ERRCODE = 'restrict_violation';
            END
            $$
            """,
            """
            CREATE TRIGGER clients_are_kept BEFORE DELETE OR TRUNCATE ON clients
            FOR EACH STATEMENT EXECUTE FUNCTION stepsync_clients_are_kept()
            """,
        ]),
        PostgresMigration(version: 4, name: "the database's sink identity", statements: [
            // One uuid for the data this database holds, answered by GET /health: a client's ledger remembers it and
            // stops before sending to another sink as if it were this one (`SinkTarget`). Every sink on this
            // database answers the same, since they serve the same data.
            """
            CREATE TABLE sink_identity (
                id         uuid PRIMARY KEY,
                created_at timestamptz NOT NULL DEFAULT now(),
                singleton  boolean NOT NULL DEFAULT true UNIQUE CHECK (singleton)
            )
            """,
            "INSERT INTO sink_identity (id) VALUES (gen_random_uuid())",
        ]),
        PostgresMigration(version: 5, name: "the paging index covers the daily totals", statements: [
            // The daily totals read every step sample of a range (a decade: 624k rows). Through the paging index
            // each row was a heap fetch, and one client's steps lie spread over the heap as they arrived (beside its
            // heart rate): 96.5k buffers for 100k rows. Rebuilt with the columns `stepSpansQuery` reads included,
            // the read is an index-only scan once autovacuum has marked the pages visible: 1.1–1.6k buffers for
            // 100k rows. Writes pay no second index (a partial covering index for steps beside it cost ≈ 20 % more of
            // PostgreSQL's CPU per step insert; this one the same as before, Planning/postgres.md). The statement
            // reads the type's key, not its name (not in the index): the sink refuses a type name sharing the step
            // count's key (`SampleTypeKey.refusal`), and the first statement checks no stored row does.
            """
            DO $$
            BEGIN
                IF EXISTS (SELECT 1 FROM samples
                           WHERE type_key = stepsync_type_key('HKQuantityTypeIdentifierStepCount')
                             AND type <> 'HKQuantityTypeIdentifierStepCount') THEN
                    RAISE EXCEPTION 'a stored sample type other than the step count has its type key';
                END IF;
            END
            $$
            """,
            """
            CREATE INDEX samples_client_type_start_v5 ON samples (client_id, type_key, start_at)
            INCLUDE (end_at, value, uuid, device_name)
            """,
            "DROP INDEX samples_client_type_start",
            "ALTER INDEX samples_client_type_start_v5 RENAME TO samples_client_type_start",
        ]),
    ]

    /// The newest version this build knows.
    static var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Applies every migration the database lacks up to `target` (the newest, unless a test builds an older schema),
    /// under the advisory lock, in one transaction; returns the versions applied (empty when the schema was up to
    /// date).
    ///
    /// - Throws: ``PostgresStorageError`` when the database's schema is newer than this build, when a migration
    ///   fails (nothing of the run is kept), or when the database cannot be reached.
    static func migrate(_ client: PostgresClient, upTo target: Int = latestVersion,
                        logger: Logger) async throws -> [Int] {
        let applied: [Int]
        do {
            applied = try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
                try await connection.query("""
                    CREATE TABLE IF NOT EXISTS schema_migrations (
                        version    integer PRIMARY KEY,
                        name       text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """, logger: logger)
                var done = Set<Int>()
                for try await version in try await connection.query(
                    "SELECT version FROM schema_migrations", logger: logger).decode(Int.self) {
                    done.insert(version)
                }
                if let newest = done.max(), newest > latestVersion {
                    throw PostgresStorageError.newerSchema(newest, known: latestVersion)
                }
                var appliedNow: [Int] = []
                for migration in migrations where !done.contains(migration.version) && migration.version <= target {
                    do {
                        for statement in migration.statements {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                        try await connection.query(
                            "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                            logger: logger)
                    } catch {
                        let wrapped = PostgresStorageError.from(error)
                        if wrapped.isUnavailable { throw wrapped }
                        throw PostgresStorageError.migration(migration.version, migration.name, wrapped.message)
                    }
                    appliedNow.append(migration.version)
                }
                return appliedNow
            }
        } catch {
            throw PostgresStorageError.from(error)
        }
        for version in applied {
            logger.info("Schema migration applied", metadata: ["postgres.migration.version": "\(version)"])
        }
        return applied
    }
}
