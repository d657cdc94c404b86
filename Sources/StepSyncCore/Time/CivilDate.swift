import Foundation

/// A calendar date (proleptic Gregorian) with no time and no time zone: `2024-03-31`.
///
/// Dates count as days: `CivilDate` is `Strideable`, so `start...end` is a collection of days and
/// `date.advanced(by: 1)` is the next day.
public struct CivilDate: Hashable, Sendable, Comparable, Strideable, CustomStringConvertible {
    /// The year, e.g. `2024`.
    public var year: Int
    /// The month, `1...12`.
    public var month: Int
    /// The day of the month, `1...31`.
    public var day: Int

    /// Creates a date from its parts; they are not checked (use ``init(iso:)`` for input from people).
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD`; `nil` unless it names a real date.
    public init?(iso: String) {
        let parts = iso.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The date of the day `daysSinceEpoch` days after 1970-01-01 (negative before it).
    public init(daysSinceEpoch: Int) {
        // Howard Hinnant's civil_from_days.
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        self.init(year: yoe + era * 400 + (month <= 2 ? 1 : 0), month: month, day: day)
    }

    /// The UTC date of the wall-clock instant `nowMs` (``TimeSource/nowMs``: today's).
    public static func today(nowMs: Int64) -> CivilDate {
        let days = nowMs >= 0 ? nowMs / Milliseconds.day : (nowMs - Milliseconds.day + 1) / Milliseconds.day
        return CivilDate(daysSinceEpoch: Int(days))
    }

    /// Days since 1970-01-01 (negative before it).
    public var daysSinceEpoch: Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The day of the week, `1` = Monday … `7` = Sunday (ISO 8601).
    public var isoWeekday: Int {
        // 1970-01-01 was a Thursday (4).
        let d = (daysSinceEpoch + 3) % 7
        return (d < 0 ? d + 7 : d) + 1
    }

    /// The number of days in `month` of `year`.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let s = String(value)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// The number of days from this date to `other`.
    public func distance(to other: CivilDate) -> Int { other.daysSinceEpoch - daysSinceEpoch }

    /// The date `n` days later (earlier when negative).
    public func advanced(by n: Int) -> CivilDate { CivilDate(daysSinceEpoch: daysSinceEpoch + n) }
}

extension CivilDate {
    /// The local date of instant `ms` (UTC milliseconds) in `zone`, by whole-second integer arithmetic (instants
    /// before 1970 and zones west of UTC included): the one rule the sink, the CLI and the daily totals use.
    public static func local(ofMs ms: Int64, in zone: TimeZone) -> CivilDate {
        let seconds = floorDiv(ms, 1000)
        let local = seconds + Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))))
        return CivilDate(daysSinceEpoch: Int(floorDiv(local, 86_400)))
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return a % b < 0 ? q - 1 : q
    }
}
