import Foundation
import PostgresNIO
import StepSyncCore
import StepSyncStorage

extension PostgresSampleStorage {
    /// ``SampleStorage/insertReplacing(_:for:)`` in one transaction: the batch's new uuids inserted, and a stored
    /// sample of the same uuid and type whose value, end or unit differs replaced by the batch's (every column), in
    /// one `INSERT … ON CONFLICT DO UPDATE … WHERE` — atomic, where the storage-neutral version deletes, then inserts.
    /// Within `samples`, the last sample of a uuid is the one kept (the others count as duplicates).
    ///
    /// As ``insert(_:client:)``, a batch of new uuids only (the usual push) goes straight in by COPY; a batch meeting
    /// a held uuid (SQLSTATE 23505) is rolled back and goes through the staging table and the upsert. The generic
    /// version looked every uuid up first: 800,000 lookups for the benchmark's push (`Planning/benchmarks.md`).
    public func insertReplacing(_ samples: [HealthSample], for client: ClientIdentity) async throws -> ReplaceOutcome {
        try await reporting {
            let id = try Self.key(client)
            var last: [UUID: Int] = [:]
            last.reserveCapacity(samples.count)
            for (i, sample) in samples.enumerated() { last[sample.uuid] = i }
            let unique = last.count == samples.count
                ? samples : samples.enumerated().filter { last[$0.element.uuid] == $0.offset }.map(\.element)
            let (inserted, replaced) = try await self.replace(unique, client: id)
            return ReplaceOutcome(given: samples.count, inserted: inserted, replaced: replaced)
        }
    }

    /// Inserts or replaces `samples` (unique uuids) of `client`; returns how many were inserted and replaced.
    func replace(_ samples: [HealthSample], client: Int64) async throws -> (inserted: Int, replaced: Int) {
        guard !samples.isEmpty else { return (0, 0) }
        let keys = try Self.typeKeys(samples)
        let types = Array(keys.keys)
        let sorted = Self.sortedByUUID(samples)
        let deadline = self.deadline()
        if try await copyAllNew(sorted, keys: keys, client: client, deadline: deadline) { return (sorted.count, 0) }
        return try await transaction(deadline: deadline) { connection in
            do {
                try await self.checkTypeLimit(types, client: client, on: connection)
                try await self.stage(sorted, keys: keys, on: connection)
                let rows = try await connection.query("""
                    WITH written AS (
                        INSERT INTO samples (client_id, \(unescaped: Self.sampleColumns))
                        SELECT \(client), \(unescaped: Self.sampleColumns) FROM stepsync_staging ORDER BY uuid
                        ON CONFLICT (client_id, uuid) DO UPDATE SET \(unescaped: Self.replacedColumns)
                        WHERE samples.type = EXCLUDED.type
                          AND (samples.value IS DISTINCT FROM EXCLUDED.value
                               OR samples.end_at IS DISTINCT FROM EXCLUDED.end_at
                               OR samples.unit IS DISTINCT FROM EXCLUDED.unit)
                        RETURNING xmax = 0 AS fresh
                    )
                    SELECT count(*) FILTER (WHERE fresh), count(*) FILTER (WHERE NOT fresh) FROM written
                    """, logger: self.logger)
                var counts = (inserted: 0, replaced: 0)
                for try await (inserted, replaced) in rows.decode((Int, Int).self) { counts = (inserted, replaced) }
                return counts
            } catch {
                // A rolled-back transaction may have taken the staging table it created with it.
                _ = self.stagedConnections.withLock { $0.remove(connection.id) }
                throw error
            }
        }
    }

    /// `col = EXCLUDED.col` for every column of ``sampleColumns``: a replaced row takes all of the new sample.
    static var replacedColumns: String {
        sampleColumns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
    }
}
