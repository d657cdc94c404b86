import Foundation

/// How long each point's bucket is: Health Auto Export's `automation-aggregation` header. A point dated `d` covers
/// `[d, d + bucket)`; months and years are calendar months and years at the point's own UTC offset.
public enum HAEAggregation: Hashable, Sendable {
    /// No header: a point is an instant (`end = start`).
    case none
    /// A fixed length in seconds (`seconds` 1, `minutes` 60, `hours` 3600, `days` 86 400, `weeks` 604 800).
    case seconds(Int64)
    /// Calendar months (`months` 1, `years` 12).
    case months(Int)

    /// The aggregation the header names (singular or plural, any case), `.none` for `nil`; `nil` for another word.
    public init?(header: String?) {
        guard let header else { self = .none; return }
        var word = header.trimmingCharacters(in: .whitespaces).lowercased()
        if word.hasSuffix("s") { word.removeLast() }
        switch word {
        case "second": self = .seconds(1)
        case "minute": self = .seconds(60)
        case "hour": self = .seconds(3600)
        case "day": self = .seconds(86_400)
        case "week": self = .seconds(604_800)
        case "month": self = .months(1)
        case "year": self = .months(12)
        default: return nil
        }
    }

    /// The bucket's length in ms for one starting at `startMs` written at `offsetSeconds`; `nil` past the instants.
    public func lengthMs(startMs: Int64, offsetSeconds: Int32) -> Int64? {
        switch self {
        case .none: return 0
        case .seconds(let s): return Instants.contains(startMs + s * 1000) ? s * 1000 : nil
        case .months(let n):
            let localDays = Int(ISO8601Millis.floorDiv(startMs + Int64(offsetSeconds) * 1000, Milliseconds.day))
            let date = CivilDate(daysSinceEpoch: localDays)
            var month = date.month - 1 + n
            let year = date.year + month / 12
            month = month % 12 + 1
            guard year <= 9999 else { return nil }
            let day = min(date.day, CivilDate.daysIn(month: month, year: year))
            let days = Int64(CivilDate(year: year, month: month, day: day).daysSinceEpoch - localDays)
            let end = startMs + days * Milliseconds.day
            return Instants.contains(end) ? days * Milliseconds.day : nil
        }
    }
}
