import Foundation

/// The local days a dashboard panel answers (`GET /samples/daily`, `/sleep/nights`, `/workouts`), by the conventions
/// of `GET /steps/daily` (``DailyStepsRequest``): `from` and `to` (`YYYY-MM-DD`, inclusive) go together, at most
/// ``DailyStepsRequest/maxDays`` days, in the IANA zone `tz` (UTC by default); without them, every day from the first
/// to the last stored one, clamped to 0001-01-01…9999-12-31 and to the last ``DailyStepsRequest/maxDays`` days.
public enum PanelRange {
    /// The first and last dates a request can name.
    public static let firstDate = CivilDate(year: 1, month: 1, day: 1)
    /// The last date a request can name.
    public static let lastDate = CivilDate(year: 9999, month: 12, day: 31)

    /// The request for the stored dates `first…last` (local dates of the first and last stored sample), clamped as
    /// above.
    ///
    /// - Throws: ``DailyStepsError`` naming `tz` for an unknown zone.
    public static func stored(first: CivilDate, last: CivilDate, timeZoneName: String) throws -> DailyStepsRequest {
        let end = min(last, lastDate)
        let start = max(first, firstDate, end.advanced(by: -(DailyStepsRequest.maxDays - 1)))
        return try DailyStepsRequest(from: min(start, end), to: end, timeZoneName: timeZoneName)
    }
}
