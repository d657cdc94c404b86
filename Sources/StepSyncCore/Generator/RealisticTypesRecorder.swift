import Foundation

/// Records every ``GeneratedType`` of a `realistic` day, following the day's plan and its step samples: the steps
/// are those of ``RealisticDayPlanner/record(_:)`` unchanged, and the other types agree with them.
///
/// - **distance** (iPhone, Watch): one sample per step sample, same span and device, the steps times a stride that
///   grows with the cadence (0.45–0.6 m pottering, 0.85 m walking, 1.15 m running).
/// - **flights** (iPhone): 1–3 flights on 12 % of the iPhone's step samples, same span.
/// - **heart rate** (Watch, while worn: from getting up to bed, and through the night when it is worn to bed):
///   a reading every 5–10 minutes awake, 10–15 asleep, every 20–40 seconds during a workout.
/// - **HRV** (Watch): 2–5 one-minute SDNN readings a day at rest, mostly asleep, with their beats.
/// - **energy** (Watch, while worn, awake): active energy over each walk and workout in chunks of 1–5 minutes,
///   and 10–25-minute chunks of light activity between them.
/// - **sleep** (Watch): see ``SleepNight``.
/// - **mindful** (Watch): a 1–10-minute session on 12 % of the days it is worn, after getting up or before bed.
/// - **workouts** (Watch): every run, 15 % of the walks of 20 minutes or more, and now and then cycling, strength
///   training or yoga in a stretch free of walks; totals, statistics and per-kilometre segments computed from the
///   distance, energy, heart-rate and step samples inside them.
///
/// Every type draws from streams of its own seeded by (seed, type, day), so the samples of a type are the same
/// whichever other types are generated; a day's samples depend on the day and its two neighbours (for the nights),
/// never on the range generated.
struct RealisticTypesRecorder: Sendable {
    let planner: RealisticDayPlanner
    /// The types to yield.
    let types: Set<GeneratedType>
    /// The person's resting heart rate (52–62 bpm).
    let restingHeartRate: Double
    /// The person's typical SDNN at rest (35–60 ms).
    let baseSDNN: Double

    /// The salts of the streams; every one is different from the step planner's (`0x2EA1_000x`).
    enum Salt {
        static let person: UInt64 = 0x2EA1_0100
        static let distance: UInt64 = 0x2EA1_0101
        static let flights: UInt64 = 0x2EA1_0102
        static let heartRate: UInt64 = 0x2EA1_0103
        static let hrv: UInt64 = 0x2EA1_0104
        static let energy: UInt64 = 0x2EA1_0105
        static let mindful: UInt64 = 0x2EA1_0106
        static let workouts: UInt64 = 0x2EA1_0107
        static let workoutDetails: UInt64 = 0x2EA1_0108
        static let night: UInt64 = 0x2EA1_0109
        static let sleepUUIDs: UInt64 = 0x2EA1_010A
    }

    init(seed: UInt64, types: Set<GeneratedType>) {
        planner = RealisticDayPlanner(seed: seed)
        self.types = types
        var rng = Xoshiro256StarStar(seed: SplitMix64.hash(seed, Salt.person, 0))
        restingHeartRate = Double(rng.int(52...62))
        baseSDNN = Double(rng.int(35...60))
    }

    var seed: UInt64 { planner.seed }

    /// A day's stream for one purpose.
    func stream(_ salt: UInt64, _ date: CivilDate) -> Xoshiro256StarStar {
        Xoshiro256StarStar(seed: SplitMix64.hash(seed, salt, date.daysSinceEpoch))
    }

    // MARK: - One day

    /// A span the Watch is on the wrist, in UTC ms: the day, or part of a night it is worn to bed.
    struct WornSpan: Hashable {
        var startMs: Int64
        var endMs: Int64
        var night: Bool
    }

    /// A walking bout in UTC ms.
    struct BoutSpan: Hashable {
        var startMs: Int64
        var endMs: Int64
        var cadence: Double
    }

    /// What every type of one day follows.
    struct DayContext {
        let recorded: RecordedDay
        let before: SleepNight
        let after: SleepNight
        let bouts: [BoutSpan]
        let worn: [WornSpan]
        let workouts: [PlannedWorkout]

        var day: RealisticDay { recorded.day }

        func isAsleep(at ms: Int64) -> Bool { before.isAsleep(at: ms) || after.isAsleep(at: ms) }

        /// Whether `ms` falls in a bout or a workout (the person is moving).
        func isMoving(at ms: Int64) -> Bool {
            bouts.contains { ms >= $0.startMs && ms < $0.endMs } || workouts.contains { $0.contains(ms) }
        }
    }

    /// The samples of the requested types that start on `date`, sorted by start, end, type, value and uuid.
    func samples(of date: CivilDate) -> [HealthSample] {
        let context = context(of: date)
        var out: [HealthSample] = []
        out.reserveCapacity(1_000)
        if types.contains(.steps) { out += context.recorded.steps }
        let needsDistance = types.contains(.distance) || types.contains(.workouts)
        let distance = needsDistance ? distanceSamples(context.recorded) : []
        if types.contains(.distance) { out += distance }
        if types.contains(.flights) { out += flightsSamples(context.recorded) }
        let heartRate = types.contains(.heartRate) || types.contains(.workouts) ? heartRateSamples(context) : []
        if types.contains(.heartRate) { out += heartRate }
        if types.contains(.heartRateVariability) { out += hrvSamples(context) }
        let energy = types.contains(.activeEnergy) || types.contains(.workouts) ? energySamples(context) : []
        if types.contains(.activeEnergy) { out += energy }
        if types.contains(.sleep) { out += sleepSamples(context) }
        if types.contains(.mindful) { out += mindfulSamples(context) }
        if types.contains(.workouts) {
            out += workoutSamples(context, steps: context.recorded.steps, distance: distance, energy: energy, heartRate: heartRate)
        }
        out.sort(by: Self.order)
        return out
    }

    /// The plan of `date`, its steps, its two nights, and its workouts.
    func context(of date: CivilDate) -> DayContext {
        let recorded = planner.record(date)
        let day = recorded.day
        let before = SleepNight(evening: planner.plan(date.advanced(by: -1)).day, morning: day, seed: seed)
        let after = SleepNight(evening: day, morning: planner.plan(date.advanced(by: 1)).day, seed: seed)
        let bouts = day.bouts.map {
            BoutSpan(startMs: day.utcMs(wall: $0.start), endMs: day.utcMs(wall: $0.start + $0.duration), cadence: $0.cadence)
        }
        let range = day.utcRange
        var worn: [WornSpan] = []
        func add(_ start: Int64, _ end: Int64, night: Bool) {
            let s = max(start, range.lowerBound), e = min(end, range.upperBound)
            if e > s { worn.append(WornSpan(startMs: s, endMs: e, night: night)) }
        }
        if before.tracked { add(before.bedMs, before.outOfBedMs, night: true) }
        if day.wearsWatch { add(before.outOfBedMs, after.bedMs, night: false) }
        if after.tracked { add(after.bedMs, after.outOfBedMs, night: true) }
        return DayContext(recorded: recorded, before: before, after: after, bouts: bouts, worn: worn,
                          workouts: planWorkouts(day, bouts: bouts, bedMs: after.bedMs))
    }

    /// The order of a day's samples: start, end, type, value, uuid (a total order, so the output is deterministic).
    static func order(_ a: HealthSample, _ b: HealthSample) -> Bool {
        if a.startMs != b.startMs { return a.startMs < b.startMs }
        if a.endMs != b.endMs { return a.endMs < b.endMs }
        if a.type != b.type { return a.type.rawValue < b.type.rawValue }
        if a.value != b.value { return a.value < b.value }
        return a.uuid.uuidString < b.uuid.uuidString
    }

    // MARK: - Distance, flights, sleep, mindful

    /// Stride length in metres at `cadence` steps a minute.
    static func strideMetres(cadence: Double) -> Double { 0.4 + 0.0045 * cadence }

    /// Active energy, kcal a minute, walking or running at `cadence` steps a minute.
    static func energyRate(cadence: Double) -> Double { cadence < 140 ? 0.5 + 0.04 * cadence : 2 + 0.06 * cadence }

    /// One distance sample per Watch or iPhone step sample (manual entries have none), same span and device.
    func distanceSamples(_ recorded: RecordedDay) -> [HealthSample] {
        var rng = stream(Salt.distance, recorded.day.date)
        var out: [HealthSample] = []
        out.reserveCapacity(recorded.steps.count)
        for (step, bout) in zip(recorded.steps, recorded.stepBouts) where bout >= 0 {
            let stride = Self.strideMetres(cadence: recorded.day.bouts[Int(bout)].cadence)
            let km = step.value * stride / 1000 * rng.double(0.97...1.03)
            out.append(Self.companion(of: step, .distance, uuid: rng.uuid(), value: Self.round(km, 5)))
        }
        return out
    }

    /// 1–3 flights climbed on 12 % of the iPhone's step samples, same span.
    func flightsSamples(_ recorded: RecordedDay) -> [HealthSample] {
        var rng = stream(Salt.flights, recorded.day.date)
        var out: [HealthSample] = []
        for step in recorded.steps where step.sourceName == planner.phone.sourceName {
            guard rng.chance(0.12) else { continue }
            let flights = [1, 1, 1, 2, 2, 3][rng.int(0...5)]
            out.append(Self.companion(of: step, .flights, uuid: rng.uuid(), value: Double(flights)))
        }
        return out
    }

    /// The stages of the nights before and after that start on this day.
    func sleepSamples(_ c: DayContext) -> [HealthSample] {
        let range = c.day.utcRange
        return (c.before.samples(watch: planner.watch, seed: seed) + c.after.samples(watch: planner.watch, seed: seed))
            .filter { range.contains($0.startMs) }
    }

    /// A 1–10-minute session on 12 % of the days the Watch is worn, after getting up or before bed.
    func mindfulSamples(_ c: DayContext) -> [HealthSample] {
        guard let day = c.worn.first(where: { !$0.night }) else { return [] }
        var rng = stream(Salt.mindful, c.day.date)
        guard rng.chance(0.12) else { return [] }
        let minutes = [1, 1, 1, 2, 3, 5, 10][rng.int(0...6)]
        let length = Int64(minutes) * 60_000 + Int64(rng.int(0...4_999))
        let start = rng.chance(0.5)
            ? day.startMs + Int64(rng.int(10 * 60...40 * 60)) * 1000
            : day.endMs - Int64(rng.int(20 * 60...60 * 60)) * 1000 - length
        guard start >= day.startMs, start + length <= day.endMs else { return [] }
        return [planner.watch.sample(.mindful, uuid: rng.uuid(), startMs: start, endMs: start + length, value: 0,
                                     year: c.day.date.year)]
    }

    // MARK: - Helpers

    /// A sample of `type` with the span, offset, source and device of `step`.
    static func companion(of step: HealthSample, _ type: GeneratedType, uuid: UUID, value: Double) -> HealthSample {
        var sample = step
        sample.uuid = uuid
        sample.type = type.sampleType
        sample.unit = type.unit
        sample.value = value
        return sample
    }

    /// `value` rounded to `digits` decimals.
    static func round(_ value: Double, _ digits: Int) -> Double {
        let scale = [1.0, 10, 100, 1_000, 10_000, 100_000][digits]
        return (value * scale).rounded() / scale
    }
}
