/// Daily step totals that count a walk once when an iPhone and an Apple Watch both recorded it: the rule HealthKit's
/// statistics use to merge sources, computed in one sweep over the samples in start order.
///
/// The rule:
/// - a sample's count is spread evenly over `[start, end)`; a zero-length sample counts whole at its instant;
/// - a sample counts only for the part of its duration that no sample of a higher-priority device covers (ranks by
///   ``DevicePriority``); samples of the same rank never hide each other;
/// - a zero-length sample covers nothing, so it hides nothing; it is itself hidden (counts 0) when a higher-ranked
///   sample's `[start, end)` holds its instant (a sample ending at that instant does not);
/// - days are the local calendar days of ``LocalDays`` (23 or 25 hours at daylight-saving changes).
///
/// Rounding: each sample's share of each day is `value × uncoveredMs ÷ durationMs`, rounded to the nearest millionth
/// of a step (see ``microSteps(value:uncoveredMs:durationMs:)``); a day's shares add up exactly as integers, and the
/// day's total is rounded to the nearest whole step, halves up (``DailyStepsResult/Day``). So the answer does not
/// depend on the order of floating-point additions, and the sink and the store, which both call this type, agree.
///
/// The sweep (see `Planning/daily-totals.md`): feed samples in start order with ``add(_:)``, then ``finish()``. Between
/// two consecutive sample starts or ends the set of samples under the sweep line is constant; for that stretch, the
/// highest rank present is "on top", and a per-rank counter of the milliseconds (inside the requested days) during
/// which that rank was on top advances. A sample of rank r is credited, for each day it touches, the difference of
/// r's counter between its start (or the day's start) and its end (or the day's end): the time no higher-ranked
/// sample covered it. Counters are whole milliseconds, so the uncovered time is exact. Cost: O(n log k) for n samples
/// with at most k under the sweep line at once, plus O(n · ranks) and O(days · ranks); memory O(k + days · ranks),
/// independent of the length of the history.
public struct DailyStepTotals: Sendable {
    /// A step sample as the totals need it.
    public struct Sample: Hashable, Sendable {
        /// Start, UTC ms.
        public var startMs: Int64
        /// End, UTC ms (≥ `startMs`).
        public var endMs: Int64
        /// The step count (finite, 0…1,000,000).
        public var value: Double
        /// The device that recorded it (`sourceDeviceName`), when known.
        public var deviceName: String?

        /// Creates a sample.
        public init(startMs: Int64, endMs: Int64, value: Double, deviceName: String?) {
            self.startMs = startMs
            self.endMs = endMs
            self.value = value
            self.deviceName = deviceName
        }
    }

    /// The request's time zone name, echoed in the result.
    private let timeZoneName: String
    /// The days and their UTC boundaries.
    public let days: LocalDays
    /// The device ranking.
    public let priority: DevicePriority
    private let rankCount: Int
    /// `days.boundaries`, held here for the hot loop.
    private let boundaries: [Int64]
    private let spanStart: Int64
    private let spanEnd: Int64

    /// Device name → rank, for names seen so far (a few per history; capped in case of many).
    private var rankCache: [String: Int] = [:]
    /// The samples of positive length under the sweep line, by end.
    private var active = ActiveSampleHeap()
    /// Per rank, how many samples of that rank are under the sweep line.
    private var activeCount: [Int]
    /// Per rank, the milliseconds inside the span, up to `now`, during which that rank was the highest present.
    private var topTime: [Int64]
    /// `topTime` at each day boundary, as the sweep passed it: row `k` (`rankCount` entries) at `boundaries[k]`.
    private var topTimeAtBoundary: [Int64]
    /// The next boundary the sweep has not passed yet.
    private var nextBoundary = 0
    /// The sweep line; `nil` before the first sample inside the span.
    private var now: Int64?
    /// The start of the last sample added, to check the order.
    private var lastStart = Int64.min
    /// Zero-length samples at `now`, decided once every sample starting at `now` is known: (rank, value).
    private var pendingInstants: [(rank: Int, value: Double)] = []
    /// Per day, the sum of shares in millionths of a step.
    private var micro: [Int64]
    /// A day whose sum overflowed, if any.
    private var overflowDay: Int?
    /// Per listed name of the priority, whether a sample in the span came from that device.
    private var matched: [Bool]

    /// Totals for `request`'s days (its boundaries are computed here, once).
    public init(request: DailyStepsRequest) {
        self.init(days: request.days, priority: request.priority, timeZoneName: request.timeZoneName)
    }

    /// Totals for `days` under `priority`; `timeZoneName` is echoed in the result.
    public init(days: LocalDays, priority: DevicePriority, timeZoneName: String) {
        self.days = days
        self.priority = priority
        self.timeZoneName = timeZoneName
        rankCount = priority.lowestRank + 1
        boundaries = days.boundaries
        spanStart = days.span.start
        spanEnd = days.span.end
        activeCount = Array(repeating: 0, count: rankCount)
        topTime = Array(repeating: 0, count: rankCount)
        topTimeAtBoundary = Array(repeating: 0, count: days.boundaries.count * rankCount)
        micro = Array(repeating: 0, count: days.count)
        matched = Array(repeating: false, count: priority.lowestRank)
    }

    /// The UTC span `[start of the first day, end of the last)`: the samples to feed are those that overlap it (or, of
    /// zero length, lie in it). Others may be fed too; they change nothing.
    public var span: TimeRange { days.span }

    /// Computes the totals of `samples` (in start order) for `request`, in one pass.
    ///
    /// - Throws: ``DailyStepsError`` when a sample is invalid or out of start order.
    public static func compute(_ samples: some Sequence<Sample>, request: DailyStepsRequest) throws -> DailyStepsResult {
        var totals = DailyStepTotals(request: request)
        for sample in samples { try totals.add(sample) }
        return try totals.finish()
    }

    /// Computes the totals of `samples` in any order (a sink's log holds them in arrival order): sorts them by start,
    /// then sweeps. Memory O(samples), unlike ``compute(_:request:)``; pass only those overlapping ``span``.
    ///
    /// - Throws: ``DailyStepsError`` when a sample is invalid.
    public static func compute(unordered samples: [Sample], request: DailyStepsRequest) throws -> DailyStepsResult {
        try compute(samples.sorted { $0.startMs < $1.startMs }, request: request)
    }

    /// The share, in millionths of a step, of a sample of `value` steps over `durationMs` of which `uncoveredMs`
    /// count on one day: `(value × uncoveredMs ÷ durationMs × 10⁶)` rounded to nearest, ties away from zero, in that
    /// order of operations. A zero-length sample that counts is `uncoveredMs = durationMs = 1`.
    @inline(__always)
    public static func microSteps(value: Double, uncoveredMs: Int64, durationMs: Int64) -> Int64 {
        Int64((value * Double(uncoveredMs) / Double(durationMs) * 1_000_000).rounded())
    }

    // MARK: - Feeding samples

    /// Adds the next sample. Samples must come in start order (ties in any order).
    ///
    /// - Throws: ``DailyStepsError`` for a sample ``SampleValidation`` refuses or one that starts before the previous.
    public mutating func add(_ sample: Sample) throws {
        let start = sample.startMs, end = sample.endMs
        if let problem = SampleValidation.instantsProblem(startMs: start, endMs: end)
            ?? SampleValidation.valueProblem(sample.value, type: .stepCount, kind: .cumulative)
        {
            throw DailyStepsError.invalidSample(problem)
        }
        guard start >= lastStart else { throw DailyStepsError.samplesOutOfOrder(startMs: start, previousStartMs: lastStart) }
        lastStart = start
        // Outside the span a sample neither counts nor covers anything that counts.
        if start >= spanEnd || end < spanStart || (end == spanStart && start < end) { return }
        let rank = rank(of: sample.deviceName)
        if rank < matched.count { matched[rank] = true }
        if now == nil {
            now = min(start, spanStart)
            step(to: now!)  // records the boundaries at `now`, if any
        }
        if start > now! { advance(to: start) }
        if start == end {
            pendingInstants.append((rank, sample.value))
        } else {
            // The sweep has recorded every boundary ≤ start: the last of them starts the sample's first day.
            active.push(ActiveSample(endMs: end, startMs: start, value: sample.value, rank: rank,
                                     topTimeAtStart: topTime[rank], firstDay: max(0, nextBoundary - 1)))
            activeCount[rank] += 1
        }
    }

    /// The totals of every day, once all samples are in.
    ///
    /// - Throws: ``DailyStepsError`` when a day's total is too large to add up exactly (over 9.2 × 10¹² steps).
    public consuming func finish() throws -> DailyStepsResult {
        if let now {
            advance(to: max(now, spanEnd))
            while let sample = active.pop() { credit(sample) }
        }
        if let overflowDay { throw DailyStepsError.totalTooLarge(days.date(at: overflowDay)) }
        let result = micro.enumerated().map { DailyStepsResult.Day(date: days.date(at: $0.offset), microSteps: $0.element) }
        let unmatched = priority.names.indices.filter { !matched[$0] }.map { priority.names[$0] }
        return DailyStepsResult(timeZoneName: timeZoneName, days: result, unmatched: unmatched)
    }

    // MARK: - The sweep

    private mutating func rank(of deviceName: String?) -> Int {
        guard let deviceName else { return priority.lowestRank }
        if let rank = rankCache[deviceName] { return rank }
        let rank = priority.rank(ofDevice: deviceName)
        if rankCache.count < 1_024 { rankCache[deviceName] = rank }
        return rank
    }

    /// Moves the sweep line from `now` to `target`: decides the zero-length samples at `now`, then ends (and credits)
    /// every sample ending at or before `target`.
    private mutating func advance(to target: Int64) {
        if !pendingInstants.isEmpty { decidePendingInstants() }
        while let end = active.minEndMs, end <= target {
            step(to: end)
            while active.minEndMs == end, let sample = active.pop() {
                activeCount[sample.rank] -= 1
                credit(sample)
            }
        }
        step(to: target)
    }

    /// Counts each zero-length sample at `now` whole on its day, unless a higher-ranked sample covers `now`. Every
    /// sample under the sweep line holds `now`: those ending at or before it were removed by the last advance.
    private mutating func decidePendingInstants() {
        let highest = activeCount.firstIndex(where: { $0 > 0 }) ?? rankCount
        // They lie in the span, and the sweep has recorded every boundary ≤ now: the last of them starts their day.
        let day = nextBoundary - 1
        for (rank, value) in pendingInstants where rank <= highest {
            add(Self.microSteps(value: value, uncoveredMs: 1, durationMs: 1), toDay: day)
        }
        pendingInstants.removeAll(keepingCapacity: true)
    }

    /// Moves the sweep line to `target` while the samples under it stay the same, crediting the time inside the span
    /// to the highest rank present and recording the counters at each day boundary passed.
    private mutating func step(to target: Int64) {
        let top = activeCount.firstIndex(where: { $0 > 0 })
        var from = now!
        while nextBoundary < boundaries.count, boundaries[nextBoundary] <= target {
            let boundary = boundaries[nextBoundary]
            if let top { topTime[top] += clippedLength(from, boundary) }
            from = max(from, boundary)
            let row = nextBoundary * rankCount
            for rank in 0..<rankCount { topTimeAtBoundary[row + rank] = topTime[rank] }
            nextBoundary += 1
        }
        if let top { topTime[top] += clippedLength(from, target) }
        now = target
    }

    /// The length of `[a, b) ∩ span`.
    @inline(__always)
    private func clippedLength(_ a: Int64, _ b: Int64) -> Int64 {
        max(0, min(b, spanEnd) - max(a, spanStart))
    }

    /// Adds an ended sample's shares to the days it touches. Called with the sweep line at its end, or past the span
    /// (a sample that overlaps the span: others are never pushed).
    private mutating func credit(_ sample: ActiveSample) {
        let first = sample.firstDay
        // The sweep has recorded every boundary ≤ min(end, span end); the last day is the last starting before it.
        let high = min(sample.endMs, spanEnd)
        var last = nextBoundary - 1
        while last > first, boundaries[last] >= high { last -= 1 }
        let rank = sample.rank
        let duration = sample.endMs - sample.startMs
        for day in first...last {
            let dayStart = boundaries[day], dayEnd = boundaries[day + 1]
            // The rank's counter where the sample's part of this day starts and ends.
            let from = sample.startMs >= dayStart ? sample.topTimeAtStart : topTimeAtBoundary[day * rankCount + rank]
            let to = sample.endMs <= dayEnd ? topTime[rank] : topTimeAtBoundary[(day + 1) * rankCount + rank]
            let uncovered = to - from
            if uncovered > 0 {
                add(Self.microSteps(value: sample.value, uncoveredMs: uncovered, durationMs: duration), toDay: day)
            }
        }
    }

    @inline(__always)
    private mutating func add(_ share: Int64, toDay day: Int) {
        let (sum, overflow) = micro[day].addingReportingOverflow(share)
        if overflow { overflowDay = overflowDay ?? day } else { micro[day] = sum }
    }
}
