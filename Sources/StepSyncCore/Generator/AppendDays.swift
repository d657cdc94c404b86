/// Which days `stepsync generate --append-days N` adds after a history: the `N` days after its last day, but never a
/// day after today unless future days are allowed (tests).
///
/// "Today" is the caller's: the command passes today's UTC date (the same as `generate --end`'s default). The
/// generated days are Europe/Berlin days, which are never behind UTC: on a UTC date `D` it is `D` or `D + 1` in
/// Berlin, so no day after the UTC date has begun there, and no appended day lies wholly in the future.
///
/// ```swift
/// let plan = try AppendDays(after: last, count: 30, today: .today(nowMs: time.nowMs()), allowFuture: false)
/// // last = 2026-11-20, today = 2026-11-23: plan.days = 2026-11-21...2026-11-23, plan.isClipped
/// ```
public struct AppendDays: Hashable, Sendable {
    /// The days to generate, oldest first.
    public let days: ClosedRange<CivilDate>
    /// How many days were asked for.
    public let requested: Int

    /// Whether fewer days than asked for are added, because the rest would be after today.
    public var isClipped: Bool { days.count < requested }

    /// Plans the `count` days after `lastDay`, stopping at `today` unless `allowFuture`.
    ///
    /// - Throws: ``AppendDaysError`` when `lastDay` is today or later (and future days are not allowed): there is no
    ///   day to add, and saying so beats reporting an empty success.
    public init(after lastDay: CivilDate, count: Int, today: CivilDate, allowFuture: Bool) throws(AppendDaysError) {
        precondition(count >= 1, "count must be at least 1")
        let first = lastDay.advanced(by: 1)
        var last = lastDay.advanced(by: count)
        if !allowFuture {
            guard first <= today else { throw AppendDaysError(lastDay: lastDay, today: today) }
            last = Swift.min(last, today)
        }
        days = first...last
        requested = count
    }
}

/// `generate --append-days` has no day to add: the history already reaches today.
public struct AppendDaysError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case reachesToday
        case pastToday
    }

    private let code: Code
    /// The history's last day.
    public let lastDay: CivilDate
    /// Today, as the caller counted it.
    public let today: CivilDate

    init(lastDay: CivilDate, today: CivilDate) {
        self.code = lastDay == today ? .reachesToday : .pastToday
        self.lastDay = lastDay
        self.today = today
    }

    public var description: String {
        let reach = switch code {
        case .reachesToday: "already reaches today, \(today) (UTC): its last day is \(lastDay)"
        case .pastToday: "already reaches \(lastDay), after today (\(today), UTC)"
        }
        return "the store's step history \(reach), and --append-days never writes days after today. "
            + "Nothing was generated. (--allow-future generates future days anyway, for tests.)"
    }
}
