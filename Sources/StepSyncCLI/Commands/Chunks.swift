import ArgumentParser
import Foundation
import StepSyncCore
import StepSyncStore

extension StepSyncCommand {
    /// `stepsync chunks`: the interval ledger, oldest first.
    struct Chunks: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the sync intervals, oldest first: range, steps, samples, status.")

        @OptionGroup var data: DataDirectoryOptions

        @Option(help: ArgumentHelp("Only intervals with this status: pending, inFlight, synced or failed.",
                                   valueName: "status"),
                transform: { text in
                    guard let status = IntervalStatus(rawValue: text) else {
                        throw ValidationError("--status must be pending, inFlight, synced or failed (got '\(text)').")
                    }
                    return status
                })
        var status: IntervalStatus?

        @Flag(help: "Print a JSON array instead of a table (times in ISO-8601 UTC).")
        var json = false

        @OptionGroup var chart: ChunkChartOptions

        func run() async throws {
            let store = try data.openStore()
            let intervals = try store.intervals(of: .stepCount, status: status.map { [$0] })
            if try chart.writeIfRequested(intervals) { return }
            if json {
                try JSONOutput.print(intervals.map { interval -> [String: Any] in
                    [
                        "id": interval.id, "start": ISO8601Millis.format(interval.range.start),
                        "end": ISO8601Millis.format(interval.range.end), "steps": interval.steps,
                        "samples": interval.samples, "status": interval.status.rawValue,
                        "oversize": interval.oversize, "attempts": interval.attempts,
                        "lastError": interval.lastError.map { $0 as Any } ?? NSNull(),
                    ]
                })
                return
            }
            if intervals.isEmpty {
                print(status == nil ? "The ledger is empty: run `stepsync layer` first." : "No \(status!.rawValue) intervals.")
                return
            }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = .current
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
            func local(_ ms: Int64) -> String { formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000)) }
            let rows = intervals.map { interval in
                ["\(interval.id)", local(interval.range.start), local(interval.range.end), Format.number(interval.steps),
                 Format.number(interval.samples), interval.status.rawValue, interval.oversize ? "oversize" : ""]
            }
            print(Format.table(header: ["id", "from (\(TimeZone.current.identifier))", "to", "steps", "samples", "status", ""],
                               rows: rows))
        }
    }
}
