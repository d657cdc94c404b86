import Foundation
import PostgresNIO
import StepSyncCore
import StepSyncSink

/// The sink's storage protocol on PostgreSQL: ``ClientIdentity/id`` is the client's `clients.id`, as given by
/// ``ClientAuthenticator``. Every error is a ``SampleStorageError``: unavailable (503 with `Retry-After`) when the
/// database cannot be reached or refuses the statement — never a 2xx without a COMMIT.
extension PostgresSampleStorage: SampleStorage {
    /// Runs the connection pool until graceful shutdown (after the HTTP server has stopped).
    public func run() async throws {
        await client.run()
    }

    public func insert(_ samples: [HealthSample], for client: ClientIdentity) async throws -> InsertOutcome {
        try await reporting {
            let (inserted, duplicates) = try await self.insert(samples, client: try Self.key(client))
            return InsertOutcome(inserted: inserted, duplicates: duplicates)
        }
    }

    public func delete(_ uuids: [UUID], type: SampleType, for client: ClientIdentity) async throws -> DeleteOutcome {
        try await reporting {
            let (deleted, distinctMissing) = try await self.delete(uuids, type: type, client: try Self.key(client))
            // Repeats in `uuids` count as missing, as the protocol says.
            _ = distinctMissing
            return DeleteOutcome(deleted: deleted, missing: uuids.count - deleted)
        }
    }

    public func clear(_ types: [SampleType]?, for client: ClientIdentity) async throws -> Int {
        try await reporting { try await self.clear(client: try Self.key(client), types: types) }
    }

    public func page(_ query: SamplePageQuery, for client: ClientIdentity) async throws -> SamplePage {
        var cursor: PageCursor?
        if let text = query.cursor, !text.isEmpty {
            guard let parsed = PageCursor(text) else { throw SampleStorageError.invalidCursor(text) }
            cursor = parsed
        }
        return try await reporting {
            let key = try Self.key(client)
            let page = try await self.page(client: key, type: query.type, after: cursor,
                                           from: query.startRange?.lowerBound, to: query.startRange?.upperBound,
                                           limit: query.limit, maxBytes: query.maxBytes)
            let stored = try await self.count(client: key, type: query.type)
            return SamplePage(storedCount: stored, samples: page.samples, nextCursor: page.next?.text)
        }
    }

    public func typeCounts(for client: ClientIdentity) async throws -> [SampleType: Int] {
        try await reporting { try await self.counts(client: try Self.key(client)) }
    }

    public func stepSpans(overlapping range: Range<Int64>, for client: ClientIdentity) async throws -> [StepSpan] {
        try await reporting { try await self.stepSpans(client: try Self.key(client), overlapping: range) }
    }

    /// Asks the database (`SELECT 1`, waiting for a connection as long as any request does,
    /// ``Configuration/leaseTimeout``): degraded while it cannot answer. A database that is down refuses the
    /// connection at once; the wait only matters while the pool is still connecting or busy, which is not degraded.
    public func health() async -> StorageHealth {
        do {
            _ = try await withConnection { connection in
                try await connection.query("SELECT 1", logger: self.logger)
            }
            degraded.withLock { $0 = nil }
            return .ok
        } catch {
            let reason = PostgresStorageError.from(error).message
            let state = degraded.withLock { state in
                if state == nil { state = (reason, Date().timeIntervalSince1970) } else { state?.reason = reason }
                return state!
            }
            return StorageHealth(degradedReason: state.reason, degradedSince: state.since)
        }
    }

    public var storageDescription: StorageDescription {
        StorageDescription(kind: "postgresql", location: configuration.url.redacted)
    }

    // MARK: - Errors

    /// The database key of an identity ``ClientAuthenticator`` made.
    static func key(_ client: ClientIdentity) throws -> Int64 {
        guard let key = Int64(client.id) else {
            throw PostgresStorageError.query("client identity \(client.id.prefix(64)) is not one of this database")
        }
        return key
    }

    /// Runs `body`, turning every failure into a ``SampleStorageError`` (logged, and remembered for ``health()``).
    func reporting<R: Sendable>(_ body: () async throws -> R) async throws -> R {
        do {
            let result = try await body()
            if degraded.withLock({ $0 != nil }) {
                logger.info("Database available again")
                degraded.withLock { $0 = nil }
            }
            return result
        } catch let error as SampleStorageError {
            throw error
        } catch {
            let failure = PostgresStorageError.from(error)
            logger.warning("Database request failed; answered 503", metadata: [
                "postgres.error.kind": "\(failure.kind)", "postgres.error": "\(failure.message)",
            ])
            if failure.isUnavailable {
                degraded.withLock { state in
                    if state == nil { state = (failure.message, Date().timeIntervalSince1970) }
                }
            }
            throw SampleStorageError.unavailable(failure.message, retryAfterSeconds: configuration.retryAfterSeconds)
        }
    }
}
