import Foundation
import StepSyncCore
#if canImport(StepSyncImport)
@testable import StepSyncImport
import StepSyncTestSupport
#endif

/// What ``ExportInput`` (how `stepsync import` opens a file: a bare `export.xml`, or the Apple Health entry of an
/// `export.zip`, found by its content and inflated as a stream) promises for any file, as a check that returns the
/// broken promises (empty when all hold). The bytes are written to a temporary file, opened and, when accepted,
/// streamed to the end. The `export-input` fuzz target compiles this file; `FuzzReplayTests` runs every corpus and
/// crash file through it once. The promises:
/// 1. any file is safe (ZIPFoundation's reading of a damaged archive included) and a refusal is an ``ImportError``
///    whose message names the file and quotes at most 64 Unicode scalars of any name taken from the archive (an
///    entry's path is up to 65,535 bytes);
/// 2. a file that is not a zip (no `PK\3\4` or `PK\5\6` first) is accepted exactly when its first byte other than a
///    byte-order mark and spaces is `<`, and streams back its own bytes;
/// 3. an accepted zip streams exactly its entry's uncompressed size, starting with what made it the export
///    (`<!DOCTYPE HealthData` or `<HealthData` in its first 8 KiB), or stops with an ``ImportError`` (a damaged
///    entry or checksum) that quotes as little.
enum ExportInputOracle {
    /// The longest message allowed besides the file's name, in Unicode scalars: one name of 64 scalars and `…`, and
    /// the fixed text with ZIPFoundation's error (an entry's whole path of 200 bytes would not fit).
    static let maxMessageScalars = 64 + 1 + 160

    /// The promises the file `bytes` breaks.
    static func problems(_ bytes: UnsafeRawBufferPointer) -> [String] {
        let path = NSTemporaryDirectory() + "stepsync-fuzz-export-\(getpid()).bin"
        defer { unlink(path) }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return [] }
        let isZip = bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06])
        let input: ExportInput
        do {
            input = try ExportInput.open(path)
        } catch {
            return errorProblems(error, path: path, bytes: bytes, isZip: isZip, opened: false)
        }
        var streamed: [UInt8] = []
        do {
            try input.stream(path) { chunk in
                streamed += chunk
                // A zip bomb inflates without end; what is left to check is the stream, not its size.
                if streamed.count > 64 << 20 { throw CancellationError() }
            }
        } catch is CancellationError {
            return []
        } catch {
            return isZip ? errorProblems(error, path: path, bytes: bytes, isZip: isZip, opened: true)
                         : ["a bare XML file could not be streamed: \(error)"]
        }
        var problems: [String] = []
        switch input {
        case .xml:
            if isZip { problems.append("a zip was opened as XML") }
            if !startsLikeXML(bytes) { problems.append("a file not starting with < was accepted as XML") }
            if !streamed.elementsEqual(bytes) { problems.append("the XML streamed back \(streamed.count) other bytes") }
        case .zip:
            if !isZip { problems.append("a file without a zip signature was opened as a zip") }
            if Int64(streamed.count) != input.totalBytes {
                problems.append("the entry streamed \(streamed.count) bytes, its size is \(input.totalBytes)")
            }
            let head = String(decoding: streamed.prefix(8192), as: UTF8.self)
            if !head.contains("<!DOCTYPE HealthData") && !head.contains("<HealthData") {
                problems.append("the streamed entry is not what made it the export: \(ImportFuzzText.head(head))")
            }
        }
        return problems
    }

    static func startsLikeXML(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var rest = bytes[...].prefix(4096)
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        return rest.first(where: { !XMLChunkScanner.isSpace($0) }) == UInt8(ascii: "<")
    }

    static func errorProblems(_ error: any Error, path: String, bytes: UnsafeRawBufferPointer, isZip: Bool,
                              opened: Bool) -> [String] {
        guard let error = error as? ImportError else {
            return ["\(opened ? "streaming" : "opening") threw \(type(of: error)), not ImportError: \(error)"]
        }
        var problems: [String] = []
        let message = error.description
        if !message.contains(path) { problems.append("the message does not name the file: \(ImportFuzzText.head(message))") }
        let rest = message.replacingOccurrences(of: path, with: "")
        if rest.unicodeScalars.count > maxMessageScalars {
            problems.append("the message is \(rest.unicodeScalars.count) scalars besides the file's name: \(ImportFuzzText.head(message))")
        }
        if !isZip && opened { problems.append("a bare XML file failed while streaming: \(message)") }
        if !isZip && startsLikeXML(bytes) { problems.append("a file starting with < was refused: \(message)") }
        return problems
    }
}
