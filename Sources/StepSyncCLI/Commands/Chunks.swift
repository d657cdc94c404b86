import ArgumentParser
import Foundation
import StepSyncCore
import StepSyncStore

extension StepSyncCommand {
    /// `stepsync chunks`: the interval ledger, oldest first.
    struct Chunks: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the sync intervals, oldest first: range, steps, samples, status.",
            discussion: """
                Times in the table are local (--tz, STEPSYNC_TZ, else the system's zone); --json gives ISO-8601 UTC.
                Examples:
                  stepsync chunks --status failed
                  stepsync chunks --tz America/New_York
                  stepsync chunks --json
                """)

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

        @OptionGroup var zone: TimeZoneOptions

        func run() async throws {
            let store = try data.openStore()
            let intervals = try store.intervals(of: .stepCount, status: status.map { [$0] })
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
            let zone = try zone.displayTimeZone()
            func local(_ ms: Int64) -> String { zone.dateTime(ms) }
            let rows = intervals.map { interval in
                ["\(interval.id)", local(interval.range.start), local(interval.range.end), Format.number(interval.steps),
                 Format.number(interval.samples), interval.status.rawValue, interval.oversize ? "oversize" : ""]
            }
            print(Format.table(header: ["id", "from (\(zone.name))", "to", "steps", "samples", "status", ""],
                               rows: rows))
        }
    }
}
