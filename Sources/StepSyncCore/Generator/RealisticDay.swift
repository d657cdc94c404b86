/// One day of the `realistic` profile as planned: what kind of day it is, whether the Watch is worn, and the walking
/// bouts. The other types (heart rate, energy, sleep, workouts…) follow these facts, so they agree with the steps.
struct RealisticDay {
    /// The local date.
    let date: CivilDate
    /// Workday, weekend, vacation or sick day.
    let kind: RealisticDayPlanner.Kind
    /// Whether the Watch is on the wrist during the day.
    let wearsWatch: Bool
    /// Whether the phone leaves home at all (on some days it stays there).
    let phoneOut: Bool
    /// The walking bouts, in time order, in local wall-clock seconds; the first starts when the person gets up.
    let bouts: [RealisticDayPlanner.Bout]
    /// Wall clock to UTC for this day.
    let clock: LocalDayClock

    /// The UTC range of the local day (23 or 25 hours at the clock changes).
    var utcRange: Range<Int64> { EuropeBerlinTime.utcRangeMs(of: date) }

    /// The UTC instant (ms) of wall-clock second `wall` of the day (it may pass midnight).
    func utcMs(wall: Int) -> Int64 { clock.utc(wallSeconds: wall, extraMs: 0).ms }

    /// When the first bout starts (the person is up), in UTC ms.
    var firstStepMs: Int64 { utcMs(wall: bouts.first?.start ?? 7 * 3600) }

    /// When the last bout ends, in UTC ms.
    var lastStepMs: Int64 { utcMs(wall: bouts.last.map { $0.start + $0.duration } ?? 22 * 3600) }
}

/// A ``RealisticDay`` with the step samples its devices recorded.
struct RecordedDay {
    /// The day's facts.
    let day: RealisticDay
    /// Step samples in the order recorded (Watch then iPhone, bout by bout, then a manual entry): not sorted.
    var steps: [HealthSample]
    /// For each step sample, the index of its bout in `day.bouts` (`-1` for a manual entry).
    var stepBouts: [Int32]
}
