import ArgumentParser
import Foundation
import StepSyncCore
import StepSyncStore

extension StepSyncCommand {
    /// `stepsync status`: the ledger summarised by status, and the share of steps synced.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Summarise the sync intervals by status and show the share of steps synced.")

        @OptionGroup var data: DataDirectoryOptions

        @Flag(help: "Print one JSON object instead of a summary.")
        var json = false

        func run() async throws {
            let store = try data.openStore()
            let summary = try store.intervalSummary(of: .stepCount)
            let share = summary.steps > 0 ? summary.syncedSteps / summary.steps : 0
            if json {
                try JSONOutput.print([
                    "intervals": summary.intervals, "pending": summary.pending, "inFlight": summary.inFlight,
                    "synced": summary.synced, "failed": summary.failed, "oversize": summary.oversize,
                    "steps": summary.steps, "syncedSteps": summary.syncedSteps, "samples": summary.samples,
                    "syncedSamples": summary.syncedSamples, "syncedShare": share,
                ] as [String: Any])
                return
            }
            guard summary.intervals > 0 else {
                print("The ledger is empty: run `stepsync layer` first.")
                return
            }
            print(Format.table(header: ["status", "intervals"], rows: [
                ["pending", Format.number(summary.pending)], ["inFlight", Format.number(summary.inFlight)],
                ["synced", Format.number(summary.synced)], ["failed", Format.number(summary.failed)],
                ["total", Format.number(summary.intervals)],
            ]))
            let percent = String(format: "%.1f", share * 100)
            print("synced: \(Format.number(summary.syncedSteps)) of \(Format.number(summary.steps)) steps (\(percent) %), "
                  + "\(Format.number(summary.syncedSamples)) of \(Format.number(summary.samples)) samples; "
                  + "oversize intervals: \(Format.number(summary.oversize))")
            print("see them: `stepsync chunks` (a table), `stepsync chunks --svg chunks.svg` (a chart); "
                  + "the sink's dashboard: http://127.0.0.1:8000/ while `stepsync serve` runs")
        }
    }
}
