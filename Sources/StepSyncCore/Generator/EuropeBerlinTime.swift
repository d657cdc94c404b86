/// The civil time of Europe/Berlin (and the rest of the EU's central zone), by the EU daylight-saving rule, as pure
/// arithmetic with no tzdata dependency.
///
/// Standard time is UTC+01:00; summer time, UTC+02:00, runs from 01:00 UTC on the last Sunday of March to 01:00 UTC on
/// the last Sunday of October (in local time the clocks jump 02:00 → 03:00 in spring and 03:00 → 02:00 in autumn).
/// The rule has held since 1996, so it covers any history the generator makes.
public enum EuropeBerlinTime {
    /// UTC+01:00, in seconds.
    public static let standardOffsetSeconds: Int32 = 3600
    /// UTC+02:00, in seconds.
    public static let summerOffsetSeconds: Int32 = 7200

    /// Summer time of `year` as UTC seconds since 1970: `[last Sunday of March 01:00 UTC, last Sunday of October 01:00 UTC)`.
    public static func summerTime(year: Int) -> Range<Int64> {
        lastSundayOneAMUTC(year: year, month: 3)..<lastSundayOneAMUTC(year: year, month: 10)
    }

    /// The UTC offset in force at `utcSeconds` (seconds since 1970).
    public static func utcOffsetSeconds(atUTCSeconds utcSeconds: Int64) -> Int32 {
        let day = utcSeconds >= 0 ? utcSeconds / 86_400 : (utcSeconds - 86_399) / 86_400
        let year = CivilDate(daysSinceEpoch: Int(day)).year
        return summerTime(year: year).contains(utcSeconds) ? summerOffsetSeconds : standardOffsetSeconds
    }

    /// The UTC offset in force at `utcMs` (milliseconds since 1970).
    public static func utcOffsetSeconds(atMs utcMs: Int64) -> Int32 {
        utcOffsetSeconds(atUTCSeconds: utcMs >= 0 ? utcMs / 1000 : (utcMs - 999) / 1000)
    }

    /// The UTC instant (seconds since 1970) of the local wall-clock time `secondsFromMidnight` on `day`.
    ///
    /// A wall time that occurs twice (autumn, 02:00–03:00) resolves to the first, summer-time occurrence; one that does
    /// not exist (spring, 02:00–03:00) resolves as if the clocks had not yet moved, i.e. one hour later on the clock.
    /// `secondsFromMidnight` may be `86_400` (the next midnight).
    public static func utcSeconds(of day: CivilDate, secondsFromMidnight: Int) -> Int64 {
        let local = Int64(day.daysSinceEpoch) * 86_400 + Int64(secondsFromMidnight)
        let asSummer = local - Int64(summerOffsetSeconds)
        if utcOffsetSeconds(atUTCSeconds: asSummer) == summerOffsetSeconds { return asSummer }
        return local - Int64(standardOffsetSeconds)
    }

    /// The local day `day` as a half-open UTC range in milliseconds: 23 hours on the spring change, 25 in autumn.
    public static func utcRangeMs(of day: CivilDate) -> Range<Int64> {
        utcSeconds(of: day, secondsFromMidnight: 0) * 1000..<utcSeconds(of: day, secondsFromMidnight: 86_400) * 1000
    }

    /// The local date of the UTC instant `utcMs`.
    public static func localDate(atUTCMs utcMs: Int64) -> CivilDate {
        let seconds = (utcMs >= 0 ? utcMs / 1000 : (utcMs - 999) / 1000)
        let local = seconds + Int64(utcOffsetSeconds(atUTCSeconds: seconds))
        return CivilDate(daysSinceEpoch: Int(local >= 0 ? local / 86_400 : (local - 86_399) / 86_400))
    }

    private static func lastSundayOneAMUTC(year: Int, month: Int) -> Int64 {
        let last = CivilDate(year: year, month: month, day: 31)  // March and October both have 31 days
        let sunday = last.daysSinceEpoch - last.isoWeekday % 7
        return Int64(sunday) * 86_400 + 3600
    }
}
