import Foundation
import ServiceLifecycle
import StepSyncCore

/// Where a sink keeps its samples: the one storage protocol of the sink, with two implementations — the JSONL files
/// (``JSONLStorage``, the embedded default for one person) and PostgreSQL (`StepSyncPostgres`, many clients).
///
/// The HTTP layer (`SinkResponder`) parses, validates and authenticates; a storage only stores and answers, in
/// intents rather than queries (the shape of Hummingbird's `PersistDriver` and GRDB's `DatabaseWriter`). Every
/// method takes the ``ClientIdentity`` the request was authenticated as: a client sees, counts, pages and deletes
/// only its own samples. The JSONL storage has one implicit client and ignores it.
///
/// The contract every implementation keeps (`Tests/StepSyncSinkTests` runs the same suite against each):
/// - **Exactly once.** A uuid is stored at most once per client, across all types and both doors (`/steps` and
///   `/samples`), until it is deleted; a sample whose uuid is already stored is a duplicate and changes nothing.
/// - **Durable before return.** ``insert(_:for:)``, ``delete(_:type:for:)`` and ``clear(_:for:)`` return only once
///   their effect survives a crash (fsync, or COMMIT with `synchronous_commit` on). When they throw, nothing of the
///   call was acknowledged; the client resends and the duplicates are absorbed.
/// - **Unavailable, not wrong.** When the storage cannot write (disk full, I/O error, database unreachable) it throws
///   ``SampleStorageError/unavailable(_:retryAfterSeconds:)`` (answered 503 with `Retry-After`), reports it in
///   ``health()``, and resumes by itself once writing works again.
///
/// Runs as a `Service` in the sink's `ServiceGroup`, after the HTTP server has stopped: `run()` returns (closing
/// files or pools) once graceful shutdown is triggered.
public protocol SampleStorage: Service, Sendable {
    /// Stores every sample of `samples` whose uuid `client` does not hold yet (samples are already validated by
    /// ``SampleValidation``). A uuid repeated within `samples` is stored once. Returns once the new samples are
    /// durable — and once duplicates still in flight from another request are durable too.
    func insert(_ samples: [HealthSample], for client: ClientIdentity) async throws -> InsertOutcome

    /// ``insert(_:for:)`` of a request's ``SampleBatch``: the same contract; a storage that writes lines may copy the
    /// ones the body already holds. The default inserts `batch.samples`.
    func insert(_ batch: SampleBatch, for client: ClientIdentity) async throws -> InsertOutcome

    /// Stores `samples` as ``insert(_:for:)`` does, except that a sample whose uuid `client` holds as the same type
    /// with another value, end or unit replaces the stored one (a bucket that grew since it was last sent): never a
    /// second sample of one uuid. The default (`SampleStorage+Replace.swift`) deletes the changed samples, then
    /// inserts; a crash between the two leaves them absent, and the client's retry ends exact.
    func insertReplacing(_ samples: [HealthSample], for client: ClientIdentity) async throws -> ReplaceOutcome

    /// Deletes the samples of `type` whose uuid is in `uuids`, durably. A uuid that `client` does not hold as a
    /// sample of `type` (absent, deleted, another type, or repeated in `uuids`) counts as missing.
    func delete(_ uuids: [UUID], type: SampleType, for client: ClientIdentity) async throws -> DeleteOutcome

    /// Deletes every sample of the given types (all types when `nil`), durably; returns how many there were.
    func clear(_ types: [SampleType]?, for client: ClientIdentity) async throws -> Int

    /// A page of `query.type`'s samples in start, then uuid, order (the CLI's export's; arrival
    /// would mean nothing across storages), from `query.cursor` on, keeping those whose start is in
    /// `query.startRange`, at most `query.limit` samples and — after the first — `query.maxBytes` bytes of stored
    /// JSON. `storedCount` counts every stored sample of the type; `nextCursor` is `nil` on the last page.
    ///
    /// - Throws: ``SampleStorageError/invalidCursor(_:)`` for a cursor this storage did not give.
    func page(_ query: SamplePageQuery, for client: ClientIdentity) async throws -> SamplePage

    /// The live samples of `type` among `uuids`, in the order of `uuids` (a uuid asked twice is answered once; one
    /// `client` does not hold, holds as another type, or deleted, is left out). A lookup by key — the JSONL storage's
    /// uuid index and a `pread` of just those lines, PostgreSQL's primary key — never a scan: how a sink finds the
    /// parts of a route or an ECG recording (`Planning/series.md`). Samples not yet durable are not answered.
    func samples(_ uuids: [UUID], type: SampleType, for client: ClientIdentity) async throws -> [HealthSample]

    /// How many samples `client` holds, per type (types with none left out).
    func typeCounts(for client: ClientIdentity) async throws -> [SampleType: Int]

    /// Every stored step-count sample of `client` that overlaps `range` (UTC ms, half-open: `start < upper` and
    /// `end > lower`, or a zero-length sample at an instant inside it), in start order: the input of the daily-totals
    /// rule (`DailyStepTotals`, a sweep in start order), read in one scan or one query.
    func stepSpans(overlapping range: Range<Int64>, for client: ClientIdentity) async throws -> [StepSpan]

    /// The first and last start (UTC ms) of `client`'s live samples of each of `types` (a type it holds none of is
    /// left out): where the dashboard's chart and each panel start and end (`GET /stats`). Answered from an index —
    /// the JSONL storage's in-memory slots, PostgreSQL's `(client_id, type_key, start_at)` — never by reading samples.
    func startBounds(of types: [SampleType], for client: ClientIdentity) async throws -> [SampleType: ClosedRange<Int64>]

    /// The files (or relations) the storage occupies and their sizes, for the dashboard. The default is empty.
    func usage() async throws -> StorageUsage

    /// Whether the storage can write now (`/health` shows it).
    func health() async -> StorageHealth

    /// What and where the storage is, for `/health` and a dashboard (no secrets).
    var storageDescription: StorageDescription { get }

    /// The identity of the storage's data, answered by `GET /health` (``SinkHealthBody/sink``): made once per JSONL
    /// directory or PostgreSQL database, so that clients tell this sink's data from another's. `nil` when unknown
    /// (the default).
    var sinkIdentity: String? { get }

    /// The storage's connection pool now, for `GET /metrics`; `nil` (the default) for a storage without one.
    var poolFigures: StoragePoolFigures? { get }
}

extension SampleStorage {
    /// No identity known.
    public var sinkIdentity: String? { nil }

    /// No pool.
    public var poolFigures: StoragePoolFigures? { nil }

    /// Inserts `batch.samples` (``insert(_:for:)``).
    public func insert(_ batch: SampleBatch, for client: ClientIdentity) async throws -> InsertOutcome {
        try await insert(batch.samples, for: client)
    }
}
