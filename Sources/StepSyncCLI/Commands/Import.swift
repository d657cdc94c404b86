import ArgumentParser
import Foundation
import StepSyncCore
import StepSyncImport
import StepSyncStore

extension StepSyncCommand {
    /// `stepsync import PATH`: stream an Apple Health export into the sample store.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import an Apple Health export (export.zip or export.xml) into the sample store.",
            discussion: """
                The export is streamed (the zip is inflated as it is read, never extracted), every record and \
                workout is given a uuid derived from its content, and the whole import is one transaction: \
                importing the same export again adds nothing, and a newer export adds only new records.

                A record that cannot be stored (a quantity without a value, a value or date that cannot be read, \
                an end before its start, a date outside years 1-9999, a negative step count, ...) is skipped and \
                counted by reason; the summary names the first few with their line. With --strict, any such \
                record imports nothing and exits non-zero. A file that is damaged (a truncated zip or XML, a \
                checksum mismatch, a tag that never closes, no export in the zip) is refused whole, and the store \
                is left as it was.

                Workout routes (workout-routes/*.gpx) and ECGs (electrocardiograms/*.csv) in the zip, or in the \
                folder beside a bare export.xml, are stored too, as series parts. A damaged route or ECG file, or a \
                route file a workout names but the export lacks, is skipped and counted like a record.

                Examples:
                  stepsync import ~/Downloads/export.zip
                  stepsync import export.zip --strict --json
                """)

        @OptionGroup var data: DataDirectoryOptions

        @Argument(help: ArgumentHelp(
            "The Apple Health export: export.zip, the export.xml inside it, or the unzipped apple_health_export folder.",
            valueName: "path"))
        var path: String

        @Flag(help: "Refuse the whole import (nothing stored, exit 1) if any record would be skipped.")
        var strict = false

        @Flag(name: .customLong("restore-deleted"), help: ArgumentHelp(
            "Store again the records whose samples were deleted from the store (stepsync delete).",
            discussion: "Without it a deletion stays deleted: a record of this export whose sample was deleted is left out and counted."))
        var restoreDeleted = false

        @Flag(help: "Print one JSON object (samples, steps, duplicates, skipped, per-type counts) instead of a summary.")
        var json = false

        func run() async throws {
            if let problem = Self.inputProblem(path) {
                FileHandle.standardError.write(Data("error: \(problem)\nNothing was imported.\n".utf8))
                throw ExitCode.failure
            }
            let path = Self.exportFile(in: path) ?? path
            // A failed first import leaves no store behind (nor the directory it made for it).
            let directory = data.dataDirectory
            let hadStore = FileManager.default.fileExists(atPath: directory.storePath)
            let hadDirectory = FileManager.default.fileExists(atPath: directory.path)
            let store = try data.openStore()
            var reporter = ProgressReporter(label: "MB", enabled: !json, time: .system)
            let summary: ImportSummary
            do {
                summary = try HealthImporter(store: store, time: .system).importExport(
                    at: path, strict: strict, deletedSamples: restoreDeleted ? .restore : .remember
                ) { progress in
                    let rate = reporter.elapsedSeconds > 0 ? Double(progress.records) / reporter.elapsedSeconds : 0
                    reporter.update(done: (progress.bytesRead + (1 << 20) - 1) >> 20, total: (progress.totalBytes + (1 << 20) - 1) >> 20,
                                    detail: "\(Format.number(progress.records)) records, \(Format.number(Int64(rate))) records/s")
                }
            } catch let error as ImportError {
                reporter.finish()
                let was = hadStore ? "the store is as it was" : "no store was left in \(directory.path)"
                if !hadStore { Self.removeNewStore(directory, removeDirectory: !hadDirectory) }
                FileHandle.standardError.write(Data("error: \(error.message)\nNothing was imported: \(was).\n".utf8))
                throw ExitCode.failure
            }
            reporter.finish()
            if json {
                try JSONOutput.print(JSONReport(summary))
            } else {
                print(Self.report(summary))
            }
        }

        /// The export document of an unzipped export folder (`apple_health_export/`): its `export.xml`, else its one
        /// `.xml` file that is not `export_cda.xml` (the name is localised); `nil` for a path that is not a directory.
        static func exportFile(in path: String) -> String? {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
                  let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return nil }
            let candidates = names.filter { $0.lowercased().hasSuffix(".xml") && $0.lowercased() != "export_cda.xml" }
            let chosen = candidates.contains("export.xml") ? "export.xml" : candidates.count == 1 ? candidates[0] : nil
            return chosen.map { (path as NSString).appendingPathComponent($0) }
        }

        /// Removes the store a failed first import created (and the data directory, when it made that too).
        static func removeNewStore(_ directory: DataDirectory, removeDirectory: Bool) {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: directory.storePath + suffix)
            }
            if removeDirectory, (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.isEmpty == true {
                try? FileManager.default.removeItem(atPath: directory.path)
            }
        }

        /// What keeps `path` from being read as an export, in words (no file, a folder without an export, no
        /// permission), or `nil`.
        static func inputProblem(_ path: String) -> String? {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                return "\(path) does not exist: give the path of an Apple Health export.zip or its export.xml"
            }
            if isDirectory.boolValue {
                guard let file = exportFile(in: path) else {
                    return "\(path) is a directory without an export document (export.xml): give the export.zip, the "
                        + "export.xml, or the unzipped apple_health_export folder that holds it"
                }
                return inputProblem(file)
            }
            guard FileManager.default.isReadableFile(atPath: path) else {
                return "\(path) cannot be read: permission denied (check its owner and mode)"
            }
            return nil
        }

        /// The summary for people.
        static func report(_ s: ImportSummary) -> String {
            var lines: [String] = []
            lines.append("Imported \(s.file)\(s.entry.map { " (\($0))" } ?? ""): \(Format.number(s.recordsRead)) records read, "
                + "\(Format.number(s.inserted)) new, \(Format.number(s.duplicates)) already in the store, "
                + "in \(Format.duration(s.seconds)) (\(Format.number(Int64(s.recordsPerSecond))) records/s, "
                + "\(Format.number(s.bytesRead >> 20)) MB of XML).")
            if s.previouslyDeleted > 0 {
                lines.append("left out \(Format.number(s.previouslyDeleted)) records deleted from the store earlier "
                    + "(`stepsync delete`); `import --restore-deleted` stores them again.")
            }
            if s.restored > 0 {
                lines.append("restored \(Format.number(s.restored)) records deleted earlier; the next sync sends them again.")
            }
            if s.inserted == 0, s.duplicates > 0, s.previouslyDeleted == 0 {
                lines.append("Nothing new: every record of this export is already in the store.")
            }
            let rows = s.recordsByType.keys.sorted().map { type in
                [type.shortName, Format.number(s.recordsByType[type] ?? 0), Format.number(s.insertedByType[type] ?? 0)]
            }
            if !rows.isEmpty {
                lines.append(Format.table(header: ["type", "read", "new"], rows: rows))
            }
            lines.append("new steps: \(Format.number(s.insertedSteps)) in \(Format.number(s.insertedStepSamples)) samples")
            if s.insertedWorkouts > 0 { lines.append("new workouts: \(Format.number(s.insertedWorkouts))") }
            if s.routes > 0 || s.electrocardiograms > 0 {
                lines.append("new routes: \(Format.number(s.routes)) (\(Format.number(s.routePoints)) points), "
                    + "new ECGs: \(Format.number(s.electrocardiograms))")
            }
            if s.orphanRoutes > 0 {
                lines.append("stored \(Format.number(s.orphanRoutes)) route files no workout names (GET /routes lists them)")
            }
            if s.skippedCount > 0 {
                let reasons = s.skipped.sorted { $0.key < $1.key }.map { "\($0.key.key) \(Format.number($0.value))" }
                lines.append("skipped \(Format.number(s.skippedCount)) records that cannot be stored: " + reasons.joined(separator: ", "))
                let place = s.entry.map { "\(s.file): \($0)" } ?? s.file
                for skip in s.firstSkipped {
                    lines.append(skip.file == nil ? "  \(place) \(skip)" : "  \(s.file): \(skip)")
                }
                if s.skippedCount > s.firstSkipped.count {
                    lines.append("  … and \(Format.number(s.skippedCount - s.firstSkipped.count)) more (--strict refuses the import instead)")
                }
            }
            var other = s.otherElements.sorted { $0.key < $1.key }.map { "\($0.key) \(Format.number($0.value))" }
            if s.nestedRecords > 0 { other.append("Record inside Correlation \(Format.number(s.nestedRecords))") }
            if !other.isEmpty { lines.append("read, not stored: " + other.joined(separator: ", ")) }
            return lines.joined(separator: "\n")
        }
    }
}
