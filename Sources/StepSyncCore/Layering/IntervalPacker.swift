/// Greedy packing of buckets, oldest first, into contiguous intervals within the limits.
///
/// The packer never sees a bucket that does not fit and could be split (the ``LayeringRun`` refines those), so a
/// bucket that does not fit closes the open interval; a bucket over a limit on its own becomes an `oversize`
/// interval of its own. Cuts fall in the gap between the last bucket packed and the next one, on the coarsest
/// UTC grid line in that gap (midnight, then the hour, the minute, the second), so intervals read well.
struct IntervalPacker {
    let maxSteps: Double
    let maxSamples: Int
    let type: SampleType

    /// Where the open (or next) interval starts; `nil` until the first bucket of a fresh run.
    private var start: Int64?
    private var isOpen = false
    private var steps: Double = 0
    private var samples = 0
    /// The end of the last bucket packed into the open interval.
    private var lastEnd: Int64 = 0
    private var intervals: [SyncInterval] = []

    /// A packer whose first interval starts at `start`, or at the first bucket when `nil`.
    init(maxSteps: Double, maxSamples: Int, type: SampleType, start: Int64?) {
        self.maxSteps = maxSteps
        self.maxSamples = maxSamples
        self.type = type
        self.start = start
    }

    /// Whether the start of the first interval is known.
    var hasStart: Bool { start != nil }

    /// Whether `bucket` fits in what the open interval has left (or within the limits, when none is open).
    func fits(_ bucket: StatisticsBucket) -> Bool {
        let (steps, samples) = isOpen ? (steps, samples) : (0, 0)
        return steps + bucket.sum <= maxSteps && samples + bucket.count <= maxSamples
    }

    /// Packs `bucket` (ending at `end`) into the open interval, or closes it and opens a new one.
    mutating func add(_ bucket: StatisticsBucket, end: Int64) {
        if isOpen && fits(bucket) {
            steps += bucket.sum
            samples += bucket.count
        } else {
            if isOpen { close(at: Self.cut(after: lastEnd, before: bucket.start)) }
            if start == nil { start = bucket.start }
            isOpen = true
            steps = bucket.sum
            samples = bucket.count
        }
        lastEnd = end
    }

    /// Closes the open interval after its last bucket and returns every interval.
    mutating func finish() -> [SyncInterval] {
        if isOpen { close(at: lastEnd) }
        return intervals
    }

    private mutating func close(at end: Int64) {
        let start = self.start!
        intervals.append(SyncInterval(type: type, range: TimeRange(start: start, end: end), steps: steps,
                                      samples: samples, oversize: steps > maxSteps || samples > maxSamples))
        self.start = end
        isOpen = false
    }

    /// The coarsest grid line (day, hour, minute, second, millisecond) in `[low, high]`.
    static func cut(after low: Int64, before high: Int64) -> Int64 {
        for length in [Milliseconds.day, Milliseconds.hour, Milliseconds.minute, Milliseconds.second] {
            let line = -LayeringEngine.floorMultiple(-low, of: length)
            if line <= high { return line }
        }
        return low
    }
}
