/// The night from the evening of one day to the morning of the next, as the Apple Watch records it when it is worn
/// to bed.
///
/// The person goes to bed 5–40 minutes after the evening's last steps and gets up 1–10 minutes before the morning's
/// first; they fall asleep 5–30 minutes after going to bed and wake for good 2–15 minutes before getting up. In
/// between, sleep runs in cycles of light (core), deep and REM sleep — deep early in the night, REM longer towards
/// the morning — with short awakenings between some cycles. All of it is laid out in UTC from instants, so a night
/// across a clock change simply lasts an hour more or less.
///
/// The Watch records a night when it was worn on both days and the person kept it on (85 % of such nights). Since
/// watchOS 9 (12 September 2022) it writes the stages (`AsleepCore` 3, `AsleepDeep` 4, `AsleepREM` 5, `Awake` 2);
/// before, it wrote blocks of `AsleepUnspecified` (1) with gaps where the person was awake. Either way one `InBed`
/// (0) sample spans the time in bed. Everything comes from a stream seeded by (seed, evening's day).
struct SleepNight {
    /// One stage: `[startMs, endMs)` with its HealthKit sleep stage.
    struct Stage: Hashable {
        var startMs: Int64
        var endMs: Int64
        var stage: SleepStage
    }

    /// The first night with stages (watchOS 9).
    static let firstNightWithStages = CivilDate(year: 2022, month: 9, day: 12)

    /// The local date of the evening.
    let evening: CivilDate
    /// Whether the Watch recorded the night.
    let tracked: Bool
    /// Into bed (UTC ms).
    let bedMs: Int64
    /// Out of bed (UTC ms).
    let outOfBedMs: Int64
    /// Asleep from (UTC ms).
    let onsetMs: Int64
    /// Awake for good from (UTC ms).
    let finalWakeMs: Int64
    /// The stages from onset to final wake, back to back (only when tracked).
    let stages: [Stage]

    init(evening: RealisticDay, morning: RealisticDay, seed: UInt64) {
        var rng = Xoshiro256StarStar(seed: SplitMix64.hash(seed, RealisticTypesRecorder.Salt.night, evening.date.daysSinceEpoch))
        self.evening = evening.date
        bedMs = evening.lastStepMs + Int64(rng.int(5 * 60...40 * 60)) * 1000 + Int64(rng.int(0...999))
        outOfBedMs = morning.firstStepMs - Int64(rng.int(60...600)) * 1000 - Int64(rng.int(0...999))
        onsetMs = bedMs + Int64(rng.int(5 * 60...30 * 60)) * 1000
        finalWakeMs = outOfBedMs - Int64(rng.int(2 * 60...15 * 60)) * 1000
        let kept = rng.chance(0.85)
        tracked = kept && evening.wearsWatch && morning.wearsWatch && finalWakeMs - onsetMs >= 3 * 3_600_000
        guard tracked else {
            stages = []
            return
        }
        stages = Self.stages(from: onsetMs, to: finalWakeMs, rng: &rng)
    }

    /// Whether the person is asleep at `ms` (between onset and final wake of a tracked night).
    func isAsleep(at ms: Int64) -> Bool { tracked && ms >= onsetMs && ms < finalWakeMs }

    /// Cycles of core, deep, core and REM sleep, with an awakening after 45 % of them.
    private static func stages(from onset: Int64, to end: Int64, rng: inout Xoshiro256StarStar) -> [Stage] {
        var stages: [Stage] = []
        var t = onset
        var cycle = 0
        func add(_ stage: SleepStage, minutes: Int, rng: inout Xoshiro256StarStar) {
            guard minutes > 0, t < end else { return }
            let until = min(end, t + Int64(minutes) * 60_000 + Int64(rng.int(0...59_999)))
            stages.append(Stage(startMs: t, endMs: until, stage: stage))
            t = until
        }
        while t < end {
            add(.asleepCore, minutes: rng.int(10...30), rng: &rng)
            add(.asleepDeep, minutes: cycle < 2 ? rng.int(20...45) : cycle < 3 ? rng.int(5...20) : rng.int(0...6), rng: &rng)
            add(.asleepCore, minutes: rng.int(5...20), rng: &rng)
            add(.asleepREM, minutes: cycle == 0 ? rng.int(3...12) : rng.int(10...30) + 3 * min(cycle, 4), rng: &rng)
            if rng.chance(0.45) { add(.awake, minutes: rng.int(1...6), rng: &rng) }
            cycle += 1
        }
        return stages
    }

    /// The night's samples, from the Watch: `InBed` over the time in bed, then the stages (watchOS 9 and later) or
    /// the `AsleepUnspecified` blocks between awakenings (before). Their uuids come from a stream of their own.
    func samples(watch: DeviceSource, seed: UInt64) -> [HealthSample] {
        guard tracked else { return [] }
        var rng = Xoshiro256StarStar(seed: SplitMix64.hash(seed, RealisticTypesRecorder.Salt.sleepUUIDs, evening.daysSinceEpoch))
        var out: [HealthSample] = []
        out.reserveCapacity(stages.count + 1)
        func add(_ startMs: Int64, _ endMs: Int64, _ stage: SleepStage) {
            out.append(watch.sample(.sleep, uuid: rng.uuid(), startMs: startMs, endMs: endMs, value: Double(stage.rawValue),
                                    year: evening.year))
        }
        add(bedMs, outOfBedMs, .inBed)
        if evening >= Self.firstNightWithStages {
            for stage in stages { add(stage.startMs, stage.endMs, stage.stage) }
        } else {
            var block: (start: Int64, end: Int64)?
            for stage in stages {
                if stage.stage == .awake {
                    if let b = block { add(b.start, b.end, .asleepUnspecified) }
                    block = nil
                } else {
                    block = (block?.start ?? stage.startMs, stage.endMs)
                }
            }
            if let b = block { add(b.start, b.end, .asleepUnspecified) }
        }
        return out
    }
}
