import Foundation
import Logging
import NIOPosix
import StepSyncCore

/// The one owner of `steps.jsonl`: the uuid index, a compact in-memory table of stored lines, and group commit.
///
/// **Exactly once.** `index` maps every live uuid (parsed, so case-insensitive) to its slot; a sample whose uuid is
/// there is a duplicate and is not written. The index is rebuilt from the file at start.
///
/// **Group commit.** A request appends its lines to `pending` and calls ``commit()``. If no commit is running it
/// becomes the leader: it takes everything pending (its own lines and those of requests that arrived meanwhile),
/// writes it with one `write` and one `fdatasync` on NIO's thread pool, resumes every request of that batch, and
/// hands the lead to the first request that queued during the sync. So N concurrent requests cost ≈ 1 sync, and a
/// 2xx is sent only once the request's lines are on disk. A request that only found duplicates still waits for
/// the commit in flight, since its duplicates may be in it.
///
/// **Failures stop the log.** If a write or sync fails, the batch's waiters get an error (503) and every later
/// request too: after a failed `fdatasync` the page cache cannot be trusted, so the sink must be restarted, which
/// rebuilds the state from what the file really holds.
///
/// **Reads.** Per stored line the table keeps offset, length, start, count and a deleted flag (≈ 33 bytes), so
/// `GET /steps` reads only the page's lines back from the file with `pread`, and the daily totals are kept up to
/// date in a dictionary. Only slots whose bytes are written (`readableSlots`) are served.
actor SampleLog {
    struct Slot {
        var offset: Int64
        var length: Int32
        var deleted: Bool
        var startMs: Int64
        var count: Double
    }

    private enum Role { case committed, lead }

    private let file: SampleLogFile
    private let durable: Bool
    private let onSync: (@Sendable () -> Void)?
    private let logger: Logger

    private var index: [UUID: Int32] = [:]
    private var slots: [Slot] = []
    private var daily: [Int64: Double] = [:]
    private(set) var liveCount = 0

    private var pending: [UInt8] = []
    private var pendingTruncate = false
    private var enqueuedEnd: Int64
    private var waiters: [CheckedContinuation<Role, any Error>] = []
    private var committing = false
    private var epoch = 0
    private var readableSlots = 0
    private var failure: SampleLogError?

    /// Opens the file and rebuilds the index from it, cutting off a torn last line.
    init(path: String, durable: Bool, onSync: (@Sendable () -> Void)?, logger: Logger) throws {
        self.file = try SampleLogFile(path: path)
        self.durable = durable
        self.onSync = onSync
        self.logger = logger
        let recovered = try Self.recover(file, logger: logger)
        self.index = recovered.index
        self.slots = recovered.slots
        self.daily = recovered.daily
        self.liveCount = recovered.index.count
        self.readableSlots = recovered.slots.count
        self.enqueuedEnd = recovered.end
    }

    // MARK: - Writes

    /// Stores the samples whose uuid is not stored yet; returns (inserted, duplicates) once they are durable.
    func append(_ samples: [WireSample]) async throws -> (inserted: Int, duplicates: Int) {
        try checkHealthy()
        var inserted = 0
        for sample in samples where index[sample.uuid] == nil {
            let before = pending.count
            WireEncoder.appendLine(sample, to: &pending)
            let length = pending.count - before
            index[sample.uuid] = Int32(slots.count)
            slots.append(Slot(offset: enqueuedEnd, length: Int32(length), deleted: false, startMs: sample.startMs,
                              count: sample.count))
            enqueuedEnd += Int64(length)
            daily[SampleLog.day(of: sample.startMs), default: 0] += sample.count
            liveCount += 1
            inserted += 1
        }
        if inserted > 0 || committing { try await commit() }
        return (inserted, samples.count - inserted)
    }

    /// Writes a tombstone for every stored uuid of `uuids`; returns (deleted, missing) once durable.
    func delete(_ uuids: [UUID]) async throws -> (deleted: Int, missing: Int) {
        try checkHealthy()
        var deleted = 0
        var seen = Set<UUID>()
        for uuid in uuids where seen.insert(uuid).inserted {
            guard let slot = index.removeValue(forKey: uuid) else { continue }
            slots[Int(slot)].deleted = true
            daily[SampleLog.day(of: slots[Int(slot)].startMs), default: 0] -= slots[Int(slot)].count
            liveCount -= 1
            let line = Array("{\"deleted\":\"\(uuid.uuidString)\"}\n".utf8)
            pending.append(contentsOf: line)
            enqueuedEnd += Int64(line.count)
            deleted += 1
        }
        if deleted > 0 || committing { try await commit() }
        return (deleted, uuids.count - deleted)
    }

    /// Empties the file (durably) and the index; returns how many samples were stored.
    func clear() async throws -> Int {
        try checkHealthy()
        let count = liveCount
        index.removeAll()
        slots.removeAll()
        daily.removeAll()
        liveCount = 0
        pending.removeAll()
        pendingTruncate = true
        enqueuedEnd = 0
        epoch += 1
        readableSlots = 0
        try await commit()
        return count
    }

    private func checkHealthy() throws {
        if let failure { throw failure }
    }

    /// Returns once everything pending when called is on disk (see the type's documentation).
    private func commit() async throws {
        if committing {
            let role = try await withCheckedThrowingContinuation { waiters.append($0) }
            if role == .committed { return }
        } else {
            committing = true
        }
        let batch = pending
        let truncate = pendingTruncate
        let batchWaiters = waiters
        let batchEpoch = epoch
        let batchSlots = slots.count
        pending = []
        pendingTruncate = false
        waiters = []
        do {
            if !batch.isEmpty || truncate {
                let file = self.file
                let durable = self.durable
                try await NIOThreadPool.singleton.runIfActive {
                    try file.append(batch, truncateFirst: truncate, sync: durable)
                }
                if durable { onSync?() }
            }
        } catch {
            let failure = (error as? SampleLogError) ?? SampleLogError.io("cannot write", path: file.path, errno: EIO)
            logger.error("Data file write failed; the sink refuses writes until restarted",
                         metadata: ["sink.error": "\(failure)"])
            self.failure = failure
            for waiter in batchWaiters + waiters { waiter.resume(throwing: failure) }
            waiters = []
            committing = false
            throw failure
        }
        if batchEpoch == epoch { readableSlots = batchSlots }
        for waiter in batchWaiters { waiter.resume(returning: .committed) }
        if waiters.isEmpty {
            committing = false
        } else {
            waiters.removeFirst().resume(returning: .lead)
        }
    }

    // MARK: - Reads

    /// A page of stored lines in arrival order from slot `cursor`, keeping those whose start is in `range`.
    func page(cursor: Int, limit: Int, range: Range<Int64>?) throws -> (lines: [[UInt8]], next: Int?) {
        var picked: [Slot] = []
        var i = max(0, cursor)
        while i < readableSlots, picked.count < limit {
            let slot = slots[i]
            if !slot.deleted, range?.contains(slot.startMs) ?? true { picked.append(slot) }
            i += 1
        }
        // One pread per run of adjacent lines.
        var lines: [[UInt8]] = []
        lines.reserveCapacity(picked.count)
        var k = 0
        while k < picked.count {
            var end = k + 1
            while end < picked.count, picked[end].offset == picked[end - 1].offset + Int64(picked[end - 1].length) { end += 1 }
            let start = picked[k].offset
            let length = Int(picked[end - 1].offset + Int64(picked[end - 1].length) - start)
            let bytes = try file.read(offset: start, length: length)
            for slot in picked[k..<end] {
                let from = Int(slot.offset - start)
                lines.append(Array(bytes[from..<(from + Int(slot.length) - 1)]))
            }
            k = end
        }
        return (lines, i < readableSlots ? i : nil)
    }

    /// Step totals per UTC day (days since 1970), in day order, leaving out days with nothing stored.
    func dailyTotals() -> [(day: Int64, steps: Double)] {
        daily.filter { $0.value > 0.000_001 }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}

extension SampleLog {
    /// The UTC day (days since 1970) holding `ms`.
    static func day(of ms: Int64) -> Int64 {
        let q = ms / Milliseconds.day
        return ms % Milliseconds.day < 0 ? q - 1 : q
    }
}
