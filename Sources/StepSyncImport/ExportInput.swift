import Foundation
import StepSyncCore
import ZIPFoundation

/// Where the XML of an export comes from: a bare `export.xml`, or the export entry of an `export.zip`, inflated as
/// a stream (never extracted to disk).
enum ExportInput {
    /// A bare XML file.
    case xml(path: String, size: Int64)
    /// The Apple Health export entry of a zip archive.
    case zip(archive: Archive, entry: Entry)

    /// Opens `path` and decides, from its first bytes, what it is.
    ///
    /// - Throws: ``ImportError`` naming the file when it cannot be read, is neither a zip nor XML, is a damaged
    ///   zip, or is a zip with no Apple Health export in it.
    static func open(_ path: String) throws -> ExportInput {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ImportError.cannotRead(path, reason: FileManager.default.fileExists(atPath: path)
                ? "permission denied" : "no such file")
        }
        let head: Data
        let size: Int64
        do {
            defer { try? handle.close() }
            head = try handle.read(upToCount: 4096) ?? Data()
            size = Int64(try handle.seekToEnd())
        } catch {
            throw ImportError.cannotRead(path, reason: "\(error)")
        }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) || head.starts(with: [0x50, 0x4B, 0x05, 0x06]) {
            return try openZip(path)
        }
        // XML: optional byte-order mark and whitespace, then `<`.
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if let first = bytes.first(where: { !XMLChunkScanner.isSpace($0) }), first == UInt8(ascii: "<") {
            return .xml(path: path, size: size)
        }
        throw ImportError.notAnExport(path, reason: head.isEmpty
            ? "the file is empty; expected an Apple Health export.zip or export.xml"
            : "not a zip archive or an XML file; expected an Apple Health export.zip or export.xml")
    }

    /// Finds the Apple Health export in a zip by its content, not its name (the name is localised).
    private static func openZip(_ path: String) throws -> ExportInput {
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw ImportError.badArchive(path, reason: "not a readable zip archive (\(error)); it may be truncated")
        }
        for entry in archive where entry.type == .file {
            let name = (entry.path as NSString).lastPathComponent.lowercased()
            if name == "export_cda.xml" || name.hasSuffix(".gpx") { continue }
            if try isHealthExport(entry, in: archive, zipPath: path) { return .zip(archive: archive, entry: entry) }
        }
        throw ImportError.notAnExport(path, reason:
            "the zip holds no Apple Health export (no entry starting with <!DOCTYPE HealthData or <HealthData)")
    }

    /// Whether the first few KiB of `entry` hold `<!DOCTYPE HealthData` or `<HealthData`.
    private static func isHealthExport(_ entry: Entry, in archive: Archive, zipPath: String) throws -> Bool {
        struct Enough: Error {}
        var head = Data()
        do {
            _ = try archive.extract(entry, bufferSize: 16 * 1024, skipCRC32: true) { chunk in
                head.append(chunk)
                if head.count >= 4096 { throw Enough() }
            }
        } catch is Enough {
        } catch {
            throw ImportError.badArchive(zipPath, reason: "the entry \(InputExcerpt.of(entry.path)) cannot be inflated (\(error))")
        }
        let text = String(decoding: head.prefix(8192), as: UTF8.self)
        return text.contains("<!DOCTYPE HealthData") || text.contains("<HealthData")
    }

    /// The name errors use: the path, plus the entry for a zip (`export.zip: apple_health_export/export.xml`). An
    /// entry's path comes from the archive (up to 65,535 bytes): at most 64 scalars of it are shown (``InputExcerpt``).
    func displayName(_ path: String) -> String {
        switch self {
        case .xml: return path
        case .zip(_, let entry): return "\(path): \(InputExcerpt.of(entry.path))"
        }
    }

    /// Bytes of XML in all.
    var totalBytes: Int64 {
        switch self {
        case .xml(_, let size): return size
        case .zip(_, let entry): return Int64(entry.uncompressedSize)
        }
    }

    /// Calls `body` with the XML, chunk by chunk.
    ///
    /// - Throws: what `body` throws, or ``ImportError`` when the file cannot be read or the zip entry is damaged.
    func stream(_ path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        switch self {
        case .xml:
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw ImportError.cannotRead(path, reason: "it can no longer be opened")
            }
            defer { try? handle.close() }
            while true {
                let chunk: Data
                do {
                    guard let data = try handle.read(upToCount: 1 << 20), !data.isEmpty else { return }
                    chunk = data
                } catch {
                    throw ImportError.cannotRead(path, reason: "\(error)")
                }
                try chunk.withUnsafeBytes(body)
            }
        case .zip(let archive, let entry):
            /// An error of `body`, kept apart from the archive's own errors.
            struct BodyError: Error { var error: any Error }
            // The CRC-32 is computed here with zlib (see `CRC32`), not by ZIPFoundation.
            var checksum: UInt32 = 0
            var inflated: UInt64 = 0
            do {
                _ = try archive.extract(entry, bufferSize: 256 * 1024, skipCRC32: true) { chunk in
                    inflated += UInt64(chunk.count)
                    do {
                        try chunk.withUnsafeBytes { bytes in
                            checksum = CRC32.update(checksum, with: bytes)
                            try body(bytes)
                        }
                    } catch { throw BodyError(error: error) }
                }
            } catch let error as BodyError {
                throw error.error
            } catch {
                throw ImportError.badArchive(displayName(path), reason: "the entry cannot be inflated (\(error)); the zip is damaged")
            }
            guard checksum == entry.checksum else {
                throw ImportError.badArchive(displayName(path), reason: "the entry's checksum does not match; the zip is damaged")
            }
            // ZIPFoundation checks the checksum, not the size the directory gives (found by the export-input fuzzer).
            guard inflated == entry.uncompressedSize else {
                throw ImportError.badArchive(displayName(path), reason:
                    "the entry inflates to \(inflated) bytes, its directory says \(entry.uncompressedSize); the zip is damaged")
            }
        }
    }
}
