import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import StepSyncCore

/// The embedded storage of the sink: one JSONL file per sample type in a data directory, exactly once by uuid,
/// durable before every acknowledgement. One client (it ignores ``ClientIdentity``).
///
/// **Layout.** `<dir>/steps.jsonl` holds step counts, one `POST /steps` object a line (HealthStepsSync's format;
/// step counts that came through `POST /samples` add their other fields). `<dir>/samples/<type>.jsonl` holds every
/// other type, one `POST /samples` object a line. Deletions append tombstones `{"deleted":"<UUID>"}` to the type's
/// file. `<dir>/sink.lock` is held (`flock`) by the one sink serving the directory.
///
/// **Exactly once.** ``UUIDIndex`` maps every live uuid of every type to its file and line; a sample whose uuid is
/// there is a duplicate and is not written. It is rebuilt from the files at start.
///
/// **Group commit.** A request appends its lines to its types' `pending` buffers and calls `commit()`. If no commit
/// is running it leads: it takes everything pending (its own lines and those of requests that arrived meanwhile),
/// writes each touched file with one `write` and one data sync on NIO's thread pool, resumes every request of that
/// batch, and hands the lead to the first request that queued during the sync. So N concurrent requests cost ≈ 1
/// sync per touched file, and a 2xx is sent only once the request's lines are on disk. A request that only found
/// duplicates still waits for the commit in flight, since its duplicates may be in it.
///
/// **Failures are survivable.** A failed write or sync is cut back from the file; the batch's requests and those
/// queued behind it get ``SampleStorageError/unavailable(_:retryAfterSeconds:)`` (503, `Retry-After`), the storage
/// reports itself degraded, and rebuilds its state from what the files really hold. The next write is tried as
/// usual; when it succeeds the storage is healthy again — no restart.
///
/// **Memory.** Per stored line a 16-byte ``TypeLog/Slot`` and ≈ 25–30 bytes of ``UUIDIndex``, both grown in place
/// (``PageBuffer``); pages and daily spans `pread` just the lines they need. Figures in `Planning/sink.md`.
public actor JSONLStorage: SampleStorage {
    enum Role { case committed, lead }

    public nonisolated let storageDescription: StorageDescription
    /// The data directory's identity (``SinkIdentityFile``).
    public nonisolated let sinkIdentity: String?
    let stepsPath: String
    let samplesDirectory: String
    let durable: Bool
    let retryAfterSeconds: Int
    /// The most sample types (files) this sink stores; a request bringing more is refused whole (400).
    let maxTypes: Int
    let onSync: (@Sendable () -> Void)?
    /// Where the time is read (when the storage became degraded).
    let time: TimeSource
    let logger: Logger
    /// The data files' descriptors: a few kept open, however many types there are.
    let descriptors: DescriptorCache

    private var lock: DirectoryLock?
    var logs: [TypeLog] = []
    var logNumbers: [SampleType: Int] = [:]
    var index = UUIDIndex()

    private var dirty: [Int] = []
    /// Emptied write buffers of finished commits, handed to the next log that queues lines (at most
    /// ``maxSpareBuffers`` of at most ``maxSpareBytes`` each), so a request's lines go into memory already touched
    /// instead of a fresh buffer grown by doubling (copied each time, and page-faulted afresh).
    private var spareBuffers: [[UInt8]] = []
    static let maxSpareBuffers = 4
    static let maxSpareBytes = 8 << 20
    private var waiters: [CheckedContinuation<Role, any Error>] = []
    private var committing = false
    /// Why writes fail and since when (ms since 1970), while they do.
    var degraded: (reason: String, sinceMs: Int64)?
    var needsReload = false
    private var closed = false

    /// Opens (creating it if needed) the data directory of `stepsPath` (`<dir>/steps.jsonl`), takes its lock, and
    /// rebuilds the index from every file, repairing a torn last line and moving unreadable lines aside.
    ///
    /// - Parameters:
    ///   - durable: whether acknowledgements wait for the data sync (turning it off is for benchmarks only).
    ///   - retryAfterSeconds: the `Retry-After` of a 503 after a failed write.
    ///   - maxTypes: the most sample types stored (``SinkConfiguration/maxTypes``); type files already in the
    ///     directory are served even past it, but no new type is then accepted.
    ///   - openFiles: how many idle data-file descriptors stay open (``DescriptorCache``).
    ///   - onSync: called after every synced commit (tests count group commits with it).
    ///   - time: where the storage reads the time (when it became degraded).
    /// - Throws: ``SampleLogError`` when the directory is held by another sink or a file cannot be opened or read.
    public init(stepsPath: String, durable: Bool = true, retryAfterSeconds: Int = 5,
                maxTypes: Int = SinkConfiguration.defaultMaxTypes, openFiles: Int = 16,
                onSync: (@Sendable () -> Void)? = nil, time: TimeSource, logger: Logger) throws {
        let directory = (stepsPath as NSString).deletingLastPathComponent
        let samplesDirectory = ((directory.isEmpty ? "." : directory) as NSString).appendingPathComponent("samples")
        self.stepsPath = stepsPath
        self.samplesDirectory = samplesDirectory
        self.durable = durable
        self.retryAfterSeconds = retryAfterSeconds
        let maxTypes = min(max(1, maxTypes), Int(UUIDIndex.empty) - 1)
        self.maxTypes = maxTypes
        self.onSync = onSync
        self.time = time
        self.logger = logger
        let descriptors = DescriptorCache(capacity: openFiles)
        self.descriptors = descriptors
        self.storageDescription = StorageDescription(kind: "jsonl", location: directory.isEmpty ? "." : directory)
        FileSystem.ignoreFileSizeSignal()
        self.lock = try DirectoryLock(directory: directory.isEmpty ? "." : directory)
        self.sinkIdentity = SinkIdentityFile.identity(in: directory.isEmpty ? "." : directory)
        var logs = [TypeLog(type: .stepCount, file: try SampleLogFile(path: stepsPath, descriptors: descriptors))]
        if let names = try? FileManager.default.contentsOfDirectory(atPath: samplesDirectory) {
            for name in names.sorted() where name.hasSuffix(".jsonl") {
                let type = SampleType(String(name.dropLast(".jsonl".count)))
                guard type != .stepCount, SampleValidation.typeProblem(type) == nil else { continue }
                guard logs.count < Int(UUIDIndex.empty) else {
                    throw SampleLogError.io("more type files than a sink can index (\(UUIDIndex.empty - 1)) in",
                                            path: samplesDirectory, errno: EMFILE)
                }
                logs.append(TypeLog(type: type, file: try SampleLogFile(
                    path: Self.path(of: type, stepsPath: stepsPath, samplesDirectory: samplesDirectory),
                    descriptors: descriptors)))
            }
        }
        if logs.count > maxTypes {
            logger.warning("The data directory holds more types than --max-types; no new type will be accepted",
                           metadata: ["sink.types": "\(logs.count)", "sink.maxTypes": "\(maxTypes)"])
        }
        // Sized from the files (≈ 200 bytes a line) so that rebuilding does not grow the table again and again.
        var index = UUIDIndex(capacity: Int(logs.reduce(0) { $0 + $1.file.size() } / 200))
        for number in logs.indices {
            try Self.recover(&logs[number], number: UInt16(number), index: &index, descriptors: descriptors,
                             logger: logger)
        }
        self.logs = logs
        self.index = index
        self.logNumbers = Dictionary(uniqueKeysWithValues: logs.indices.map { (logs[$0].type, $0) })
    }

    /// The file of `type`.
    nonisolated func path(of type: SampleType) -> String {
        Self.path(of: type, stepsPath: stepsPath, samplesDirectory: samplesDirectory)
    }

    /// The file of `type`: `stepsPath` for step counts, else `<samplesDirectory>/<type>.jsonl`.
    static func path(of type: SampleType, stepsPath: String, samplesDirectory: String) -> String {
        type == .stepCount ? stepsPath : (samplesDirectory as NSString).appendingPathComponent(type.rawValue + ".jsonl")
    }

    // MARK: - Service

    /// Waits for graceful shutdown (the HTTP server stops first), then closes the files and releases the lock.
    public func run() async throws {
        try? await gracefulShutdown()
        close()
    }

    /// Closes the files and releases the directory lock; later calls fail with 503.
    func close() {
        closed = true
        logs = []
        logNumbers = [:]
        index = UUIDIndex()
        descriptors.closeAll()
        lock = nil
    }

    // MARK: - Writes

    public func insert(_ samples: [HealthSample], for client: ClientIdentity) async throws -> InsertOutcome {
        try await insert(SampleBatch(samples), for: client)
    }

    /// Inserts a request's samples, copying the lines its body already holds (``SampleBatch``).
    public func insert(_ batch: SampleBatch, for client: ClientIdentity) async throws -> InsertOutcome {
        try prepareWrite()
        let samples = batch.samples
        // Check the type limit, then create the files of new types, before anything is enqueued: a refusal or a
        // failure leaves nothing half-queued.
        let newTypes = newTypes(in: samples)
        if !newTypes.isEmpty, logs.count + newTypes.count > maxTypes {
            throw SampleStorageError.tooManyTypes(limit: maxTypes, stored: logs.count, new: newTypes.count)
        }
        for type in newTypes { _ = try logNumber(for: type) }
        let inserted = batch.body.withUnsafeReadableBytes { body in enqueue(samples, lines: batch.storedLines, body: body) }
        if inserted > 0 || committing || !dirty.isEmpty { try await commit() }
        return InsertOutcome(inserted: inserted, duplicates: samples.count - inserted)
    }

    /// Appends the lines of the samples not indexed yet to their logs' pending buffers; returns how many. A sample
    /// whose `lines` entry is set has its line copied from `body` (plus `\n`) instead of encoded.
    ///
    /// The index and the logs are moved into locals for the loop (and back before returning): mutating an actor's
    /// stored properties in place costs a dynamic exclusivity check per access, a local does not, and moving (not
    /// copying) keeps their buffers unshared, so nothing is copied on write.
    private func enqueue(_ samples: [HealthSample], lines: [Range<Int>?], body: UnsafeRawBufferPointer) -> Int {
        var index = UUIDIndex(capacity: 0)
        var logs: [TypeLog] = []
        swap(&index, &self.index)
        swap(&logs, &self.logs)
        defer {
            swap(&index, &self.index)
            swap(&logs, &self.logs)
        }
        index.reserve(index.count + samples.count)
        var inserted = 0
        var start = 0
        while start < samples.count {
            // A run of samples of one type (a request usually holds one).
            let type = samples[start].type
            var end = start + 1
            while end < samples.count, samples[end].type == type { end += 1 }
            let number = logNumbers[type]!
            let steps = type == .stepCount
            var log = TypeLog(type: type, file: logs[number].file)
            swap(&log, &logs[number])
            if log.pending.capacity == 0, let spare = spareBuffers.popLast() { log.pending = spare }
            let before = inserted
            for k in start..<end {
                // Fields are read in place: a copy of the sample would retain and release its strings.
                guard index.insert(samples[k].uuid, at: .init(log: UInt16(number), slot: UInt32(log.slots.count))) else {
                    continue
                }
                let offset = log.pending.count
                if k < lines.count, let line = lines[k] {
                    log.pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: body[line]))
                    log.pending.append(UInt8(ascii: "\n"))
                } else if steps {
                    WireEncoder.appendStepLine(samples[k], to: &log.pending)
                } else {
                    WireEncoder.appendStoredLine(samples[k], to: &log.pending)
                }
                let length = log.pending.count - offset
                let startMs = samples[k].startMs
                log.slots.append(TypeLog.Slot(offset: log.enqueuedEnd, length: length, startMs: startMs))
                log.enqueuedEnd += Int64(length)
                log.maxDurationMs = max(log.maxDurationMs, samples[k].endMs - startMs)
                inserted += 1
            }
            log.live += inserted - before
            swap(&log, &logs[number])
            if inserted > before { markDirty(number) }
            start = end
        }
        return inserted
    }

    public func delete(_ uuids: [UUID], type: SampleType, for client: ClientIdentity) async throws -> DeleteOutcome {
        try prepareWrite()
        var deleted = 0
        if let number = logNumbers[type] {
            for uuid in uuids {
                guard let location = index.location(of: uuid), location.log == UInt16(number) else { continue }
                index.remove(uuid)
                logs[number].slots[Int(location.slot)].markDeleted()
                logs[number].live -= 1
                let line = Array("{\"deleted\":\"\(uuid.uuidString)\"}\n".utf8)
                logs[number].pending.append(contentsOf: line)
                logs[number].enqueuedEnd += Int64(line.count)
                markDirty(number)
                deleted += 1
            }
        }
        if deleted > 0 || committing || !dirty.isEmpty { try await commit() }
        return DeleteOutcome(deleted: deleted, missing: uuids.count - deleted)
    }

    public func clear(_ types: [SampleType]?, for client: ClientIdentity) async throws -> Int {
        try prepareWrite()
        var count = 0
        for number in logs.indices where types?.contains(logs[number].type) ?? true {
            count += logs[number].live
            index.removeAll(inLog: UInt16(number))
            logs[number].slots = PageBuffer()
            logs[number].readable = 0
            logs[number].live = 0
            logs[number].maxDurationMs = 0
            logs[number].pending = []
            logs[number].truncatePending = true
            logs[number].enqueuedEnd = 0
            logs[number].epoch += 1
            markDirty(number)
        }
        if !dirty.isEmpty || committing { try await commit() }
        return count
    }

    private func markDirty(_ number: Int) {
        if !dirty.contains(number) { dirty.append(number) }
    }

    /// The types of `samples` this sink holds no file of yet, in order of first appearance.
    private func newTypes(in samples: [HealthSample]) -> [SampleType] {
        var new: [SampleType] = []
        var seen: Set<SampleType> = []
        var lastType: SampleType?
        for sample in samples where sample.type != lastType {
            lastType = sample.type
            if logNumbers[sample.type] == nil, seen.insert(sample.type).inserted { new.append(sample.type) }
        }
        return new
    }

    /// The log of `type`, creating its file on first use.
    private func logNumber(for type: SampleType) throws -> Int {
        if let number = logNumbers[type] { return number }
        let file: SampleLogFile
        do {
            file = try SampleLogFile(path: path(of: type), descriptors: descriptors)
        } catch {
            throw failure("cannot create the file of \(type.rawValue): \(error)")
        }
        logs.append(TypeLog(type: type, file: file))
        logNumbers[type] = logs.count - 1
        return logs.count - 1
    }

    /// Throws when no write can be tried now: closed, or degraded with a state that could not be rebuilt yet.
    private func prepareWrite() throws {
        guard !closed else {
            throw SampleStorageError.unavailable("the sink is shutting down", retryAfterSeconds: retryAfterSeconds)
        }
        try reloadIfNeeded()
    }

    // MARK: - Group commit

    private struct Batch: @unchecked Sendable {
        var number: Int
        var file: SampleLogFile
        var bytes: [UInt8]
        var truncate: Bool
        var epoch: Int
        var slots: Int
        var end: Int64
    }

    /// Returns once everything pending when called is on disk (see the type's documentation).
    private func commit() async throws {
        if committing {
            let role = try await withCheckedThrowingContinuation { waiters.append($0) }
            if role == .committed { return }
        } else {
            committing = true
        }
        var batches: [Batch] = []
        for number in dirty {
            batches.append(Batch(number: number, file: logs[number].file, bytes: logs[number].pending,
                                 truncate: logs[number].truncatePending, epoch: logs[number].epoch,
                                 slots: logs[number].slots.count, end: logs[number].enqueuedEnd))
            logs[number].pending = []
            logs[number].truncatePending = false
        }
        dirty = []
        let batchWaiters = waiters
        waiters = []
        if !batches.isEmpty {
            do {
                let durable = self.durable
                let jobs = batches
                try await NIOThreadPool.singleton.runIfActive {
                    for job in jobs { try job.file.append(job.bytes, truncateFirst: job.truncate, sync: durable) }
                }
                if durable { onSync?() }
            } catch {
                let failure = failCommit(error, batchWaiters: batchWaiters)
                throw failure
            }
        }
        for batch in batches where batch.number < logs.count {
            logs[batch.number].committedEnd = batch.end
            if logs[batch.number].epoch == batch.epoch { logs[batch.number].readable = batch.slots }
        }
        recycle(&batches)
        if let degraded, !batches.isEmpty {
            logger.notice("Data files writable again; the sink resumed", metadata: [
                "sink.degraded.reason": "\(degraded.reason)", "sink.degraded.seconds": "\(Double(time.nowMs() - degraded.sinceMs) / 1000)",
            ])
            self.degraded = nil
        }
        for waiter in batchWaiters { waiter.resume(returning: .committed) }
        if waiters.isEmpty {
            committing = false
        } else {
            waiters.removeFirst().resume(returning: .lead)
        }
    }

    /// Keeps the written buffers of `batches` (emptied, their capacity kept) for the next requests' lines.
    private func recycle(_ batches: inout [Batch]) {
        for k in batches.indices where spareBuffers.count < Self.maxSpareBuffers {
            var bytes: [UInt8] = []
            swap(&bytes, &batches[k].bytes)
            guard bytes.capacity <= Self.maxSpareBytes else { continue }
            bytes.removeAll(keepingCapacity: true)
            spareBuffers.append(bytes)
        }
    }

    /// After a failed write or sync: fail every request of the batch and every request queued behind it, drop what
    /// they queued, become degraded, and rebuild the state from the files (now or at the next request).
    private func failCommit(_ error: any Error, batchWaiters: [CheckedContinuation<Role, any Error>]) -> SampleStorageError {
        let failure = failure("\(error)")
        logger.error("Data file write failed; answering 503 until a write succeeds again",
                     metadata: ["sink.error": "\(error)"])
        for waiter in batchWaiters + waiters { waiter.resume(throwing: failure) }
        waiters = []
        for number in logs.indices {
            logs[number].pending = []
            logs[number].truncatePending = false
        }
        dirty = []
        committing = false
        needsReload = true
        try? reloadIfNeeded()
        return failure
    }

    /// Marks the storage degraded and returns the 503 error for `reason`.
    private func failure(_ reason: String) -> SampleStorageError {
        if degraded == nil { degraded = (reason, time.nowMs()) } else { degraded?.reason = reason }
        return .unavailable("the sink cannot write its data (\(reason)); nothing of this request was stored, try again later",
                            retryAfterSeconds: retryAfterSeconds)
    }

    /// After a failed commit: cut every file back to its last committed size and rebuild the index and tables from
    /// the files. Throws (503) while that is impossible.
    func reloadIfNeeded() throws {
        guard needsReload else { return }
        do {
            // Only ever shorten: a failed clear may already have emptied a file (it was not acknowledged, and
            // deleting is what it asked), and extending would add NUL bytes.
            for number in logs.indices where logs[number].file.size() > logs[number].committedEnd {
                try logs[number].file.truncate(to: logs[number].committedEnd)
            }
            var index = UUIDIndex()
            var fresh = logs.map { TypeLog(type: $0.type, file: $0.file) }
            for number in fresh.indices {
                try Self.recover(&fresh[number], number: UInt16(number), index: &index, descriptors: descriptors,
                                 logger: logger)
            }
            logs = fresh
            self.index = index
            needsReload = false
        } catch {
            throw failure("cannot restore the data files after a failed write: \(error)")
        }
    }
}
