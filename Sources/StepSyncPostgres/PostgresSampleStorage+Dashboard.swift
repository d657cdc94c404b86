import PostgresNIO
import StepSyncCore
import StepSyncStorage

/// What the dashboard's `GET /stats` asks of a storage, answered by the database.
extension PostgresSampleStorage {
    /// The first and last start of `client`'s samples of each type: per type, two ends of one range of the
    /// `samples_client_type_start` index (`min`/`max` there read one row each), in one statement — not a scan.
    public func startBounds(of types: [SampleType], for client: ClientIdentity) async throws
        -> [SampleType: ClosedRange<Int64>]
    {
        let distinct = Array(Set(types))
        guard !distinct.isEmpty else { return [:] }
        return try await reporting(read: true) {
            let key = try Self.key(client)
            let names = distinct.map(\.rawValue), keys = distinct.map { SampleTypeKey.of($0) }
            let logger = self.logger
            return try await self.withConnection { connection in
                let rows = try await connection.query("""
                    SELECT t.name, b.low, b.high
                    FROM unnest(\(names)::text[], \(keys)::int8[]) AS t(name, key)
                    CROSS JOIN LATERAL (
                        SELECT min(start_at) AS low, max(start_at) AS high FROM samples
                        WHERE client_id = \(key) AND type_key = t.key AND type = t.name
                    ) AS b
                    """, logger: logger)
                var bounds: [SampleType: ClosedRange<Int64>] = [:]
                for try await (name, low, high) in rows.decode((String, PostgresInstant?, PostgresInstant?).self) {
                    if let low, let high, low.milliseconds <= high.milliseconds {
                        bounds[SampleType(name)] = low.milliseconds...high.milliseconds
                    }
                }
                return bounds
            }
        }
    }

    /// Nothing: the relations' sizes are the database's, shared by every client, and grow with every client's
    /// ingests — a client's `/stats` must not move with another's (issue 21). Operators read them in the database.
    public func usage() async throws -> StorageUsage { StorageUsage(items: []) }
}
