import ArgumentParser
import Foundation
import StepSyncCore
import StepSyncStore

extension StepSyncCommand {
    /// `stepsync status`: the ledger summarised by status, per type and overall.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Summarise the sync intervals by status, per type, and show the share of samples synced.",
            discussion: """
                "samples synced" counts the samples of synced intervals; the share is of what the store holds now \
                that the sink holds (synced samples less synced deletions), so a deletion not yet synced shows. \
                Also counts the samples a sync left out as invalid (rejected: not sent, the rest of their interval \
                was), per type and reason.
                Examples:
                  stepsync status
                  stepsync status --type StepCount --json
                """)

        @OptionGroup var data: DataDirectoryOptions

        @Option(name: .customLong("type"),
                help: ArgumentHelp("Only this type (e.g. StepCount, HeartRate); repeatable.", valueName: "type"))
        var types: [String] = []

        @Flag(help: "Print one JSON object instead of a summary.")
        var json = false

        func run() async throws {
            let store = try data.openExistingStore()
            let known = try store.sampleTypes()
            let selected = try SampleTypeArgument.resolve(types, among: known)
            SampleTypeArgument.noteMissing(selected, among: known)
            let ledger = try store.ledgerSummary(types: selected, countingStore: true)
            let rejected = try store.rejectedCountsByReason().filter { selected?.contains($0.key) ?? true }
            let lastTarget = try store.lastSyncTarget()
            let lastServer = lastTarget?.server
            let summary = ledger.overall
            let share = summary.syncedShare
            if json {
                try JSONOutput.print(JSONReport(
                    overall: Counts(summary, type: nil), syncedShare: share,
                    types: Dictionary(uniqueKeysWithValues: ledger.byType.map { ($0.key.rawValue, Counts($0.value, type: $0.key)) }),
                    rejected: Rejected(rejected), lastServer: lastServer, lastSink: lastTarget?.sink))
                return
            }
            var lines: [String] = []
            if summary.intervals > 0 {
                var rows = ledger.byType.sorted { $0.key < $1.key }.map { Self.row($0.key.shortName, $0.value) }
                if ledger.byType.count > 1 { rows.append(Self.row("total", summary)) }
                lines.append(Format.table(header: ["type", "intervals", "pending", "inFlight", "synced", "failed",
                                                   "samples synced", "deletions synced"], rows: rows))
                let percent = String(format: "%.1f", share * 100)
                var line = "synced: the sink holds \(Format.number(min(summary.sinkSamples, summary.storeSamples))) of the store's "
                    + "\(Format.number(summary.storeSamples)) samples (\(percent) %)"
                if summary.sinkSamples > summary.storeSamples {
                    line += " and \(Format.number(summary.sinkSamples - summary.storeSamples)) the store deleted "
                        + "(`stepsync layer` and `stepsync sync` delete them there)"
                }
                if summary.steps > 0 {
                    line += ", \(Format.number(summary.syncedSteps)) of \(Format.number(summary.steps)) steps"
                }
                lines.append(line + "; oversize intervals: \(Format.number(summary.oversize))")
            } else {
                lines.append("The ledger is empty: run `stepsync layer` first.")
            }
            lines += Self.rejectedLines(rejected)
            var sink = "no sync has run on this store yet"
            if let lastServer {
                sink = "the sink the last sync used: \(lastServer)" + (lastTarget?.sink.map { " (sink \($0))" } ?? "")
            }
            lines.append("see them: `stepsync chunks` (a table), `stepsync chunks --svg chunks.svg` (a chart); \(sink)")
            print(lines.joined(separator: "\n"))
        }

        /// The rejected samples for people: nothing when there are none, else a total and a table by type and reason.
        static func rejectedLines(_ counts: [SampleType: [String: Int]]) -> [String] {
            let total = counts.values.reduce(0) { $0 + $1.values.reduce(0, +) }
            guard total > 0 else { return [] }
            let rows = counts.sorted { $0.key < $1.key }.flatMap { type, reasons in
                reasons.sorted { $0.key < $1.key }.map { [type.shortName, $0.key, Format.number($0.value)] }
            }
            return ["", "rejected (invalid, left out of the sync): \(Format.number(total)) samples",
                    Format.table(header: ["type", "reason", "samples"], rows: rows)]
        }

        static func row(_ name: String, _ s: IntervalSummary) -> [String] {
            [name, Format.number(s.intervals), Format.number(s.pending), Format.number(s.inFlight), Format.number(s.synced),
             Format.number(s.failed), "\(Format.number(s.syncedSamples)) / \(Format.number(s.samples))",
             "\(Format.number(s.syncedDeletions)) / \(Format.number(s.deletions))"]
        }
    }
}
