import StepSyncCore
import StepSyncStore

extension StepSyncCommand.Stats {
    /// `stats --json` (`docs/json/stats.schema.json`): `samples` (every type), `steps` (sum of step counts),
    /// `first`/`last`, and per type its kind, samples, units, span, the figures of its kind and its sources.
    struct JSONReport: Encodable {
        var samples: Int
        var steps: Int64
        var types: [String: Figures]
        /// The first and the last start over every type, when there are samples.
        var first, last: String?

        init(_ statistics: [SampleStatistics]) {
            let types = StepSyncCommand.Stats.byType(statistics)
            samples = statistics.reduce(0) { $0 + $1.samples }
            steps = Int64((types.first { $0.type == .stepCount }?.total.sum ?? 0).rounded())
            self.types = Dictionary(uniqueKeysWithValues: types.map { totals in
                var entry = Figures(totals.total, values: totals.oneUnit)
                entry.units = totals.units
                entry.sources = totals.sources.map { source in
                    var item = Figures(source, values: true)
                    item.source = source.source
                    item.unit = source.unit
                    return item
                }
                return (totals.type.rawValue, entry)
            })
            if let first = statistics.map(\.firstStartMs).min(), let last = statistics.map(\.lastStartMs).max() {
                (self.first, self.last) = (ISO8601Millis.format(first), ISO8601Millis.format(last))
            }
        }
    }

    /// The figures of one type or one source: always `kind`, `samples`, `first`, `last`; then `sum` (cumulative),
    /// `min`, `average`, `max` (discrete), `durationSeconds` (category, workout) or `points` and `durationSeconds`
    /// (series). `values: false` leaves out the value figures (a type recorded in several units). A type adds
    /// `units` and `sources`, a source its `source` and `unit`.
    struct Figures: Encodable {
        var kind, first, last: String
        var samples: Int
        var sum, min, average, max, durationSeconds: Double?
        var points: Int?
        var units: [String]?
        var sources: [Figures]?
        var source, unit: String?

        init(_ s: SampleStatistics, values: Bool) {
            kind = s.kind.rawValue
            samples = s.samples
            first = ISO8601Millis.format(s.firstStartMs)
            last = ISO8601Millis.format(s.lastStartMs)
            switch s.kind {
            case .cumulative:
                if values { sum = s.sum }
            case .discrete:
                if values { (min, average, max) = (s.minimum, s.average, s.maximum) }
            case .category, .workout:
                durationSeconds = Double(s.durationMs) / 1000
            case .series:
                points = Int(s.sum)
                durationSeconds = Double(s.durationMs) / 1000
            }
        }
    }
}
