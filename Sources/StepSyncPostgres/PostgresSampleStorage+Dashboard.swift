import PostgresNIO
import StepSyncCore
import StepSyncSink

/// What the dashboard's `GET /stats` asks of a storage, answered by the database.
extension PostgresSampleStorage {
    /// The first and last start of `client`'s step-count samples: two ends of one range of the
    /// `samples_client_type_start` index (`min`/`max` there read one row each), not a scan.
    public func stepStartBounds(for client: ClientIdentity) async throws -> ClosedRange<Int64>? {
        try await reporting(read: true) {
            let key = try Self.key(client)
            let logger = self.logger
            return try await self.withConnection { connection in
                let rows = try await connection.query("""
                    SELECT min(start_at), max(start_at) FROM samples
                    WHERE client_id = \(key) AND type_key = \(SampleTypeKey.of(SampleType.stepCount))
                      AND type = \(SampleType.stepCount.rawValue)
                    """, logger: logger)
                var bounds: ClosedRange<Int64>?
                for try await (low, high) in rows.decode((PostgresInstant?, PostgresInstant?).self) {
                    if let low, let high { bounds = low.milliseconds...high.milliseconds }
                }
                return bounds
            }
        }
    }

    /// Nothing: the relations' sizes are the database's, shared by every client, and grow with every client's
    /// ingests — a client's `/stats` must not move with another's (issue 21). Operators read them in the database.
    public func usage() async throws -> StorageUsage { StorageUsage(items: []) }
}
