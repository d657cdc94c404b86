import PostgresNIO
import StepSyncCore
import StepSyncSink

/// What the dashboard's `GET /stats` asks of a storage, answered by the database.
extension PostgresSampleStorage {
    /// The first and last start of `client`'s step-count samples: two ends of one range of the
    /// `samples_client_type_start` index (`min`/`max` there read one row each), not a scan.
    public func stepStartBounds(for client: ClientIdentity) async throws -> ClosedRange<Int64>? {
        try await reporting {
            let key = try Self.key(client)
            let logger = self.logger
            return try await self.withConnection { connection in
                let rows = try await connection.query("""
                    SELECT min(start_at), max(start_at) FROM samples
                    WHERE client_id = \(key) AND type = \(SampleType.stepCount.rawValue)
                    """, logger: logger)
                var bounds: ClosedRange<Int64>?
                for try await (low, high) in rows.decode((PostgresInstant?, PostgresInstant?).self) {
                    if let low, let high { bounds = low.milliseconds...high.milliseconds }
                }
                return bounds
            }
        }
    }

    /// The sink's relations and their sizes on disk, indexes and TOAST included (`pg_total_relation_size`):
    /// `samples` first, then `clients` and `schema_migrations`. They hold every client's rows (the sizes, not the
    /// rows, are what a client sees).
    public func usage() async throws -> StorageUsage {
        try await reporting {
            let logger = self.logger
            return try await self.withConnection { connection in
                let rows = try await connection.query("""
                    SELECT name, pg_total_relation_size(to_regclass(name))
                    FROM unnest(ARRAY['samples', 'clients', 'schema_migrations']) WITH ORDINALITY AS t(name, position)
                    WHERE to_regclass(name) IS NOT NULL
                    ORDER BY position
                    """, logger: logger)
                var items: [StorageUsage.Item] = []
                for try await (name, bytes) in rows.decode((String, Int64).self) {
                    items.append(StorageUsage.Item(name: name, bytes: bytes))
                }
                return StorageUsage(items: items)
            }
        }
    }
}
