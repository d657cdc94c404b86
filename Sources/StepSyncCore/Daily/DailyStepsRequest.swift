import Foundation

/// A validated request for daily step totals: the days `from…to` (inclusive) local to a time zone, and the device
/// priority that decides which of two overlapping sources counts.
///
/// The sink's `GET /steps/daily?from=&to=&tz=&priority=` and `stepsync stats --daily` both build one with these
/// functions, so they accept and refuse the same input with the same messages.
public struct DailyStepsRequest: Hashable, Sendable {
    /// The longest span of one request, in days (a little over ten years).
    public static let maxDays = 3_700
    /// The longest time-zone name accepted (the tz database's longest is 32 characters).
    public static let maxTimeZoneNameLength = 64

    /// The first day.
    public let from: CivilDate
    /// The last day (inclusive).
    public let to: CivilDate
    /// The time zone's name as given (`Europe/Berlin`), echoed in the answer's `"tz"`.
    public let timeZoneName: String
    /// The time zone.
    public let timeZone: TimeZone
    /// Which devices outrank which.
    public let priority: DevicePriority

    /// A request for the days `from…to` in the zone `timeZoneName`.
    ///
    /// - Throws: ``DailyStepsError`` naming `tz` for an unknown zone, or `to` when it is before `from` or the span is
    ///   over ``maxDays`` days. `parameters` renames them (the CLI says `--to`).
    public init(from: CivilDate, to: CivilDate, timeZoneName: String, priority: DevicePriority = .default,
                parameters: Parameters = .query) throws {
        guard to >= from else {
            throw DailyStepsError.invalidSpan("\(to) is before \(parameters.from) \(from)", parameter: parameters.to)
        }
        let days = from.distance(to: to) + 1
        guard days <= Self.maxDays else {
            throw DailyStepsError.invalidSpan(
                "\(parameters.from)…\(parameters.to) spans \(days) days, over the limit of \(Self.maxDays)",
                parameter: parameters.to)
        }
        self.timeZone = try Self.parseTimeZone(timeZoneName, parameter: parameters.tz)
        self.from = from
        self.to = to
        self.timeZoneName = timeZoneName
        self.priority = priority
    }

    /// Parses the four parameters as given in a URL query or on the command line. `priority` is the default (Apple
    /// Watch, then iPhone) when `nil`.
    ///
    /// - Throws: ``DailyStepsError`` naming the first parameter at fault.
    public static func parse(from: String, to: String, tz: String, priority: String?, parameters: Parameters = .query)
        throws -> DailyStepsRequest
    {
        let first = try parseDate(from, parameter: parameters.from)
        let last = try parseDate(to, parameter: parameters.to)
        let ranking = try priority.map { try DevicePriority.parse($0, parameter: parameters.priority) } ?? .default
        return try DailyStepsRequest(from: first, to: last, timeZoneName: tz, priority: ranking, parameters: parameters)
    }

    /// Parses a date `YYYY-MM-DD` (years 0001…9999).
    ///
    /// - Throws: ``DailyStepsError`` naming `parameter`.
    public static func parseDate(_ text: String, parameter: String) throws -> CivilDate {
        guard text.utf8.count == 10, let date = CivilDate(iso: text), date.year >= 1 else {
            throw DailyStepsError.invalidDate(text, parameter: parameter)
        }
        return date
    }

    /// Resolves an IANA time-zone name (`Europe/Berlin`, `America/New_York`, `Asia/Kolkata`, `UTC`), case-sensitive.
    ///
    /// - Throws: ``DailyStepsError`` naming `parameter` for a name that is empty, over
    ///   ``maxTimeZoneNameLength`` characters, not made of ASCII letters, digits, `/`, `_`, `-` and `+`, or unknown.
    public static func parseTimeZone(_ text: String, parameter: String = "tz") throws -> TimeZone {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= maxTimeZoneNameLength,
              utf8.allSatisfy({ c in
                  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                      || c == UInt8(ascii: "/") || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
                      || c == UInt8(ascii: "+")
              }),
              let zone = TimeZone(identifier: text)
        else { throw DailyStepsError.invalidTimeZone(text, parameter: parameter) }
        return zone
    }

    /// The days of the request, with their UTC boundaries (computed here, once).
    public var days: LocalDays { LocalDays(from: from, to: to, timeZone: timeZone) }

    /// How the parameters are named in error messages.
    public struct Parameters: Hashable, Sendable {
        /// The first day's parameter.
        public var from: String
        /// The last day's parameter.
        public var to: String
        /// The time zone's parameter.
        public var tz: String
        /// The priority's parameter.
        public var priority: String

        /// Names them.
        public init(from: String, to: String, tz: String, priority: String) {
            self.from = from
            self.to = to
            self.tz = tz
            self.priority = priority
        }

        /// The sink's query parameters: `from`, `to`, `tz`, `priority`.
        public static let query = Parameters(from: "from", to: "to", tz: "tz", priority: "priority")
        /// The CLI's options: `--from`, `--to`, `--tz`, `--priority`.
        public static let options = Parameters(from: "--from", to: "--to", tz: "--tz", priority: "--priority")
    }
}
