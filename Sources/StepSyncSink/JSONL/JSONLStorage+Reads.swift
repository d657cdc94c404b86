import Foundation
import StepSyncCore

extension JSONLStorage {
    /// The page in (start, uuid) order, as on PostgreSQL and in the CLI's export: the log's ``StartOrder``,
    /// brought up to date, is searched for the cursor's position and walked from there; the lines picked are read
    /// with as few `pread`s as they allow. The cursor is a ``StartCursor``.
    public func page(_ query: SamplePageQuery, for client: ClientIdentity) async throws -> SamplePage {
        var after: StartCursor?
        if let cursor = query.cursor, !cursor.isEmpty {
            guard let parsed = StartCursor(cursor) else { throw SampleStorageError.invalidCursor(cursor) }
            after = parsed
        }
        guard let number = logNumbers[query.type] else { return SamplePage(storedCount: 0, samples: [], nextCursor: nil) }
        let order: StartOrder
        if let made = logs[number].startOrder {
            order = made
        } else {
            order = StartOrder()
            logs[number].startOrder = order
        }
        let log = logs[number]
        order.update(log, number: UInt16(number), index: index)
        let upper = query.startRange?.upperBound ?? .max
        var i = order.firstPosition(after: after, startingAtOrAfter: query.startRange?.lowerBound ?? .min)
        var picked: [TypeLog.Slot] = []
        var bytes = 0
        var more = false
        let slots = log.slots
        order.entries.withElements { entries in
            while i < entries.count {
                let slot = slots[Int(entries[i].slot)]
                if slot.startMs >= upper { break }
                if !slot.isDeleted {
                    if picked.count == query.limit || (!picked.isEmpty && bytes + slot.length > query.maxBytes) {
                        more = true
                        break
                    }
                    picked.append(slot)
                    bytes += slot.length
                }
                i += 1
            }
        }
        let samples = try read(picked, of: log)
        let next = more ? samples.last.map { StartCursor(startMs: $0.startMs, uuid: $0.uuid).text } : nil
        return SamplePage(storedCount: log.live, samples: samples, nextCursor: next)
    }

    /// Looks each uuid up in the ``UUIDIndex`` (its log must be `type`'s and its line readable, i.e. synced), then
    /// reads just those lines in file order (adjacent ones with one `pread`), answered in the order asked.
    public func samples(_ uuids: [UUID], type: SampleType, for client: ClientIdentity) async throws -> [HealthSample] {
        guard let number = logNumbers[type], !uuids.isEmpty else { return [] }
        let log = logs[number]
        var found: [(asked: Int, slot: Int)] = []
        found.reserveCapacity(uuids.count)
        var seen = Set<UInt32>()
        for (asked, uuid) in uuids.enumerated() {
            guard let location = index.location(of: uuid), Int(location.log) == number,
                  Int(location.slot) < log.readable, !log.slots[Int(location.slot)].isDeleted,
                  seen.insert(location.slot).inserted else { continue }
            found.append((asked, Int(location.slot)))
        }
        // File order, so that adjacent lines (a route's parts usually are) are read with one pread.
        let inFileOrder = found.sorted { $0.slot < $1.slot }
        let read = try read(inFileOrder.map { log.slots[$0.slot] }, of: log)
        var answered = Array(zip(inFileOrder.map(\.asked), read))
        answered.sort { $0.0 < $1.0 }
        return answered.map(\.1)
    }

    public func typeCounts(for client: ClientIdentity) async throws -> [SampleType: Int] {
        var counts: [SampleType: Int] = [:]
        for log in logs where log.live > 0 { counts[log.type] = log.live }
        return counts
    }

    public func stepSpans(overlapping range: Range<Int64>, for client: ClientIdentity) async throws -> [StepSpan] {
        guard let number = logNumbers[.stepCount] else { return [] }
        let log = logs[number]
        // A sample overlapping the range starts before its end, and at most the longest duration before its start.
        let earliest = range.lowerBound - log.maxDurationMs
        var picked: [TypeLog.Slot] = []
        for i in 0..<log.readable {
            let slot = log.slots[i]
            if !slot.isDeleted && slot.startMs < range.upperBound && slot.startMs >= earliest { picked.append(slot) }
        }
        var spans: [StepSpan] = []
        spans.reserveCapacity(picked.count)
        for sample in try read(picked, of: log)
        where sample.endMs > range.lowerBound || (sample.startMs == sample.endMs && sample.startMs >= range.lowerBound) {
            spans.append(StepSpan(startMs: sample.startMs, endMs: sample.endMs, value: sample.value,
                                  deviceName: sample.deviceName))
        }
        // File order is arrival order; the rule sweeps in start order.
        spans.sort { $0.startMs < $1.startMs }
        return spans
    }

    public func health() async -> StorageHealth {
        try? reloadIfNeeded()
        guard let degraded else { return .ok }
        return StorageHealth(degradedReason: degraded.reason, degradedSince: Double(degraded.sinceMs) / 1000)
    }

    /// The samples of `slots` (in file order), read with one `pread` per run of adjacent lines (at most 4 MiB).
    private func read(_ slots: [TypeLog.Slot], of log: TypeLog) throws -> [HealthSample] {
        var samples: [HealthSample] = []
        samples.reserveCapacity(slots.count)
        let kind = log.type.kind
        var k = 0
        while k < slots.count {
            var end = k + 1
            var length = slots[k].length
            while end < slots.count, slots[end].offset == slots[end - 1].offset + Int64(slots[end - 1].length),
                  length + slots[end].length <= 4 << 20
            {
                length += slots[end].length
                end += 1
            }
            let base = slots[k].offset
            let bytes: [UInt8]
            do {
                bytes = try log.file.read(offset: base, length: length)
            } catch {
                throw SampleStorageError.unavailable("cannot read the data: \(error)", retryAfterSeconds: retryAfterSeconds)
            }
            try bytes.withUnsafeBytes { raw in
                for slot in slots[k..<end] {
                    let from = Int(slot.offset - base)
                    let line = UnsafeRawBufferPointer(rebasing: raw[from..<(from + slot.length - 1)])
                    do {
                        samples.append(try WireDecoder.decodeStoredSample(line, type: log.type, kind: kind))
                    } catch {
                        throw SampleStorageError.unavailable(
                            "\(log.file.path) changed under the sink (\(error)); restart it", retryAfterSeconds: retryAfterSeconds)
                    }
                }
            }
            k = end
        }
        return samples
    }
}
