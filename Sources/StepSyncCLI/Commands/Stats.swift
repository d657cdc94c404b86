import ArgumentParser
import Foundation
import StepSyncCore
import StepSyncStore

extension StepSyncCommand {
    /// `stepsync stats`: what the store holds, per type and source, with the figures that mean something per kind.
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what the sample store holds per type and source: sums, ranges or durations by kind of type.",
            discussion: """
                Cumulative types (steps, distance, energy, flights) show their sum; discrete types (heart rate, HRV, \
                weight, SpO2) count, minimum, average and maximum; category types (sleep, mindful) and workouts \
                count and total duration. Values of one type in different units are never added together. Dates in \
                the tables are local (--tz, STEPSYNC_TZ, else the system's zone); --json gives ISO-8601 UTC.
                Examples:
                  stepsync stats
                  stepsync stats --tz Asia/Tokyo
                  stepsync stats --json
                  stepsync stats --daily --from 2025-05-01 --to 2025-05-31 --json
                """)

        @OptionGroup var data: DataDirectoryOptions

        @Flag(help: "Print one JSON object instead of tables (instants in ISO-8601 UTC, durations in seconds).")
        var json = false

        @OptionGroup var daily: DailyStatsOptions

        func run() async throws {
            let store = try data.openExistingStore()
            if daily.daily { return try daily.run(store: store, json: json) }
            let statistics = try store.sampleStatistics()
            if json {
                try JSONOutput.print(JSONReport(statistics))
            } else {
                print(Self.tables(statistics, path: store.path, zone: try DisplayTimeZone.resolve(option: daily.tz)))
            }
        }

        // MARK: - Per kind

        /// The rows of each type, merged per type, with the units they use.
        struct TypeTotals {
            var type: SampleType
            var total: SampleStatistics
            var units: [String]
            var sources: [SampleStatistics]
            /// Value figures (sum, min, average, max) of the whole type mean something only in one unit.
            var oneUnit: Bool { units.count == 1 }
        }

        static func byType(_ statistics: [SampleStatistics]) -> [TypeTotals] {
            var result: [TypeTotals] = []
            for row in statistics {
                if let last = result.indices.last, result[last].type == row.type {
                    result[last].total.merge(row)
                    if !result[last].units.contains(row.unit) { result[last].units.append(row.unit) }
                    result[last].sources.append(row)
                } else {
                    result.append(TypeTotals(type: row.type, total: row, units: [row.unit], sources: [row]))
                }
            }
            return result
        }

        /// One table per kind, each with the columns that mean something for it; first and last are local days of
        /// `zone`, named in the header.
        static func tables(_ statistics: [SampleStatistics], path: String, zone: DisplayTimeZone) -> String {
            guard !statistics.isEmpty else {
                return "The store \(path) holds no samples. Fill it with `stepsync generate` or `stepsync import`."
            }
            let total = statistics.reduce(0) { $0 + $1.samples }
            let steps = statistics.filter { $0.type == .stepCount }.reduce(0.0) { $0 + $1.sum }
            var out = ["\(path)", "\(Format.number(total)) samples; steps: \(Format.number(steps.rounded()))"]
            func day(_ ms: Int64) -> String { zone.date(ms) }
            let first = "first (\(zone.name))"
            for kind in SampleKind.allCases {
                let rows = statistics.filter { $0.kind == kind }
                guard !rows.isEmpty else { continue }
                let span: (SampleStatistics) -> [String] = { [day($0.firstStartMs), day($0.lastStartMs)] }
                let lead: (SampleStatistics) -> [String] = { [$0.type.shortName, $0.source, Format.number($0.samples)] }
                out.append("")
                switch kind {
                case .cumulative:
                    out.append("cumulative (sums)")
                    out.append(Format.table(header: ["type", "source", "samples", "sum", "unit", first, "last"],
                                            rows: rows.map { lead($0) + [Format.number($0.sum * ($0.unit == "%" ? 100 : 1)), $0.unit] + span($0) }))
                case .discrete:
                    out.append("discrete (readings)")
                    out.append(Format.table(
                        header: ["type", "source", "samples", "min", "average", "max", "unit", first, "last"],
                        rows: rows.map { row in
                            // HealthKit stores a percentage as a fraction (0.97 with unit "%"): shown as 97 %.
                            let scale = row.unit == "%" ? 100.0 : 1
                            return lead(row) + [decimal(row.minimum * scale), decimal(row.average * scale),
                                                decimal(row.maximum * scale), row.unit] + span(row)
                        }))
                case .category, .workout:
                    out.append(kind == .category ? "category (spans)" : "workouts")
                    out.append(Format.table(header: ["type", "source", "samples", "duration (h)", first, "last"],
                                            rows: rows.map { lead($0) + [decimal(Double($0.durationMs) / 3_600_000)] + span($0) }))
                case .series:
                    out.append("series (route and ECG parts)")
                    out.append(Format.table(header: ["type", "source", "parts", "points", "duration (h)", first, "last"],
                                            rows: rows.map { lead($0) + [Format.number($0.sum), decimal(Double($0.durationMs) / 3_600_000)] + span($0) }))
                }
            }
            return out.joined(separator: "\n")
        }

        /// A value for people: up to two decimals, trailing zeros dropped.
        static func decimal(_ value: Double) -> String {
            var text = String(format: "%.2f", value)
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return text
        }
    }
}
