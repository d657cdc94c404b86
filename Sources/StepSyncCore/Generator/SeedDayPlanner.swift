import Foundation

/// The `seed` profile: the density of the original HealthStepsSync generator.
///
/// Recorded stretches of 30–180 days alternate with gaps of 14–180 days; stretches grow and gaps shrink towards the end
/// of the range, so that recent years are recorded more. A recorded day has 10–30 iPhone samples starting between 06:00 and 23:00
/// local, each lasting 1–5 minutes; the early ones are small and the last carries the rest of a day total of
/// 3,000–14,000 steps. Ten years come to about 42,000 samples and 18 million steps.
struct SeedDayPlanner {
    private let seed: UInt64
    private let firstDay: Int
    private let dayCount: Int
    private var timeline: Xoshiro256StarStar
    private var recording: Bool
    private var remaining: Int
    private let source: DeviceSource

    /// A planner for `days`; with `startRecording` the first day is inside a recorded stretch (the same draws are
    /// made either way, so without it the history is the one of every earlier release).
    init(seed: UInt64, days: ClosedRange<CivilDate>, startRecording: Bool = false) {
        self.seed = seed
        firstDay = days.lowerBound.daysSinceEpoch
        dayCount = days.count
        timeline = Xoshiro256StarStar(seed: SplitMix64.hash(seed, Salt.timeline, firstDay))
        recording = timeline.chance(0.5) || startRecording
        remaining = 0
        source = DeviceSource.iPhone(seed: seed)
        // Start part-way through the first stretch or gap.
        remaining = nextLength(progress: 0) - timeline.int(0...29)
    }

    private enum Salt {
        static let timeline: UInt64 = 0x5EED_0001
        static let day: UInt64 = 0x5EED_0002
    }

    private mutating func nextLength(progress: Double) -> Int {
        // Recent years are recorded more: stretches grow and gaps shrink as the range goes on.
        if recording { return 30 + Int(150 * pow(timeline.unit(), 1.5 - progress)) }
        return min(180, 14 + Int(166 * timeline.unit() * (1.3 - 1.0 * progress)))
    }

    mutating func samples(of day: CivilDate) -> [HealthSample] {
        let dayNumber = day.daysSinceEpoch
        while remaining <= 0 {
            recording.toggle()
            remaining = nextLength(progress: Double(dayNumber - firstDay) / Double(max(1, dayCount)))
        }
        remaining -= 1
        guard recording else { return [] }

        var rng = Xoshiro256StarStar(seed: SplitMix64.hash(seed, Salt.day, dayNumber))
        let clock = LocalDayClock(day: day)
        let count = rng.int(10...30)
        var starts = (0..<count).map { _ in rng.int(6 * 3600...(23 * 3600 - 300)) }
        starts.sort()
        let total = rng.int(3000...14_000)
        var samples: [HealthSample] = []
        samples.reserveCapacity(count)
        var sum = 0
        for (i, wall) in starts.enumerated() {
            let steps: Int
            if i == count - 1 {
                steps = max(total - sum, rng.int(200...800))
            } else {
                steps = rng.int(5...150)
                sum += steps
            }
            let duration = rng.int(60...300)
            let (startMs, offset) = clock.utc(wallSeconds: wall, extraMs: rng.int(0...999))
            samples.append(source.sample(uuid: rng.uuid(), startMs: startMs, endMs: startMs + Int64(duration) * 1000,
                                         offset: offset, steps: steps, year: day.year))
        }
        return samples
    }
}
