import Foundation
import Logging
import StepSyncCore

extension JSONLStorage {
    /// A complete line that could not be read at start.
    struct BadLine {
        var number: Int
        var range: Range<Int64>
        var problem: String
    }

    /// Reads every line of `log`'s file into its slots and `index`: samples enter the index, tombstones
    /// `{"deleted":"<UUID>"}` leave it.
    ///
    /// The recovery rule (`Planning/sink.md`):
    /// - only a partial last line (no `\n`) is a torn tail — a crash mid-append — and is cut off;
    /// - a complete line that cannot be read (not JSON, not a sample of the file's type, or refused by
    ///   ``SampleValidation``) is moved aside to `<file>.quarantine` (appended durably, then the data file is
    ///   rewritten without it: temporary file, sync, rename, directory sync) and logged with its line number; the
    ///   sink starts, and nothing else in the file changes;
    /// - a sample whose uuid is already indexed (from an earlier line or another type's file) stays in the file
    ///   but is not served.
    static func recover(_ log: inout TypeLog, number: UInt16, index: inout UUIDIndex, descriptors: DescriptorCache,
                        logger: Logger) throws {
        let bad = try scan(&log, number: number, index: &index, logger: logger)
        if !bad.isEmpty {
            try quarantine(bad, of: log, logger: logger)
            // The file was renamed over: drop the old descriptor. Offsets changed: read the rewritten file again.
            descriptors.forget(log.file.path)
            index.removeAll(inLog: number)
            log = TypeLog(type: log.type, file: try SampleLogFile(path: log.file.path, descriptors: descriptors))
            let again = try scan(&log, number: number, index: &index, logger: logger)
            if let first = again.first {
                throw SampleLogError.io("line \(first.number) still unreadable after quarantine in", path: log.file.path,
                                        errno: EIO)
            }
        }
        logger.info("Data file loaded", metadata: [
            "sink.file": "\(log.file.path)", "sink.samples": "\(log.live)", "sink.bytes": "\(log.committedEnd)",
        ])
    }

    /// One pass over the file; cuts a torn tail, returns the unreadable complete lines.
    private static func scan(_ log: inout TypeLog, number: UInt16, index: inout UUIDIndex, logger: Logger) throws
        -> [BadLine]
    {
        var bad: [BadLine] = []
        var lineNumber = 0
        let type = log.type
        let kind = type.kind
        let slots = PageBuffer<TypeLog.Slot>()
        var live = 0
        var maxDuration: Int64 = 0
        let completeEnd = try log.file.forEachLine { line, offset in
            lineNumber += 1
            if line.isEmpty { return }
            if let tombstone = parseTombstone(line) {
                if let location = index.location(of: tombstone), location.log == number {
                    index.remove(tombstone)
                    slots[Int(location.slot)].markDeleted()
                    live -= 1
                }
                return
            }
            guard line.count < TypeLog.Slot.maxLength else {
                bad.append(BadLine(number: lineNumber, range: offset..<(offset + Int64(line.count) + 1),
                                   problem: "line of \(line.count) bytes is longer than any sample"))
                return
            }
            do {
                let sample = try WireDecoder.decodeStoredSample(line, type: type, kind: kind)
                let slot = TypeLog.Slot(offset: offset, length: line.count + 1, startMs: sample.startMs)
                slots.append(slot)
                if index.insert(sample.uuid, at: .init(log: number, slot: UInt32(slots.count - 1))) {
                    live += 1
                    maxDuration = max(maxDuration, sample.endMs - sample.startMs)
                } else {
                    slots[slots.count - 1].markDeleted()
                }
            } catch {
                bad.append(BadLine(number: lineNumber, range: offset..<(offset + Int64(line.count) + 1),
                                   problem: "\(error)"))
            }
        }
        let size = log.file.size()
        if completeEnd < size {
            try log.file.truncate(to: completeEnd)
        }
        log.slots = slots
        log.readable = slots.count
        log.live = live
        log.maxDurationMs = maxDuration
        log.enqueuedEnd = completeEnd
        log.committedEnd = completeEnd
        if completeEnd < size {
            logger.warning("Torn last line of the data file cut off", metadata: [
                "sink.file": "\(log.file.path)", "sink.tail.offset": "\(completeEnd)",
                "sink.tail.bytes": "\(size - completeEnd)", "sink.tail.line": "\(lineNumber + 1)",
            ])
        }
        return bad
    }

    /// Appends the bad lines to `<file>.quarantine`, then rewrites the file without them.
    private static func quarantine(_ bad: [BadLine], of log: TypeLog, logger: Logger) throws {
        let path = log.file.path
        var moved: [UInt8] = []
        for line in bad {
            moved += try log.file.read(offset: line.range.lowerBound, length: Int(line.range.count))
        }
        try FileSystem.appendDurably(path + ".quarantine", moved)
        try log.file.writeCopy(to: path + ".tmp", excluding: bad.map(\.range))
        guard rename(path + ".tmp", path) == 0 else { throw SampleLogError.io("cannot rename to", path: path, errno: errno) }
        try FileSystem.syncDirectory(of: path)
        for line in bad {
            logger.error("Unreadable line moved to the quarantine file", metadata: [
                "sink.file": "\(path)", "sink.line": "\(line.number)", "sink.quarantine": "\(path).quarantine",
                "sink.problem": "\(line.problem)",
            ])
        }
    }

    /// The uuid of a tombstone line `{"deleted":"<UUID>"}`, or nil.
    static func parseTombstone(_ line: UnsafeRawBufferPointer) -> UUID? {
        let prefix = #"{"deleted":""#.utf8
        guard line.count == prefix.count + 36 + 2, line.starts(with: prefix),
              line[line.count - 2] == UInt8(ascii: "\""), line[line.count - 1] == UInt8(ascii: "}")
        else { return nil }
        return UUID(uuidString: String(decoding: UnsafeRawBufferPointer(rebasing: line[prefix.count..<(prefix.count + 36)]),
                                       as: UTF8.self))
    }
}
