import Foundation
import StepSyncCore
import ZIPFoundation

/// The files an export holds beside `export.xml`: route files (`workout-routes/*.gpx`) and ECG files
/// (`electrocardiograms/*.csv`), in the zip or in the folder beside a bare `export.xml`.
///
/// Files are named as `export.xml` names them, from the export's folder: `/workout-routes/route_….gpx`. A zip's
/// entries are indexed once (path → entry, one pass over the central directory); a file is read whole only when asked
/// for, one at a time, so memory holds one file.
struct ExportAttachments {
    /// The two folders read.
    static let routeFolder = "workout-routes"
    static let electrocardiogramFolder = "electrocardiograms"

    private enum Source {
        case zip(Archive, entries: [String: Entry])
        case folder(URL)
    }
    private let source: Source
    /// The name errors use for the export (`export.zip`, or the `export.xml` path).
    private let exportPath: String
    /// Where the export's folder is inside the zip (`apple_health_export/`), for display.
    private let zipBase: String

    /// Why a file could not be read.
    enum Problem: Error {
        /// The export does not hold it.
        case missing
        /// It is larger than the reader's limit.
        case tooLarge(UInt64, limit: Int)
        /// The zip entry cannot be inflated, or the file read.
        case unreadable(String)
        /// In an unzipped export: a symbolic link that leads out of the export's folder (to this resolved path).
        case outsideExport(String)
        /// In an unzipped export: a FIFO, socket or device (what it is), never opened.
        case notRegularFile(String)

        /// As a predicate of the file.
        var description: String {
            switch self {
            case .missing: return "is not in the export"
            case .tooLarge(let size, let limit): return "is \(size) bytes, over the limit of \(limit)"
            case .unreadable(let reason): return "cannot be read (\(reason))"
            case .outsideExport(let target):
                return "is a symbolic link out of the export's folder (to \(InputExcerpt.of(target))); it is not read"
            case .notRegularFile(let kind): return "is \(kind), not a regular file; it is not read"
            }
        }
    }

    /// The attachments of the export `input` opened from `path`.
    init(input: ExportInput, path: String) {
        exportPath = path
        switch input {
        case .xml(let xmlPath, _):
            source = .folder(URL(fileURLWithPath: xmlPath).deletingLastPathComponent())
            zipBase = ""
        case .zip(let archive, let exportEntry):
            let base = (exportEntry.path as NSString).deletingLastPathComponent
            zipBase = base.isEmpty ? "" : base + "/"
            var entries: [String: Entry] = [:]
            for entry in archive where entry.type == .file {
                guard let name = Self.reference(ofEntry: entry.path) else { continue }
                // An entry in the export's own folder wins over one elsewhere in the zip.
                if entries[name] == nil || entry.path.hasPrefix(zipBase) { entries[name] = entry }
            }
            source = .zip(archive, entries: entries)
        }
    }

    /// `apple_health_export/workout-routes/x.gpx` → `/workout-routes/x.gpx`; `nil` outside the two folders.
    static func reference(ofEntry path: String) -> String? {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        guard components.count >= 2 else { return nil }
        let folder = components[components.count - 2]
        guard folder == routeFolder || folder == electrocardiogramFolder else { return nil }
        return "/\(folder)/\(components[components.count - 1])"
    }

    /// Every file in `folder` whose name ends with `suffix` (case-insensitive), as references, sorted.
    func files(in folder: String, suffix: String) -> [String] {
        let suffix = suffix.lowercased()
        switch source {
        case .zip(_, let entries):
            return entries.keys.filter { $0.hasPrefix("/\(folder)/") && $0.lowercased().hasSuffix(suffix) }.sorted()
        case .folder(let base):
            let names = (try? FileManager.default.contentsOfDirectory(atPath: base.appendingPathComponent(folder).path)) ?? []
            return names.filter { $0.lowercased().hasSuffix(suffix) }.map { "/\(folder)/\($0)" }.sorted()
        }
    }

    /// The name of `reference` for people: `export.zip: apple_health_export/workout-routes/x.gpx`, or its path.
    func displayName(_ reference: String) -> String {
        switch source {
        case .zip: return "\(exportPath): \(zipBase)\(reference.dropFirst())"
        case .folder(let base): return base.appendingPathComponent(String(reference.dropFirst())).path
        }
    }

    /// The bytes of `reference` (a path as `export.xml` names it), at most `maxBytes`.
    ///
    /// - Throws: ``Problem``: not in the export (or a path that climbs out of its folder with `..`), too large, or
    ///   unreadable (a damaged entry: its checksum is checked); in a folder, a link out of it or a special file
    ///   (``FolderFile``).
    func read(_ reference: String, maxBytes: Int) throws(Problem) -> [UInt8] {
        let parts = reference.split(separator: "/")
        guard !parts.isEmpty, !parts.contains(".."), !parts.contains(".") else { throw .missing }
        switch source {
        case .zip(let archive, let entries):
            guard let key = Self.reference(ofEntry: reference), key == "/" + parts.joined(separator: "/"),
                  let entry = entries[key] else { throw .missing }
            guard entry.uncompressedSize <= UInt64(maxBytes) else { throw .tooLarge(UInt64(entry.uncompressedSize), limit: maxBytes) }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(Int(entry.uncompressedSize))
            do {
                _ = try archive.extract(entry, bufferSize: 64 * 1024, skipCRC32: false) { chunk in
                    guard bytes.count + chunk.count <= maxBytes else { throw Problem.tooLarge(UInt64(bytes.count + chunk.count), limit: maxBytes) }
                    bytes.append(contentsOf: chunk)
                }
            } catch let problem as Problem {
                throw problem
            } catch {
                throw .unreadable("the zip entry cannot be inflated: \(error)")
            }
            return bytes
        case .folder(let base):
            return try FolderFile.read(parts.joined(separator: "/"), under: base, maxBytes: maxBytes)
        }
    }
}
