import PostgresNIO
import StepSyncCore

extension PostgresSampleStorage {
    /// The database's identity (`sink_identity`, schema v4), once ``migrate()`` has read it; `nil` before.
    public var sinkIdentity: String? { identity.withLock { $0 } }

    /// Reads the database's identity into ``sinkIdentity``.
    func readIdentity() async throws {
        let id = try await withConnection { connection -> String? in
            for try await id in try await connection.query("SELECT id::text FROM sink_identity LIMIT 1",
                                                           logger: self.logger).decode(String.self) {
                return id
            }
            return nil
        }
        identity.withLock { $0 = id }
    }
}
