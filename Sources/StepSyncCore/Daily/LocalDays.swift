import Foundation

/// The local calendar days `from…to` of a time zone as UTC instants: the day boundaries a daily total needs,
/// computed once per request.
///
/// Day `i` (the date `from + i`) is `[boundaries[i], boundaries[i + 1])` in UTC milliseconds: 24 hours on most days,
/// 23 and 25 hours at daylight-saving changes, and whatever the zone's rules make of stranger days (a day that starts
/// at 01:00 because midnight was skipped; Pacific/Apia's 2011-12-30, which never happened, has no length at all).
/// A day starts at the first instant whose local date is that day, as Foundation's `Calendar.startOfDay(for:)`.
public struct LocalDays: Hashable, Sendable {
    /// The first day.
    public let from: CivilDate
    /// The last day (inclusive).
    public let to: CivilDate
    /// The zone the days are local to.
    public let timeZone: TimeZone
    /// `count + 1` non-decreasing UTC instants (ms): the start of each day, then the end of the last.
    public let boundaries: [Int64]

    /// The days `from…to` (inclusive; `from ≤ to`) in `timeZone`.
    public init(from: CivilDate, to: CivilDate, timeZone: TimeZone) {
        precondition(from <= to, "LocalDays: \(to) is before \(from)")
        self.from = from
        self.to = to
        self.timeZone = timeZone
        let first = from.daysSinceEpoch
        boundaries = (first...(to.daysSinceEpoch + 1)).map { Self.startOfDay(daysSinceEpoch: $0, in: timeZone) }
    }

    /// The number of days.
    public var count: Int { boundaries.count - 1 }

    /// `[start of from, end of to)` in UTC milliseconds.
    public var span: TimeRange { TimeRange(start: boundaries[0], end: boundaries[boundaries.count - 1]) }

    /// The date of day `index`.
    public func date(at index: Int) -> CivilDate { from.advanced(by: index) }

    /// The index of the day holding `instant`, or `nil` outside ``span``.
    public func index(containing instant: Int64) -> Int? { Self.index(containing: instant, boundaries: boundaries) }

    /// The index `i` of the span `[boundaries[i], boundaries[i + 1])` holding `instant`, or `nil` outside
    /// `[boundaries.first, boundaries.last)`; `boundaries` are non-decreasing, at least two. Spans of no length
    /// share their start with the next span and are skipped (the last boundary ≤ `instant` wins). O(log n).
    static func index(containing instant: Int64, boundaries: [Int64]) -> Int? {
        guard instant >= boundaries[0], instant < boundaries[boundaries.count - 1] else { return nil }
        var low = 0, high = boundaries.count - 1  // boundaries[low] ≤ instant < boundaries[high]
        while high - low > 1 {
            let mid = (low + high) / 2
            if boundaries[mid] <= instant { low = mid } else { high = mid }
        }
        return low
    }

    /// The first instant (UTC ms) of the local day `daysSinceEpoch` days after 1970-01-01 in `timeZone`.
    ///
    /// Fast path: when the zone's offset is the same two days before and two days after the local midnight, the
    /// day starts at that midnight (this assumes a zone never changes its offset and back within four days, which
    /// no zone in the tz database does; a test compares every day of several zones with `Calendar`). Near an offset
    /// change: a binary search over whole seconds for the first instant whose local date is this day or later (a
    /// day that was skipped gets no length), then `Calendar.startOfDay(for:)` of that instant, which picks the
    /// first of two repeated midnights. The calendar is asked about an instant, never a date, so its Julian dates
    /// before 1582 do not matter. Offsets and transitions in the tz database are whole seconds.
    public static func startOfDay(daysSinceEpoch day: Int, in timeZone: TimeZone) -> Int64 {
        let midnight = Int64(day) * 86_400  // local seconds, as if UTC
        func offset(_ utcSeconds: Int64) -> Int64 {
            Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(utcSeconds))))
        }
        let before = offset(midnight - 2 * 86_400)
        if before == offset(midnight + 2 * 86_400) { return (midnight - before) * 1000 }
        // Offsets stay within ±18 h, so the local time of `low` is before this midnight and that of `high` after it.
        var low = midnight - 18 * 3600, high = midnight + 18 * 3600
        while high - low > 1 {
            let mid = low + (high - low) / 2
            if mid + offset(mid) >= midnight { high = mid } else { low = mid }
        }
        guard high + offset(high) < midnight + 86_400 else { return high * 1000 }  // the day never happened
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let start = calendar.startOfDay(for: Date(timeIntervalSince1970: Double(high)))
        return min(high * 1000, Int64((start.timeIntervalSince1970 * 1000).rounded()))
    }
}
