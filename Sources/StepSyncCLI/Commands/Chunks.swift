import ArgumentParser
import Foundation
import StepSyncCore
import StepSyncStore

extension StepSyncCommand {
    /// `stepsync chunks`: the interval ledger, in the order a sync sends it.
    struct Chunks: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the sync intervals of every type: type, range, samples, sum, status.",
            discussion: """
                Intervals are listed with the history oldest first across types, then deltas (samples added inside \
                layered ranges), then deletions. The kind column says which: \
                backfill, delta or deletions (the samples column then counts the deleted samples). Times in the \
                table are local (--tz, STEPSYNC_TZ, else the system's zone); --json gives ISO-8601 UTC.
                Examples:
                  stepsync chunks --status failed
                  stepsync chunks --tz America/New_York
                  stepsync chunks --type HeartRate --json
                """)

        @OptionGroup var data: DataDirectoryOptions

        @Option(help: ArgumentHelp("Only intervals with this status: pending, inFlight, synced or failed (any case).",
                                   valueName: "status"),
                transform: { text in
                    guard let status = IntervalStatus.named(text) else {
                        throw ValidationError("--status must be pending, inFlight, synced or failed (got '\(text.prefix(64))').")
                    }
                    return status
                })
        var status: IntervalStatus?

        @Option(name: .customLong("type"),
                help: ArgumentHelp("Only intervals of this type (e.g. StepCount, HeartRate); repeatable.", valueName: "type"))
        var types: [String] = []

        @Flag(help: "Print a JSON array instead of a table (times in ISO-8601 UTC).")
        var json = false

        @OptionGroup var zone: TimeZoneOptions
        @OptionGroup var chart: ChunkChartOptions

        func run() async throws {
            let store = try data.openExistingStore()
            let known = try store.sampleTypes()
            let selected = try SampleTypeArgument.resolve(types, among: known)
            SampleTypeArgument.noteMissing(selected, among: known)
            let intervals = try store.intervals(types: selected, status: status.map { [$0] })
            if try chart.writeIfRequested(intervals, zone: try zone.displayTimeZone()) { return }
            if json {
                try JSONOutput.print(intervals.map(IntervalReport.init))
                return
            }
            if intervals.isEmpty {
                print(status == nil && selected == nil ? "The ledger is empty: run `stepsync layer` first."
                      : "No \(status?.rawValue ?? "such") intervals.")
                return
            }
            let zone = try zone.displayTimeZone()
            func local(_ ms: Int64) -> String { zone.dateTime(ms) }
            let rows = intervals.map { interval in
                ["\(interval.id)", interval.type.shortName, Self.kindName(interval), local(interval.range.start),
                 local(interval.range.end), Format.number(interval.samples),
                 interval.kind == .samples && interval.type.kind == .cumulative ? Format.number(interval.steps) : "",
                 interval.status.rawValue, interval.oversize ? "oversize" : ""]
            }
            print(Format.table(header: ["id", "type", "kind", "from (\(zone.name))", "to", "samples",
                                        "sum", "status", ""],
                               rows: rows))
        }

        /// `backfill`, `delta` or `deletions`.
        static func kindName(_ interval: SyncInterval) -> String {
            interval.kind == .deletions ? "deletions" : interval.seqAfter > 0 ? "delta" : "backfill"
        }
    }
}
