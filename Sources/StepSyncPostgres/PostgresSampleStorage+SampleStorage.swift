import Foundation
import PostgresNIO
import StepSyncCore
import StepSyncStorage
import Synchronization

/// The sink's storage protocol on PostgreSQL: ``ClientIdentity/id`` is the client's `clients.id`, as given by
/// ``ClientAuthenticator``. Every error is a ``SampleStorageError``: unavailable (503 with `Retry-After`) when the
/// database cannot be reached or refuses the statement — never a 2xx without a COMMIT.
extension PostgresSampleStorage: SampleStorage {
    /// Runs the connection pool until graceful shutdown (after the HTTP server has stopped), waiting for it to close
    /// at most ``PoolRunner/grace``.
    public func run() async throws {
        await runPool()
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
        return try await reporting(read: true) {
            let key = try Self.key(client)
            let page = try await self.page(client: key, type: query.type, after: cursor,
                                           from: query.startRange?.lowerBound, to: query.startRange?.upperBound,
                                           limit: query.limit, maxBytes: query.maxBytes)
            let stored = query.countsStored ? try await self.count(client: key, type: query.type) : 0
            return SamplePage(storedCount: stored, samples: page.samples, nextCursor: page.next?.text)
        }
    }

    /// One query by primary key (``samples(_:type:client:)``), answered in the order asked.
    public func samples(_ uuids: [UUID], type: SampleType, for client: ClientIdentity) async throws -> [HealthSample] {
        let found = try await reporting(read: true) { try await self.samples(uuids, type: type, client: try Self.key(client)) }
        let byUUID = Dictionary(found.map { ($0.uuid, $0) }, uniquingKeysWith: { first, _ in first })
        var answered = Set<UUID>()
        return uuids.compactMap { uuid in
            guard let sample = byUUID[uuid], answered.insert(uuid).inserted else { return nil }
            return sample
        }
    }

    public func typeCounts(for client: ClientIdentity) async throws -> [SampleType: Int] {
        try await reporting(read: true) { try await self.counts(client: try Self.key(client)) }
    }

    public func stepSpans(overlapping range: Range<Int64>, for client: ClientIdentity) async throws -> [StepSpan] {
        try await reporting(read: true) { try await self.stepSpans(client: try Self.key(client), overlapping: range) }
    }

    /// Whether the database answers, within ``Configuration/healthTimeout`` (`serve`: 0.8 s) — never a fresh
    /// connection's full wait. While the storage knows the database is unavailable (a call failed so, or the last
    /// probe did), it answers that at once and probes again in the background (one probe at a time, with the
    /// ordinary deadline); the first success of any call makes it healthy again. Otherwise it asks `SELECT 1`.
    public func health() async -> StorageHealth {
        if let state = degraded.withLock({ $0 }) {
            probeInBackground()
            return StorageHealth(degradedReason: state.reason, degradedSince: state.since)
        }
        do {
            try await probe(timeout: configuration.healthTimeout)
            return .ok
        } catch {
            let failure = PostgresStorageError.from(error)
            let state = markDegraded(failure)
            return StorageHealth(degradedReason: state.reason, degradedSince: state.since)
        }
    }

    /// `SELECT 1` within `timeout`; clears the degraded state when it answers.
    private func probe(timeout: Duration) async throws {
        let logger = self.logger
        _ = try await withConnection(timeout: timeout) { connection in
            try await connection.query("SELECT 1", logger: logger)
        }
        if degraded.withLock({ state in defer { state = nil }; return state != nil }) {
            logger.info("Database available again")
        }
    }

    func probeInBackground() {
        guard probing.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        Task {
            defer { probing.store(false, ordering: .releasing) }
            do {
                try await probe(timeout: configuration.operationTimeout)
            } catch {
                markDegraded(PostgresStorageError.from(error))
            }
        }
    }

    /// Records that the database is unavailable (keeping the first failure's time); returns the state. The reason
    /// is worded for any request, a GET as well as a POST.
    @discardableResult
    func markDegraded(_ failure: PostgresStorageError) -> (reason: String, since: Double) {
        let reason = "the database cannot be used now (\(failure.detail)); the sink retries it by itself"
        return degraded.withLock { state in
            if state == nil { state = (reason, Double(configuration.time.nowMs()) / 1000) } else { state?.reason = reason }
            return state!
        }
    }

    public var storageDescription: StorageDescription {
        // Where the database is (host, port, user, name) is the operator's business: `serve` logs it at start.
        StorageDescription(kind: "postgresql", location: "the sink's PostgreSQL database")
    }

    /// The pool's connections in use and the calls waiting for one.
    public var poolFigures: StoragePoolFigures? { pool.figures(maximum: configuration.maximumConnections) }

    // MARK: - Errors

    /// The database key of an identity ``ClientAuthenticator`` made.
    static func key(_ client: ClientIdentity) throws -> Int64 {
        guard let key = Int64(client.id) else {
            throw PostgresStorageError.query("client identity \(client.id.prefix(64)) is not one of this database")
        }
        return key
    }

    /// Runs `body`, turning every failure into a ``SampleStorageError`` (logged, and remembered for ``health()``).
    ///
    /// A write that finds the database unavailable marks the storage degraded. A read (`read`) does not: a read
    /// past its deadline says that *its* statement took long, not that the database is gone, and one client's heavy
    /// reads must not turn `/health` and every other client's requests to 503 (issue 31). It asks for a background
    /// probe instead (`SELECT 1` with the ordinary deadline), which marks the storage degraded only if that fails.
    func reporting<R: Sendable>(read: Bool = false, _ body: () async throws -> R) async throws -> R {
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
            if let counts = failure.typeCounts {
                throw SampleStorageError.tooManyTypes(limit: counts.limit, stored: counts.stored, new: counts.new)
            }
            logger.warning("Database request failed; answered 503", metadata: [
                "postgres.error.kind": "\(failure.kind)", "postgres.error": "\(failure.message)",
            ])
            if failure.isUnavailable {
                if read { probeInBackground() } else { markDegraded(failure) }
            }
            throw SampleStorageError.unavailable(failure.message, retryAfterSeconds: configuration.retryAfterSeconds)
        }
    }
}
