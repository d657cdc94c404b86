import Foundation

/// The start range of an export, from `--from`/`--to` (CLI) or `from`/`to` (sink): each a date `YYYY-MM-DD` — a local
/// day in the given time zone, `to` including its whole day, as `stats --daily` counts days — or an ISO-8601 UTC
/// instant (`2025-05-11T16:27:22.000Z`), `to` exclusive, as `delete` and `GET /samples` take them. Either may be
/// absent (from the first sample, to the last). A sample is exported when its start lies in the range.
public enum ExportRange {
    /// Everything: every instant ``Instants`` allows.
    public static let all = TimeRange(start: Instants.min, end: Instants.max + 1)

    /// The range `from`…`to` names (`nil`: open on that side).
    ///
    /// - Parameters:
    ///   - timeZone: the zone of date bounds (instants are UTC whatever it is).
    ///   - names: how the caller calls the two bounds in messages (`--from`/`--to`, `from`/`to`).
    /// - Throws: ``ExportRangeError`` naming the bound that is neither a date nor an instant, or `to` when the range
    ///   ends before it starts.
    public static func parse(from: String?, to: String?, timeZone: TimeZone,
                             names: (from: String, to: String) = ("from", "to")) throws(ExportRangeError) -> TimeRange {
        let start = try from.map { text throws(ExportRangeError) in try bound(text, name: names.from, end: false, timeZone) }
            ?? all.start
        let end = try to.map { text throws(ExportRangeError) in try bound(text, name: names.to, end: true, timeZone) }
            ?? all.end
        guard start <= end else {
            throw ExportRangeError(parameter: names.to,
                                   message: "\(names.to) \(to ?? "") ends before \(names.from) \(from ?? "") starts")
        }
        return TimeRange(start: start, end: end)
    }

    /// The instant `text` stands for: a day's first instant (the next day's for an end bound), or the instant itself.
    static func bound(_ text: String, name: String, end: Bool, _ timeZone: TimeZone) throws(ExportRangeError) -> Int64 {
        if text.utf8.count == 10, let date = CivilDate(iso: text), date.year >= 1 {
            let day = date.daysSinceEpoch + (end ? 1 : 0)
            return LocalDays.startOfDay(daysSinceEpoch: day, in: timeZone)
        }
        if let ms = ISO8601Millis.parse(text), Instants.contains(ms) { return ms }
        throw ExportRangeError(parameter: name, message: """
            \(name) "\(text.prefix(64))" is neither a date YYYY-MM-DD nor an ISO-8601 instant such as \
            2025-05-11T16:27:22.000Z (within \(Instants.description))
            """)
    }
}
