import ArgumentParser
import Foundation
import StepSyncCore
import StepSyncStore

extension StepSyncCommand {
    /// `stepsync stats`: what the store holds, per type and source.
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what the sample store holds: samples and sums per type and source, first and last date.",
            discussion: """
                Dates in the table are local (--tz, STEPSYNC_TZ, else the system's zone); --json gives ISO-8601 UTC.
                Examples:
                  stepsync stats
                  stepsync stats --tz Asia/Tokyo
                  stepsync stats --json
                """)

        @OptionGroup var data: DataDirectoryOptions

        @Flag(help: "Print one JSON object instead of a table.")
        var json = false

        @OptionGroup var daily: DailyStatsOptions

        func run() async throws {
            let store = try data.openStore()
            if daily.daily { return try daily.run(store: store, json: json) }
            let summaries = try store.sourceSummaries()
            let steps = summaries.filter { $0.type == SampleType.stepCount.rawValue }
            let stepSamples = steps.reduce(0) { $0 + $1.samples }
            let stepSum = steps.reduce(0.0) { $0 + $1.sum }
            if json {
                var types: [String: Any] = [:]
                for s in summaries {
                    var entry = types[s.type] as? [String: Any] ?? ["samples": 0, "sum": 0.0, "sources": [[String: Any]]()]
                    entry["samples"] = (entry["samples"] as! Int) + s.samples
                    entry["sum"] = (entry["sum"] as! Double) + s.sum
                    var sources = entry["sources"] as! [[String: Any]]
                    sources.append(["source": s.source, "samples": s.samples, "sum": s.sum,
                                    "first": ISO8601Millis.format(s.firstStartMs), "last": ISO8601Millis.format(s.lastStartMs)])
                    entry["sources"] = sources
                    types[s.type] = entry
                }
                var object: [String: Any] = ["samples": stepSamples, "steps": Int64(stepSum.rounded()), "types": types]
                if let first = steps.map(\.firstStartMs).min(), let last = steps.map(\.lastStartMs).max() {
                    object["first"] = ISO8601Millis.format(first)
                    object["last"] = ISO8601Millis.format(last)
                }
                try JSONOutput.print(object)
                return
            }
            if summaries.isEmpty {
                print("The store \(store.path) holds no samples. Fill it with `stepsync generate` or `stepsync import`.")
                return
            }
            let zone = try DisplayTimeZone.resolve(option: daily.tz)
            print("\(store.path)")
            print("step samples: \(stepSamples), steps: \(Int64(stepSum.rounded()))")
            let rows = summaries.map { s in
                [SampleType(s.type).shortName, s.source, "\(s.samples)", Format.number(s.sum),
                 zone.date(s.firstStartMs), zone.date(s.lastStartMs)]
            }
            print(Format.table(header: ["type", "source", "samples", "sum", "first (\(zone.name))", "last"], rows: rows))
        }
    }
}
