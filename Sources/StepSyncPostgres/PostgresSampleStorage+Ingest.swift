import Foundation
import PostgresNIO
import StepSyncCore

extension PostgresSampleStorage {
    /// Columns of `samples` a batch writes (besides `client_id`), in the order of the staging table and of the
    /// multi-row `VALUES`.
    static let sampleColumns = "uuid, type, start_at, end_at, utc_offset_seconds, value, unit, source_name, "
        + "source_bundle_id, source_version, device_name, device_model, details, type_key"

    /// The columns of `COPY samples` (the direct path of ``insertByCopy(_:client:direct:)``): `client_id` and
    /// ``sampleColumns``.
    static let copyColumns = ["client_id"] + sampleColumns.split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespaces)
    }

    /// The key (``SampleTypeKey``) of every type of a batch. A batch is usually one run of one type: the name is
    /// hashed once per run of a type, not once per sample.
    ///
    /// - Throws: ``SampleStorageError`` (400 `invalid_type`) for a name sharing the step count's key
    ///   (``SampleTypeKey/refusal(name:key:)``); nothing of the batch is stored.
    static func typeKeys(_ samples: [HealthSample]) throws -> [String: Int64] {
        var keys: [String: Int64] = [:]
        var last: String?
        for sample in samples where sample.type.rawValue != last {
            last = sample.type.rawValue
            if keys[sample.type.rawValue] == nil {
                let key = SampleTypeKey.of(sample.type)
                if let refusal = SampleTypeKey.refusal(name: sample.type.rawValue, key: key) { throw refusal }
                keys[sample.type.rawValue] = key
            }
        }
        return keys
    }

    /// Stores the samples of `client` whose uuid it does not hold yet, in one transaction committed (WAL flushed)
    /// before returning; returns how many were inserted and how many were already there (or repeated in the batch).
    ///
    /// Rows are inserted in uuid order, so two transactions carrying overlapping batches — two sinks, or two
    /// requests of one client — take the unique index's locks in the same order and never deadlock; the second
    /// waits for the first to commit, then counts its rows as duplicates.
    func insert(_ samples: [HealthSample], client: Int64) async throws -> (inserted: Int, duplicates: Int) {
        guard !samples.isEmpty else { return (0, 0) }
        let inserted: Int
        switch configuration.ingest {
        case .copy, .copyText: inserted = try await insertByCopy(samples, client: client, direct: true)
        case .copyStaging: inserted = try await insertByCopy(samples, client: client, direct: false)
        case .insert: inserted = try await insertByValues(samples, client: client)
        }
        return (inserted, samples.count - inserted)
    }

    // MARK: - The type limit

    /// Refuses the batch (``PostgresStorageError/tooManyTypes(limit:stored:new:)``, before anything is written in its
    /// transaction) when its types would bring `client` past ``Configuration/maxTypes`` distinct types.
    ///
    /// The usual batch brings no new type: one statement, an index probe per type of the batch. Only a batch with a
    /// new type takes the client's transaction-level advisory lock — so two requests adding types one at a time
    /// cannot both slip under the limit — and counts the client's types: a loose index scan of
    /// `samples_client_type_start` (one probe per type key held, stopping past the limit), not a scan of its
    /// samples. (It counts distinct keys: two held names sharing a 64-bit key would count once; making a name share a
    /// held type's key takes ≈ 2⁶⁴ MD5s, see ``SampleTypeKey``.)
    func checkTypeLimit(_ types: [String], client: Int64, on connection: PostgresConnection) async throws {
        let limit = configuration.maxTypes
        guard try await newTypes(types, client: client, on: connection) > 0 else { return }
        try await connection.query("""
            SELECT pg_advisory_xact_lock(\(Self.typeLockClass), \(Int32(truncatingIfNeeded: client)))
            """, logger: logger)
        // Again, under the lock: a transaction that held it may have committed some of these types.
        let fresh = try await newTypes(types, client: client, on: connection)
        let rows = try await connection.query("""
            WITH RECURSIVE held(key, n) AS (
                (SELECT type_key, 1 FROM samples WHERE client_id = \(client) ORDER BY type_key LIMIT 1)
                UNION ALL
                SELECT (SELECT s.type_key FROM samples s WHERE s.client_id = \(client) AND s.type_key > held.key
                        ORDER BY s.type_key LIMIT 1), n + 1
                FROM held WHERE held.key IS NOT NULL AND n <= \(limit)
            )
            SELECT count(key) FROM held
            """, logger: logger)
        var held = 0
        for try await count in rows.decode(Int.self) { held = count }
        if held + fresh > limit { throw PostgresStorageError.tooManyTypes(limit: limit, stored: held, new: fresh) }
    }

    /// The first key of the type limit's advisory lock (the second is the client's id); `pg_advisory_xact_lock(int,
    /// int)` keys do not meet the migrations' one-`bigint` lock.
    static let typeLockClass: Int32 = 0x7479_7065  // "type"

    /// How many of `types` `client` holds no sample of: one probe of `samples_client_type_start` per type's key (a
    /// scalar subquery with `LIMIT 1`, which the planner cannot turn into an anti-join reading the whole table), run
    /// as the prepared ``TypeProbeStatement`` (planned once per connection; why it orders by `start_at` is there).
    ///
    /// The probe filters on the key alone, both columns the index leads with, so every plan stops at the first row of
    /// a held type. With the name beside it (not in the index) the planner estimated few rows and chose a bitmap scan
    /// of all the client's entries of the key — half of PostgreSQL's CPU on ingest, growing with the client's
    /// samples — and with `ORDER BY start_at` a sort of them (profiled 2026-11-26, `Planning/postgres.md`). Like the
    /// count of held types, it counts keys: a new type whose key collides with a held one (≈ 2⁻⁶⁴ per pair; 64 bits so
    /// that no client can make one on purpose) is not counted as new.
    ///
    /// The same statement checks that `client` is in `clients` (one probe of its primary key), once per batch: what
    /// the foreign key did per row until migration 3 (clients are never deleted, a trigger refuses it).
    ///
    /// - Throws: ``PostgresStorageError/unknownClientID(_:)`` when no client has this id.
    private func newTypes(_ types: [String], client: Int64, on connection: PostgresConnection) async throws -> Int {
        let keys = types.map { SampleTypeKey.of($0) }
        let probe = TypeProbeStatement(keys: Array(Set(keys)), client: client)
        let rows = try await connection.execute(probe, logger: logger)
        var count = 0
        var known = false
        for try await (value, exists) in rows { (count, known) = (value, exists) }
        guard known else { throw PostgresStorageError.unknownClientID(client) }
        return count
    }

    // MARK: - COPY

    /// With `direct` (``IngestMethod/copy``, the default), COPY straight into `samples`, in uuid order; when a uuid
    /// of the batch is held already (SQLSTATE 23505: a resend, or a uuid repeated in the body), the transaction is
    /// rolled back and the batch goes through the staging table and `INSERT … ON CONFLICT DO NOTHING`, which counts
    /// the duplicates (the only path of ``IngestMethod/copyStaging``).
    ///
    /// The direct COPY skips the staging rows, the sort and the speculative insertion per row, and the usual batch is
    /// all new (measured in `Planning/postgres.md`). Its rows go in uuid order like the `INSERT`'s, so concurrent
    /// batches still take the primary key's locks in one order: a second batch overlapping an uncommitted first waits
    /// for its COMMIT, then meets 23505 and takes the staging path. The unique key is what refuses a duplicate.
    private func insertByCopy(_ samples: [HealthSample], client: Int64, direct: Bool) async throws -> Int {
        let keys = try Self.typeKeys(samples)
        let types = Array(keys.keys)
        let sorted = Self.sortedByUUID(samples)
        // One budget for the call: a direct COPY that waited on an overlapping batch, then met its uuids, leaves the
        // staging path only what remains of it.
        let deadline = self.deadline()
        if direct, try await copyAllNew(sorted, keys: keys, client: client, deadline: deadline) { return sorted.count }
        return try await transaction(deadline: deadline) { connection in
            do {
                try await self.checkTypeLimit(types, client: client, on: connection)
                return try await self.copyAndInsert(sorted, keys: keys, client: client, on: connection)
            } catch {
                // A rolled-back transaction may have taken the staging table it created with it.
                _ = self.stagedConnections.withLock { $0.remove(connection.id) }
                throw error
            }
        }
    }

    /// In a transaction of its own, the type limit checked, `COPY samples FROM STDIN` of `sorted` (uuid-ordered):
    /// true when committed, false (rolled back, nothing stored) when a uuid of the batch is held already (SQLSTATE
    /// 23505) and the batch must take the staging path.
    func copyAllNew(_ sorted: [HealthSample], keys: [String: Int64], client: Int64,
                    deadline: ContinuousClock.Instant) async throws -> Bool {
        do {
            return try await transaction(deadline: deadline) { connection in
                try await self.checkTypeLimit(Array(keys.keys), client: client, on: connection)
                do {
                    try await self.copyIntoSamples(sorted, keys: keys, client: client, on: connection)
                } catch where PostgresStorageError.sqlState(error) == "23505" {
                    throw UUIDAlreadyHeld()
                }
                return true
            }
        } catch is UUIDAlreadyHeld {
            logger.debug("Batch with held uuids: staging path")
            return false
        }
    }

    /// `COPY samples FROM STDIN` of `samples` (uuid-ordered), inside the caller's transaction: in the binary format
    /// unless the storage was configured with ``IngestMethod/copyText``.
    func copyIntoSamples(_ samples: [HealthSample], keys: [String: Int64], client: Int64,
                         on connection: PostgresConnection) async throws {
        let binary = configuration.ingest != .copyText
        try await connection.guardedCopyFrom(table: "samples", columns: binary ? Self.binaryCopyColumns : Self.copyColumns,
                                             logger: logger) { writer in
            if binary {
                try await Self.writeBinaryRows(samples, keys: keys, client: client, to: writer)
            } else {
                try await Self.writeRows(samples, keys: keys, client: client, to: writer)
            }
        }
    }

    /// ``copyColumns`` for a binary COPY. PostgresNIO 1.33.2 builds the statement itself, as `COPY "table"("c1",…)
    /// FROM STDIN WITH (FORMAT text)`, and offers no other format (`PostgresCopyFromFormat` has one case). Its
    /// columns go in as given between double quotes, so the last one closes the list, names the binary format and
    /// comments out the rest of the one-line statement: `…,"type_key") FROM STDIN WITH (FORMAT binary) --") FROM
    /// STDIN WITH (FORMAT text)`. A constant of ours, never a client's bytes. Should a later PostgresNIO build the
    /// statement otherwise, PostgreSQL would read the binary rows as text and refuse them: every ingest test fails.
    static let binaryCopyColumns = Array(copyColumns.dropLast())
        + ["\(copyColumns.last!)\") FROM STDIN WITH (FORMAT binary) --"]

    /// Writes `samples` as binary COPY rows (``CopyBinary``) between the format's header and trailer.
    private static func writeBinaryRows(_ samples: [HealthSample], keys: [String: Int64], client: Int64,
                                        to writer: PostgresCopyFromWriter) async throws {
        try await writeChunks(samples, keys: keys, header: CopyBinary.header, trailer: CopyBinary.trailer,
                              to: writer) { sample, key, buffer in
            CopyBinary.appendRow(sample, typeKey: key, client: client, to: &buffer)
        }
    }

    /// Writes the COPY text of `samples` (with `client_id` first when `client` is given).
    private static func writeRows(_ samples: [HealthSample], keys: [String: Int64], client: Int64?,
                                  to writer: PostgresCopyFromWriter) async throws {
        try await writeChunks(samples, keys: keys, to: writer) { sample, key, buffer in
            CopyText.appendRow(sample, typeKey: key, client: client, to: &buffer)
        }
    }

    /// Writes `samples` with `appendRow` in chunks of about 64 KiB, after `header` and before `trailer`.
    private static func writeChunks(
        _ samples: [HealthSample], keys: [String: Int64], header: [UInt8] = [], trailer: [UInt8] = [],
        to writer: PostgresCopyFromWriter,
        appendRow: (HealthSample, _ typeKey: Int64, inout ByteBuffer) -> Void
    ) async throws {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(96 << 10)
        buffer.writeBytes(header)
        // A batch is usually of one type: look its key up once per run of a type, not once per row.
        var lastType: String?
        var lastKey: Int64 = 0
        for sample in samples {
            if sample.type.rawValue != lastType {
                lastType = sample.type.rawValue
                lastKey = keys[sample.type.rawValue] ?? SampleTypeKey.of(sample.type)
            }
            appendRow(sample, lastKey, &buffer)
            if buffer.readableBytes >= 64 << 10 {
                try await writer.write(buffer)
                buffer.clear()
            }
        }
        buffer.writeBytes(trailer)
        if buffer.readableBytes > 0 { try await writer.write(buffer) }
    }

    /// The COPY and the INSERT … SELECT of ``insertByCopy(_:client:direct:)``'s staging path, inside its transaction.
    private func copyAndInsert(_ samples: [HealthSample], keys: [String: Int64], client: Int64,
                               on connection: PostgresConnection) async throws -> Int {
        try await stage(samples, keys: keys, on: connection)
        let rows = try await connection.query("""
            WITH inserted AS (
                INSERT INTO samples (client_id, \(unescaped: Self.sampleColumns))
                SELECT \(client), \(unescaped: Self.sampleColumns) FROM stepsync_staging ORDER BY uuid
                ON CONFLICT (client_id, uuid) DO NOTHING
                RETURNING 1
            )
            SELECT count(*) FROM inserted
            """, logger: logger)
        var count = 0
        for try await value in rows.decode(Int.self) { count = value }
        return count
    }

    /// COPY of `samples` into the connection's staging table (created at its first use), inside the caller's
    /// transaction; the table is emptied at COMMIT.
    func stage(_ samples: [HealthSample], keys: [String: Int64], on connection: PostgresConnection) async throws {
        let logger = self.logger
        let fresh = self.stagedConnections.withLock { $0.insert(connection.id).inserted }
        if fresh {
            // Private to the connection; emptied at every COMMIT (and by ROLLBACK).
            try await connection.query("""
                CREATE TEMPORARY TABLE IF NOT EXISTS stepsync_staging (
                    uuid uuid, type text, start_at timestamptz, end_at timestamptz, utc_offset_seconds integer,
                    value double precision, unit text, source_name text, source_bundle_id text,
                    source_version text, device_name text, device_model text, details json, type_key bigint
                ) ON COMMIT DELETE ROWS
                """, logger: logger)
        }
        try await connection.guardedCopyFrom(table: "stepsync_staging", logger: logger) { writer in
            try await Self.writeRows(samples, keys: keys, client: nil, to: writer)
        }
    }

    // MARK: - Multi-row INSERT

    /// Rows per `INSERT` statement (14 binds a row, well under the protocol's 65,535).
    static let rowsPerStatement = 1_000

    private func insertByValues(_ samples: [HealthSample], client: Int64) async throws -> Int {
        let logger = self.logger
        let sorted = Self.sortedByUUID(samples)
        let keys = try Self.typeKeys(samples)
        let types = Array(keys.keys)
        return try await transaction { connection in
            try await self.checkTypeLimit(types, client: client, on: connection)
            var total = 0
            var start = 0
            while start < sorted.count {
                let chunk = sorted[start..<min(start + Self.rowsPerStatement, sorted.count)]
                start += chunk.count
                var binds = InsertParameters(capacity: chunk.count * 14 + 1)
                binds.integer(client)
                var sql = "WITH inserted AS (INSERT INTO samples (client_id, \(Self.sampleColumns)) VALUES "
                sql.reserveCapacity(sql.utf8.count + chunk.count * 120)
                var n = 1
                for (i, sample) in chunk.enumerated() {
                    if i > 0 { sql += "," }
                    sql += "($1"
                    for column in 0..<14 {
                        n += 1
                        sql += column == 12 ? ",$\(n)::json" : column == 13 ? ",$\(n))" : ",$\(n)"
                    }
                    SampleRow.write(sample, typeKey: keys[sample.type.rawValue] ?? SampleTypeKey.of(sample.type),
                                    client: nil, to: &binds)
                }
                sql += " ON CONFLICT (client_id, uuid) DO NOTHING RETURNING 1) SELECT count(*) FROM inserted"
                let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds.bindings), logger: logger)
                for try await value in rows.decode(Int.self) { total += value }
            }
            return total
        }
    }
}

extension PostgresSampleStorage {
    /// `samples` in uuid byte order (PostgreSQL's order of `uuid`): the permutation is sorted as pairs of big-endian
    /// 64-bit halves, then applied once, rather than comparing the uuids' bytes and moving the samples in the sort.
    static func sortedByUUID(_ samples: [HealthSample]) -> [HealthSample] {
        var keys: [(high: UInt64, low: UInt64, index: Int)] = []
        keys.reserveCapacity(samples.count)
        for (index, sample) in samples.enumerated() {
            let (high, low) = withUnsafeBytes(of: sample.uuid.uuid) { bytes in
                (UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)),
                 UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
            }
            keys.append((high, low, index))
        }
        keys.sort { $0.high != $1.high ? $0.high < $1.high : $0.low != $1.low ? $0.low < $1.low : $0.index < $1.index }
        return keys.map { samples[$0.index] }
    }
}

/// The direct COPY of ``PostgresSampleStorage/insertByCopy(_:client:direct:)`` met a uuid already held (SQLSTATE 23505):
/// its transaction is rolled back and the batch takes the staging path.
struct UUIDAlreadyHeld: Error {}

extension UUID {
    /// Byte order, as PostgreSQL orders `uuid` values.
    func bytesPrecede(_ other: UUID) -> Bool {
        withUnsafeBytes(of: uuid) { a in
            withUnsafeBytes(of: other.uuid) { b in a.lexicographicallyPrecedes(b) }
        }
    }
}

/// The multi-row `INSERT`'s parameters (``PostgresSampleStorage/IngestMethod/insert``), row after row.
struct InsertParameters: SampleRowWriter {
    private(set) var bindings: PostgresBindings

    init(capacity: Int) { bindings = PostgresBindings(capacity: capacity) }

    mutating func integer(_ value: Int64) { bindings.append(value) }
    mutating func uuid(_ value: UUID) { bindings.append(value) }
    mutating func text(_ value: String) { bindings.append(value) }
    mutating func optionalText(_ value: String?) { bindings.append(value) }
    mutating func instant(_ milliseconds: Int64) { bindings.append(PostgresInstant(milliseconds: milliseconds)) }
    mutating func offset(_ seconds: Int32?) { bindings.append(seconds) }
    mutating func value(_ value: Double) { bindings.append(value) }
}
