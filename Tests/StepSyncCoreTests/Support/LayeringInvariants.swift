import StepSyncCore

/// Checks the layering invariants of `intervals` against the raw samples they were layered from.
///
/// Returns what is wrong, for people (empty when all hold):
/// 1. conservation — every sample lies in exactly one interval, and each interval's steps and samples are those of
///    the samples starting in it (so the sums add up to the total);
/// 2. contiguity — no gap, no overlap, every interval non-empty; the first starts at or before the first sample and
///    the last ends after the last;
/// 3. limits — at most `maxSteps` steps and `maxSamples` samples, unless `oversize`;
/// 4. `oversize` exactly when over a limit, and then the content is indivisible: all its samples start in the same
///    millisecond (a single sample is the common case).
enum LayeringInvariants {
    static func check(_ intervals: [SyncInterval], samples source: InMemoryStatisticsSource,
                      maxSteps: Double, maxSamples: Int, from: Int64? = nil) -> [String] {
        var problems: [String] = []
        let starts = source.starts
        let firstIndex = from.map(source.lowerBound) ?? 0
        guard let first = intervals.first, let last = intervals.last else {
            if firstIndex < starts.count { problems.append("no intervals for \(starts.count - firstIndex) samples") }
            return problems
        }
        if let from, first.range.start != from { problems.append("first interval starts at \(first.range.start), not at from \(from)") }
        if firstIndex < starts.count {
            if first.range.start > starts[firstIndex] { problems.append("first interval starts after the first sample") }
            if last.range.end <= starts[starts.count - 1] { problems.append("last interval ends before the last sample") }
        }
        for (a, b) in zip(intervals, intervals.dropFirst()) where a.range.end != b.range.start {
            problems.append("gap or overlap between \(a.range) and \(b.range)")
        }
        var covered = 0
        for interval in intervals {
            if interval.range.isEmpty { problems.append("empty interval \(interval.range)") }
            let lo = source.lowerBound(interval.range.start), hi = source.lowerBound(interval.range.end)
            let steps = source.values[lo..<hi].reduce(0, +)
            covered += hi - lo
            if steps != interval.steps || hi - lo != interval.samples {
                problems.append("\(interval.range) says \(interval.steps) steps/\(interval.samples) samples, holds \(steps)/\(hi - lo)")
            }
            let over = steps > maxSteps || hi - lo > maxSamples
            if over != interval.oversize { problems.append("\(interval.range) oversize flag \(interval.oversize), over a limit: \(over)") }
            if over, hi > lo, starts[lo] != starts[hi - 1] {
                problems.append("\(interval.range) is over a limit but divisible (samples from \(starts[lo]) to \(starts[hi - 1]))")
            }
        }
        if covered != starts.count - firstIndex { problems.append("intervals hold \(covered) samples of \(starts.count - firstIndex)") }
        return problems
    }

    /// The fewest intervals any valid partition can have: the greedy packing of the millisecond groups.
    static func optimalCount(_ source: InMemoryStatisticsSource, maxSteps: Double, maxSamples: Int) -> Int {
        var count = 0, steps = 0.0, samples = 0, open = false
        var i = 0
        let starts = source.starts
        while i < starts.count {
            var j = i, sum = 0.0
            while j < starts.count, starts[j] == starts[i] { sum += source.values[j]; j += 1 }
            if open, steps + sum <= maxSteps, samples + (j - i) <= maxSamples {
                steps += sum; samples += j - i
            } else {
                count += 1; open = true; steps = sum; samples = j - i
            }
            i = j
        }
        return count
    }
}
