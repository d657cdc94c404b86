import ArgumentParser
import Dispatch
import Foundation
import StepSyncCore
import StepSyncStore
import Synchronization

extension StepSyncCommand {
    /// `stepsync export`: the samples of one type out of the store as CSV or NDJSON, streamed page by page.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the samples of one type as CSV or NDJSON, for DuckDB, pandas or a spreadsheet.",
            discussion: """
                One row per sample, in start order, with the columns uuid, type, start, end (ISO-8601 UTC with \
                milliseconds), value, unit, source, sourceBundleId, sourceVersion, device, deviceModel, \
                utcOffsetSeconds and details (the sample's JSON object) — the rows the sink's GET /export \
                answers. CSV is RFC 4180 with a header row and LF line ends; NDJSON is one object per line with \
                details as an object. The store is read a page at a time, so memory stays flat for any history.
                --from and --to take a date YYYY-MM-DD (a local day in --tz; --to includes its day) or an ISO-8601 \
                instant (--to exclusive); a sample is exported when its start is in the range.
                The file is written beside --out under a temporary name and renamed when complete: a failure or \
                Ctrl-C leaves no partial file. An existing --out is replaced only with --force. --out - writes to \
                stdout (the summary then goes to stderr).
                Examples:
                  stepsync export --type HeartRate --out heart-rate.csv
                  stepsync export --type steps --from 2025-01-01 --out steps.ndjson
                  stepsync export --type steps --tz Europe/Berlin --format csv --out -
                """)

        @OptionGroup var data: DataDirectoryOptions

        @Option(help: ArgumentHelp("The sample type: a short name (steps, HeartRate, SleepAnalysis), any case, or a HealthKit identifier.",
                                   valueName: "type"))
        var type: String

        @OptionGroup var starts: StartRangeOptions

        @Option(help: ArgumentHelp("csv or ndjson (default: from the --out extension .csv/.ndjson/.jsonl, else csv).",
                                   valueName: "format"))
        var format: ExportFormat?

        @Option(help: ArgumentHelp("The file to write, or - for stdout.", valueName: "file"))
        var out: String

        @Flag(help: "Replace --out if it exists.")
        var force = false

        @Flag(help: "Print one JSON object (type, format, samples, bytes, file, from, to, seconds) instead of a sentence.")
        var json = false

        /// Samples read from the store at a time (memory is bounded by it).
        static let pageSize = 5_000

        func validate() throws {
            if json, out == "-" {
                throw ValidationError("--json prints the summary to stdout, where --out - writes the rows: give --out a file.")
            }
            guard !out.isEmpty else { throw ValidationError("--out is empty: give a file, or - for stdout.") }
            _ = try range()
        }

        /// The format asked for, else the one `--out`'s extension names, else CSV.
        var resolvedFormat: ExportFormat {
            if let format { return format }
            let ext = URL(fileURLWithPath: out).pathExtension
            return ExportFormat(name: ext) ?? .csv
        }

        /// The start range `--from`/`--to` name: everything without them.
        func range() throws -> TimeRange {
            try starts.range() ?? ExportRange.all
        }

        func run() async throws {
            let store = try data.openExistingStore()
            let sampleType = try SampleTypeArgument.resolve(type, among: try store.sampleTypes())
            let startRange = try range()
            let format = resolvedFormat
            let total = try store.total(of: sampleType, in: startRange).count
            let elapsed = TimeSource.system.stopwatch()
            var output: ExportOutput
            do {
                output = try ExportOutput(path: out, force: force)
            } catch {
                FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
                throw ExitCode.failure
            }
            let stop = ExportStop()
            var reporter = ProgressReporter(label: "samples", enabled: !json, showAfter: 0.5, time: .system)
            var rows: Int64 = 0
            do {
                try stop.whileInstalled {
                    try output.write(ExportEncoder.header(format))
                    var buffer: [UInt8] = []
                    buffer.reserveCapacity(Self.pageSize * 320)
                    try store.forEachSamplePage(of: sampleType, in: startRange, pageSize: Self.pageSize) { page in
                        if stop.requested { throw ExportError.interrupted }
                        buffer.removeAll(keepingCapacity: true)
                        for sample in page { ExportEncoder.appendRow(sample, format: format, to: &buffer) }
                        try output.write(buffer)
                        rows += Int64(page.count)
                        let rate = reporter.elapsedSeconds > 0 ? Double(rows) / reporter.elapsedSeconds : 0
                        reporter.update(done: rows, total: Int64(total),
                                        detail: "\(Self.megabytes(output.bytesWritten)), \(Format.number(Int64(rate))) samples/s")
                    }
                }
                try output.commit()
            } catch let error as ExportError {
                output.discard()
                reporter.finish()
                FileHandle.standardError.write(Data("error: \(error.description)\(output.isStandardOutput ? "" : "; nothing was written to \(out)")\n".utf8))
                throw ExitCode(error.isInterrupted ? 130 : 1)
            } catch {
                output.discard()
                reporter.finish()
                throw error
            }
            reporter.finish()
            let seconds = elapsed().inSeconds
            if json {
                try JSONOutput.print(JSONReport(
                    type: sampleType.rawValue, format: format.rawValue, samples: rows, bytes: output.bytesWritten,
                    file: out, from: Self.instant(startRange.start, open: ExportRange.all.start),
                    to: Self.instant(startRange.end, open: ExportRange.all.end),
                    seconds: (seconds * 1000).rounded() / 1000))
                return
            }
            let line = "Exported \(Format.number(rows)) \(sampleType.shortName) sample\(rows == 1 ? "" : "s") as "
                + "\(format.rawValue.uppercased()) (\(Self.megabytes(output.bytesWritten))) to "
                + (output.isStandardOutput ? "stdout" : out) + " in \(Format.duration(seconds))."
            if output.isStandardOutput {
                FileHandle.standardError.write(Data((line + "\n").utf8))
            } else {
                print(line)
            }
        }

        /// The instant `ms` for `--json`, or null when it is the open end `open` (no --from or --to).
        static func instant(_ ms: Int64, open: Int64) -> JSONNullable<String> {
            JSONNullable(ms == open ? nil : ISO8601Millis.format(ms))
        }

        /// `export --json` (`docs/json/export.schema.json`): what was written where; `from` and `to` are `null` for
        /// an open end.
        struct JSONReport: Encodable {
            var type, format: String
            var samples, bytes: Int64
            var file: String
            var from, to: JSONNullable<String>
            var seconds: Double
        }

        /// `1.2 MB`, `340 bytes`.
        static func megabytes(_ bytes: Int64) -> String {
            bytes < 10_000 ? "\(Format.number(bytes)) bytes" : String(format: "%.1f MB", Double(bytes) / 1_000_000)
        }
    }
}

extension ExportFormat: CaseInsensitiveArgument {}

/// SIGINT and SIGTERM asking a running export to stop between two pages (so the temporary file is removed).
private final class ExportStop: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Whether a signal came.
    var requested: Bool { flag.load(ordering: .relaxed) }

    /// Runs `body` with SIGINT and SIGTERM setting ``requested``, then restores their default actions.
    func whileInstalled<R>(_ body: () throws -> R) rethrows -> R {
        try SignalHandlers.whileInstalled({ self.flag.store(true, ordering: .relaxed) }, body)
    }
}
