/// The `realistic` profile: one person's days as an iPhone and an Apple Watch record them.
///
/// Each day is first planned as walking *bouts* in local wall-clock time (commutes, office moves, lunch walks, runs,
/// weekend hikes, sightseeing), then every bout is recorded by the Watch (if worn) in back-to-back samples of 30–90 s
/// and by the iPhone (if carried) in samples of 1–10 min: both cover the same walk, so their samples overlap, as in a
/// real Health export. Everything a day needs comes from a stream seeded by (seed, day), and month- or year-level
/// facts (a month without the Watch, the dates of the holidays) from streams seeded by (seed, month or year): a day's
/// samples do not depend on which range is generated.
struct RealisticDayPlanner: Sendable {
    let seed: UInt64
    /// The person's iPhone.
    let phone: DeviceSource
    /// The person's Apple Watch.
    let watch: DeviceSource

    init(seed: UInt64) {
        self.seed = seed
        phone = DeviceSource.iPhone(seed: seed)
        watch = DeviceSource.watch(seed: seed)
    }

    private enum Salt {
        static let day: UInt64 = 0x2EA1_0001
        static let watchMonth: UInt64 = 0x2EA1_0002
        static let vacation: UInt64 = 0x2EA1_0003
        static let sick: UInt64 = 0x2EA1_0004
    }

    /// What kind of day it is, in order of precedence.
    enum Kind: Equatable { case sick, vacation, weekend, workday }

    /// A stretch of walking in local wall-clock seconds.
    struct Bout {
        var start: Int
        var duration: Int
        /// Steps per minute.
        var cadence: Double
        /// The chance the iPhone is on the person during the bout (when it left home at all).
        var phoneChance: Double
    }

    // MARK: - Calendar facts

    /// Whether the Watch sat unused for the whole month (about one month in ten).
    func isMonthWithoutWatch(year: Int, month: Int) -> Bool {
        var rng = Xoshiro256StarStar(seed: SplitMix64.hash(seed, Salt.watchMonth, year * 12 + month))
        return rng.chance(0.1)
    }

    /// The vacation days of `year` as day numbers: two to three weeks in summer, a week in spring or autumn.
    func vacations(year: Int) -> [ClosedRange<Int>] {
        var rng = Xoshiro256StarStar(seed: SplitMix64.hash(seed, Salt.vacation, year))
        let summerStart = CivilDate(year: year, month: 7, day: 1).daysSinceEpoch + rng.int(0...45)
        let summer = summerStart...(summerStart + rng.int(9...20))
        let otherMonth = rng.chance(0.5) ? 4 : 10
        let otherStart = CivilDate(year: year, month: otherMonth, day: 1).daysSinceEpoch + rng.int(0...20)
        return [summer, otherStart...(otherStart + rng.int(4...8))]
    }

    /// Whether the person is ill that day: episodes of 1–5 days start on about one day in eighty.
    func isSick(dayNumber: Int) -> Bool {
        for back in 0..<5 {
            var rng = Xoshiro256StarStar(seed: SplitMix64.hash(seed, Salt.sick, dayNumber - back))
            if rng.chance(0.0125), rng.int(1...5) > back { return true }
        }
        return false
    }

    /// Public holidays spent like a weekend: New Year, 1 May, 3 October, Christmas.
    static func isPublicHoliday(_ day: CivilDate) -> Bool {
        switch (day.month, day.day) {
        case (1, 1), (5, 1), (10, 3), (12, 24), (12, 25), (12, 26), (12, 31): return true
        default: return false
        }
    }

    func kind(of day: CivilDate) -> Kind {
        let number = day.daysSinceEpoch
        if isSick(dayNumber: number) { return .sick }
        if vacations(year: day.year).contains(where: { $0.contains(number) }) { return .vacation }
        if day.isoWeekday >= 6 || Self.isPublicHoliday(day) { return .weekend }
        return .workday
    }

    // MARK: - One day

    /// The facts of `day` (kind, Watch, phone, bouts) and the day's random stream as planning left it: recording the
    /// steps continues from there. Planning a day draws nothing else, so the facts of a neighbouring day cost
    /// microseconds.
    func plan(_ day: CivilDate) -> (day: RealisticDay, rng: Xoshiro256StarStar) {
        let dayNumber = day.daysSinceEpoch
        var rng = Xoshiro256StarStar(seed: SplitMix64.hash(seed, Salt.day, dayNumber))
        let kind = kind(of: day)
        let wearsWatch = !isMonthWithoutWatch(year: day.year, month: day.month) && !rng.chance(0.03)
        let phoneLeftHome = !rng.chance(kind == .vacation ? 0.01 : 0.04)
        let bouts = plan(kind: kind, weekday: day.isoWeekday, rng: &rng)
        return (RealisticDay(date: day, kind: kind, wearsWatch: wearsWatch, phoneOut: phoneLeftHome, bouts: bouts,
                             clock: LocalDayClock(day: day)), rng)
    }

    /// The day's step samples, sorted by start (then end, then value): the step history of the `realistic` profile.
    func samples(of day: CivilDate) -> [HealthSample] {
        var samples = record(day).steps
        samples.sort { a, b in
            if a.startMs != b.startMs { return a.startMs < b.startMs }
            if a.endMs != b.endMs { return a.endMs < b.endMs }
            return a.value < b.value
        }
        return samples
    }

    /// Plans `day` and records its steps: the Watch over every bout while worn, the iPhone over the bouts it is
    /// carried on, now and then a manual entry. The random draws, and so the samples, are those of every earlier
    /// release: this is the history `--types steps` reproduces bit for bit.
    func record(_ day: CivilDate) -> RecordedDay {
        let (facts, planned) = plan(day)
        var rng = planned
        let clock = facts.clock
        var samples: [HealthSample] = []
        var bouts: [Int32] = []
        samples.reserveCapacity(facts.wearsWatch ? 320 : 80)
        bouts.reserveCapacity(facts.wearsWatch ? 320 : 80)
        for (index, bout) in facts.bouts.enumerated() {
            let end = bout.start + bout.duration
            if facts.wearsWatch {
                var t = bout.start
                while t < end {
                    let length = min(rng.int(30...90), end - t)
                    if length < 10, t > bout.start { break }
                    let steps = Int((bout.cadence * Double(length) / 60 * rng.double(0.9...1.1)).rounded())
                    emit(watch, wall: t, seconds: length, steps: steps, clock: clock, rng: &rng, into: &samples)
                    t += length + rng.int(0...6)
                }
            }
            if facts.phoneOut, rng.chance(bout.phoneChance) {
                var t = bout.start + rng.int(0...20)
                while t < end {
                    let length = min(rng.int(60...600), end - t)
                    if length < 20 { break }
                    let steps = Int((bout.cadence * Double(length) / 60 * rng.double(0.85...1.02)).rounded())
                    emit(phone, wall: t, seconds: length, steps: steps, clock: clock, rng: &rng, into: &samples)
                    t += length + rng.int(0...30)
                }
            }
            while bouts.count < samples.count { bouts.append(Int32(index)) }
        }
        // Now and then a count typed into Health by hand: one large sample, often over 10,000 steps.
        if rng.chance(0.015) {
            let steps = rng.int(1500...24_000)
            let seconds = steps * 60 / 110
            let wall = rng.int(8 * 3600...(23 * 3600 + 3540 - seconds))
            emit(DeviceSource.manual, wall: wall, seconds: seconds, steps: steps, clock: clock, rng: &rng, into: &samples)
            while bouts.count < samples.count { bouts.append(-1) }
        }
        return RecordedDay(day: facts, steps: samples, stepBouts: bouts)
    }

    @inline(__always)
    private func emit(_ source: DeviceSource, wall: Int, seconds: Int, steps: Int, clock: LocalDayClock,
                      rng: inout Xoshiro256StarStar, into samples: inout [HealthSample]) {
        guard steps > 0 else { return }
        let (startMs, offset) = clock.utc(wallSeconds: wall, extraMs: rng.int(0...999))
        samples.append(source.sample(uuid: rng.uuid(), startMs: startMs, endMs: startMs + Int64(seconds) * 1000,
                                     offset: offset, steps: steps, year: clock.day.year))
    }

    // MARK: - Planning bouts

    /// The day's walking, in time order, none overlapping, all between waking (06:00 at the earliest) and 23:59.
    func plan(kind: Kind, weekday: Int, rng: inout Xoshiro256StarStar) -> [Bout] {
        var plan = BoutPlan()
        func minutes(_ range: ClosedRange<Int>) -> Int { rng.int(range) * 60 }
        func at(_ h: Int, _ m: Int = 0) -> Int { h * 3600 + m * 60 }
        // Pottering about (home, office, shop): short, slow bouts the Watch records as a few small samples.
        func potter(_ count: ClosedRange<Int>, until end: Int, phone: Double) {
            plan.scatter(rng.int(count), in: plan.cursor..<end, length: 30...300, cadence: 10...50, phone: phone, rng: &rng)
        }
        switch kind {
        case .workday:
            let wake = rng.int(at(6, 15)...at(7, 30))
            let leave = wake + minutes(40...75)
            plan.add(start: wake, length: 60, cadence: 10...30, phone: 0.2, rng: &rng)
            potter(4...8, until: leave, phone: 0.3)
            let bikes = rng.chance(0.2)
            plan.add(start: leave, length: bikes ? minutes(2...4) : minutes(5...15), cadence: 100...120, phone: 1, rng: &rng)
            let lunch = at(12) + minutes(0...50)
            potter(10...18, until: lunch, phone: 0.6)
            if rng.chance(0.7) {
                plan.add(start: lunch, length: minutes(10...25), cadence: 95...115, phone: 0.95, rng: &rng)
            }
            let home = at(16, 30) + minutes(0...120)
            potter(10...18, until: home, phone: 0.6)
            plan.add(start: home, length: bikes ? minutes(2...4) : minutes(5...15), cadence: 100...120, phone: 1, rng: &rng)
            if rng.chance(0.3) {
                plan.add(start: plan.cursor + minutes(20...90), length: minutes(25...50), cadence: 155...175, phone: 0.5, rng: &rng)
            } else if rng.chance(0.25) {
                plan.add(start: plan.cursor + minutes(60...150), length: minutes(20...45), cadence: 90...110, phone: 0.9, rng: &rng)
            }
            potter(8...14, until: rng.int(at(22, 15)...at(23, 40)), phone: 0.3)
        case .weekend:
            let wake = rng.int(at(7, 30)...at(9, 30))
            plan.add(start: wake, length: 60, cadence: 10...30, phone: 0.2, rng: &rng)
            if weekday == 7, rng.chance(0.4) {
                plan.add(start: wake + minutes(20...60), length: minutes(60...110), cadence: 160...175, phone: 0.5, rng: &rng)
            }
            potter(8...16, until: max(plan.cursor + minutes(30...60), rng.int(at(10)...at(14))), phone: 0.3)
            if rng.chance(0.6) {
                for _ in 0..<rng.int(2...3) {
                    plan.add(start: plan.cursor + minutes(2...15), length: minutes(20...40), cadence: 90...110, phone: 0.95, rng: &rng)
                }
            }
            for _ in 0..<rng.int(1...3) {
                plan.add(start: plan.cursor + minutes(20...90), length: minutes(5...20), cadence: 90...110, phone: 0.95, rng: &rng)
                potter(2...5, until: plan.cursor + minutes(30...60), phone: 0.9)
            }
            potter(10...18, until: rng.int(at(22, 30)...at(23, 50)), phone: 0.3)
        case .vacation:
            let wake = rng.int(at(7, 30)...at(9))
            plan.add(start: wake, length: 60, cadence: 10...30, phone: 0.2, rng: &rng)
            potter(4...8, until: wake + minutes(45...90), phone: 0.5)
            for _ in 0..<rng.int(3...5) {
                plan.add(start: plan.cursor + minutes(10...60), length: minutes(20...45), cadence: 85...110, phone: 0.99, rng: &rng)
                potter(1...4, until: plan.cursor + minutes(20...40), phone: 0.9)
            }
            potter(5...10, until: at(23, 30), phone: 0.5)
        case .sick:
            let wake = rng.int(at(8)...at(10))
            plan.add(start: wake, length: 60, cadence: 10...30, phone: 0.2, rng: &rng)
            potter(6...14, until: at(22, 30), phone: 0.2)
        }
        return plan.bouts
    }
}

/// Bouts added in time order; each starts after the previous one ended and all end by 23:59.
struct BoutPlan {
    private(set) var bouts: [RealisticDayPlanner.Bout] = []
    /// The end of the last bout (wall seconds), where the next may start.
    private(set) var cursor = 0
    private static let lastSecond = 23 * 3600 + 59 * 60

    mutating func add(start: Int, length: Int, cadence: ClosedRange<Double>, phone: Double, rng: inout Xoshiro256StarStar) {
        let from = max(start, cursor + (bouts.isEmpty ? 0 : 30))
        let to = min(from + length, Self.lastSecond)
        guard to - from >= 15 else { return }
        bouts.append(.init(start: from, duration: to - from, cadence: rng.double(cadence), phoneChance: phone))
        cursor = to
    }

    /// `count` short bouts of `length` seconds at random times in `window`.
    mutating func scatter(_ count: Int, in window: Range<Int>, length: ClosedRange<Int>, cadence: ClosedRange<Double>,
                          phone: Double, rng: inout Xoshiro256StarStar) {
        guard window.upperBound > window.lowerBound, count > 0 else { return }
        var starts = (0..<count).map { _ in rng.int(window.lowerBound...(window.upperBound - 1)) }
        starts.sort()
        for start in starts where start >= cursor {
            add(start: start, length: rng.int(length), cadence: cadence, phone: phone, rng: &rng)
        }
    }
}
