import Foundation
import StepSyncCore

/// A brute-force REFERENCE of the daily step totals rule, written to be obviously right rather than fast, and
/// deliberately sharing no code with ``DailyStepTotals`` (not its day boundaries, ranking or sweep).
///
/// Time is cut into grains of `grainMs` (every sample instant and every local midnight must fall on a grain line;
/// offsets of 30 and 45 minutes do with grains of 15 minutes or less). For each grain, the local date of its first
/// instant (from `TimeZone.secondsFromGMT`) says which day it belongs to, the samples covering it are listed, and each
/// sample of the highest rank among them gets one grain of uncovered time on that day. A zero-length sample counts
/// whole on the day of its instant unless a higher-ranked sample of positive length covers that instant. Then each
/// sample's share of a day is `value × uncovered ÷ duration`, in millionths of a step, as the rule states it.
public enum DailyReference {
    /// A sample of the reference: the same fields as ``DailyStepTotals/Sample``.
    public typealias Sample = DailyStepTotals.Sample

    /// The sum of shares per day of `from…to`, in millionths of a step.
    public static func microSteps(
        _ samples: [Sample], from: CivilDate, to: CivilDate, timeZone: TimeZone, priority: [String], grainMs: Int64
    ) -> [Int64] {
        let dayCount = from.distance(to: to) + 1
        var micro = [Int64](repeating: 0, count: dayCount)
        func rank(_ device: String?) -> Int {
            guard let device else { return priority.count }
            return priority.firstIndex { $0.lowercased() == device.lowercased() } ?? priority.count
        }
        /// The index of the local date of `ms` in `from…to`, or nil.
        func dayIndex(_ ms: Int64) -> Int? {
            let seconds = Int64((Double(ms) / 1000).rounded(.down))
            let local = seconds + Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))))
            let day = Int((Double(local) / 86_400).rounded(.down))
            let index = day - from.daysSinceEpoch
            return (0..<dayCount).contains(index) ? index : nil
        }
        let ranks = samples.map { rank($0.deviceName) }
        let long = samples.indices.filter { samples[$0].endMs > samples[$0].startMs }
        // Uncovered time per (sample, day).
        var uncovered = [[Int64]](repeating: [Int64](repeating: 0, count: dayCount), count: samples.count)
        if let first = long.map({ samples[$0].startMs }).min(), let last = long.map({ samples[$0].endMs }).max() {
            precondition(first % grainMs == 0 && last % grainMs == 0, "sample instants must be on grain lines")
            var t = first
            while t < last {
                if let day = dayIndex(t) {
                    let covering = long.filter { samples[$0].startMs <= t && t < samples[$0].endMs }
                    if let best = covering.map({ ranks[$0] }).min() {
                        for i in covering where ranks[i] == best { uncovered[i][day] += grainMs }
                    }
                }
                t += grainMs
            }
        }
        for (i, sample) in samples.enumerated() {
            if sample.endMs == sample.startMs {
                let hidden = long.contains { ranks[$0] < ranks[i] && samples[$0].startMs <= sample.startMs
                    && sample.startMs < samples[$0].endMs }
                if !hidden, let day = dayIndex(sample.startMs) {
                    micro[day] += Int64((sample.value * 1_000_000).rounded())
                }
            } else {
                let duration = Double(sample.endMs - sample.startMs)
                for day in 0..<dayCount where uncovered[i][day] > 0 {
                    micro[day] += Int64((sample.value * Double(uncovered[i][day]) / duration * 1_000_000).rounded())
                }
            }
        }
        return micro
    }

    /// The whole steps of a day from its millionths: to the nearest step, halves up.
    public static func steps(_ micro: Int64) -> Int64 { (micro + 500_000) / 1_000_000 }
}
