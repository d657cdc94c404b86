import Foundation
import Logging
import StepSyncCore

extension SampleLog {
    /// What the file holds, rebuilt at start.
    struct Recovered {
        var index: [UUID: Int32] = [:]
        var slots: [Slot] = []
        var daily: [Int64: Double] = [:]
        /// The file's size after any repair.
        var end: Int64 = 0
    }

    /// Reads every line: samples enter the index, tombstones `{"deleted":"<UUID>"}` leave it.
    ///
    /// A crash mid-append leaves at most a torn tail: a last line without its `\n`, or (if the file system
    /// persisted the size before the data) final lines that do not parse. Both are cut off and logged. A bad line
    /// followed by good ones is not a torn tail: recovery refuses to guess and throws, naming the line.
    static func recover(_ file: SampleLogFile, logger: Logger) throws -> Recovered {
        var state = Recovered()
        var lineNumber = 0
        var firstBad: (line: Int, offset: Int64, problem: String)?
        let completeEnd = try file.forEachLine { line, offset in
            lineNumber += 1
            if line.isEmpty { return }
            if let tombstone = parseTombstone(line) {
                if let slot = state.index.removeValue(forKey: tombstone) { state.remove(slot) }
                if let bad = firstBad { throw SampleLogError.corrupt(path: file.path, line: bad.line, problem: bad.problem) }
                return
            }
            do {
                let sample = try WireDecoder.decodeSample(line, index: nil)
                if let bad = firstBad { throw SampleLogError.corrupt(path: file.path, line: bad.line, problem: bad.problem) }
                let slot = Slot(offset: offset, length: Int32(line.count + 1), deleted: false, startMs: sample.startMs,
                                count: sample.count)
                state.slots.append(slot)
                if state.index[sample.uuid] == nil {
                    state.index[sample.uuid] = Int32(state.slots.count - 1)
                    state.daily[SampleLog.day(of: sample.startMs), default: 0] += sample.count
                } else {
                    state.slots[state.slots.count - 1].deleted = true
                }
            } catch let error as WireError {
                if firstBad == nil { firstBad = (lineNumber, offset, error.description) }
            }
        }
        let size = file.size()
        let keep = firstBad?.offset ?? completeEnd
        if keep < size {
            logger.warning("Torn tail in the data file cut off", metadata: [
                "sink.file": "\(file.path)", "sink.tail.offset": "\(keep)", "sink.tail.bytes": "\(size - keep)",
                "sink.tail.problem": "\(firstBad?.problem ?? "last line has no newline")",
            ])
            try file.truncate(to: keep)
        }
        state.end = keep
        logger.info("Data file loaded", metadata: [
            "sink.file": "\(file.path)", "sink.samples": "\(state.index.count)", "sink.bytes": "\(keep)",
        ])
        return state
    }

    /// The uuid of a tombstone line `{"deleted":"<UUID>"}`, or nil.
    static func parseTombstone(_ line: UnsafeRawBufferPointer) -> UUID? {
        let prefix = Array(#"{"deleted":""#.utf8)
        guard line.count == prefix.count + 36 + 2, line.starts(with: prefix),
              line[line.count - 2] == UInt8(ascii: "\""), line[line.count - 1] == UInt8(ascii: "}")
        else { return nil }
        return UUID(uuidString: String(decoding: UnsafeRawBufferPointer(rebasing: line[prefix.count..<(prefix.count + 36)]),
                                       as: UTF8.self))
    }
}

extension SampleLog.Recovered {
    mutating func remove(_ slot: Int32) {
        let i = Int(slot)
        slots[i].deleted = true
        daily[SampleLog.day(of: slots[i].startMs), default: 0] -= slots[i].count
    }
}
