import Foundation
import PostgresNIO

extension PostgresSampleStorage {
    /// Adds a client whose bearer token is `token`; the database keeps only the token's SHA-256.
    ///
    /// - Throws: ``PostgresStorageError`` when the name is not 1…64 visible characters, or an active client has it.
    public func addClient(name: String, token: ClientToken) async throws -> ClientRecord {
        try Self.checkName(name)
        let hash = ByteBuffer(bytes: token.hash)
        let logger = self.logger
        do {
            return try await transaction { connection in
                let rows = try await connection.query("""
                    INSERT INTO clients (name, token_sha256) VALUES (\(name), \(hash))
                    RETURNING id, created_at
                    """, logger: logger)
                for try await (id, created) in rows.decode((Int64, PostgresInstant).self) {
                    return ClientRecord(id: id, name: name, createdMs: created.milliseconds, lastSeenMs: nil,
                                        revokedMs: nil, samplesByType: [:])
                }
                throw PostgresStorageError.query("INSERT … RETURNING gave no row")
            }
        } catch let error as PostgresStorageError where error.message.contains("SQLSTATE 23505") {
            throw PostgresStorageError.clientExists(name)
        }
    }

    /// Every client, oldest first, with its sample counts per type (revoked ones included).
    public func listClients() async throws -> [ClientRecord] {
        let logger = self.logger
        return try await withConnection { connection in
            var clients: [ClientRecord] = []
            var byID: [Int64: Int] = [:]
            let rows = try await connection.query("""
                SELECT id, name, created_at, last_seen_at, revoked_at FROM clients ORDER BY id
                """, logger: logger)
            for try await (id, name, created, seen, revoked) in rows.decode(
                (Int64, String, PostgresInstant, PostgresInstant?, PostgresInstant?).self) {
                byID[id] = clients.count
                clients.append(ClientRecord(id: id, name: name, createdMs: created.milliseconds,
                                            lastSeenMs: seen?.milliseconds, revokedMs: revoked?.milliseconds,
                                            samplesByType: [:]))
            }
            let counts = try await connection.query(
                "SELECT client_id, type, count(*) FROM samples GROUP BY client_id, type", logger: logger)
            for try await (id, type, count) in counts.decode((Int64, String, Int).self) {
                if let i = byID[id] { clients[i].samplesByType[type] = count }
            }
            return clients
        }
    }

    /// Revokes the active client named `name`: its token is refused from then on (by every sink within
    /// ``ClientAuthenticator/cacheLifetime``). Its samples stay.
    ///
    /// - Throws: ``PostgresStorageError`` when no active client has that name.
    public func revokeClient(name: String) async throws {
        let logger = self.logger
        let revoked = try await transaction { connection in
            let rows = try await connection.query("""
                UPDATE clients SET revoked_at = now() WHERE name = \(name) AND revoked_at IS NULL RETURNING id
                """, logger: logger)
            var count = 0
            for try await _ in rows.decode(Int64.self) { count += 1 }
            return count
        }
        guard revoked > 0 else { throw PostgresStorageError.noSuchClient(name) }
    }

    /// The active client whose token hashes to `hash`, or nil; records `last_seen_at` when it is over a minute old.
    func lookUpClient(tokenHash: [UInt8]) async throws -> AuthenticatedClient? {
        let logger = self.logger
        let hash = ByteBuffer(bytes: tokenHash)
        return try await withConnection { connection in
            let rows = try await connection.query("""
                SELECT id, name, last_seen_at IS NULL OR last_seen_at < now() - interval '1 minute'
                FROM clients WHERE token_sha256 = \(hash) AND revoked_at IS NULL
                """, logger: logger)
            var found: (AuthenticatedClient, Bool)?
            for try await (id, name, stale) in rows.decode((Int64, String, Bool).self) {
                found = (AuthenticatedClient(id: id, name: name), stale)
            }
            guard let (client, stale) = found else { return nil }
            if stale {
                try await connection.query("UPDATE clients SET last_seen_at = now() WHERE id = \(client.id)",
                                           logger: logger)
            }
            return client
        }
    }

    /// A client name is 1…64 characters, none of them a control character or whitespace.
    static func checkName(_ name: String) throws {
        guard !name.isEmpty else { throw PostgresStorageError.badName("is empty") }
        guard name.count <= 64 else { throw PostgresStorageError.badName("is \(name.count) characters long; the limit is 64") }
        if let bad = name.unicodeScalars.first(where: {
            $0.properties.generalCategory == .control || $0.properties.isWhitespace
        }) {
            throw PostgresStorageError.badName("holds U+\(String(bad.value, radix: 16, uppercase: true)); use letters, digits, - _ . @")
        }
    }
}
