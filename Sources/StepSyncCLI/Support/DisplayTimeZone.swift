import ArgumentParser
import Foundation
import StepSyncCore

/// The time zone human output is shown in: `--tz`, else `STEPSYNC_TZ`, else the system's. `--json` never uses it
/// (instants there are ISO-8601 UTC with milliseconds).
struct DisplayTimeZone {
    /// The zone.
    let zone: TimeZone
    /// Its name as chosen (`Europe/Berlin`), shown in table headers so a reader knows which zone the times are in.
    let name: String
    private let dateTimeFormatter: DateFormatter
    private let dateFormatter: DateFormatter

    /// Shows times in `zone`, called `name`.
    init(zone: TimeZone, name: String) {
        self.zone = zone
        self.name = name
        dateTimeFormatter = Self.formatter(zone, "yyyy-MM-dd HH:mm:ss")
        dateFormatter = Self.formatter(zone, "yyyy-MM-dd")
    }

    /// The zone `option` (`--tz`) names, else `STEPSYNC_TZ` of `environment`, else the system's.
    ///
    /// - Throws: `ValidationError` naming `--tz` or `STEPSYNC_TZ` and a short prefix of the bad name.
    static func resolve(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> DisplayTimeZone
    {
        let (name, source): (String, String) =
            if let option { (option, "--tz") }
            else if let name = environment["STEPSYNC_TZ"], !name.isEmpty { (name, "STEPSYNC_TZ") }
            else { (TimeZone.current.identifier, "the system time zone") }
        do {
            return DisplayTimeZone(zone: try DailyStepsRequest.parseTimeZone(name, parameter: source), name: name)
        } catch let error as DailyStepsError {
            throw ValidationError(error.description)
        }
    }

    /// UTC, for tests.
    static var utc: DisplayTimeZone { DisplayTimeZone(zone: TimeZone(identifier: "UTC")!, name: "UTC") }

    /// `2025-05-11 18:27:22` in this zone (seconds; milliseconds are for `--json`).
    func dateTime(_ ms: Int64) -> String { dateTimeFormatter.string(from: Self.date(ms)) }

    /// `2025-05-11`: the local day of the instant.
    func date(_ ms: Int64) -> String { dateFormatter.string(from: Self.date(ms)) }

    /// `2025-05-11 18:27:22 → 2025-05-11 19:00:00 Europe/Berlin`: a range for people, naming the zone.
    func range(_ range: TimeRange) -> String {
        "\(dateTime(range.start)) → \(dateTime(range.end)) \(name)"
    }

    private static func date(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }

    private static func formatter(_ zone: TimeZone, _ pattern: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = zone
        formatter.dateFormat = pattern
        return formatter
    }
}

/// `--tz`, shared by the commands that show times to people.
struct TimeZoneOptions: ParsableArguments {
    /// The zone's name.
    @Option(help: ArgumentHelp(
        "The IANA time zone times are shown in (default: STEPSYNC_TZ, else the system's); --json stays UTC.",
        valueName: "zone"))
    var tz: String?

    func validate() throws { _ = try displayTimeZone() }

    /// The zone these options choose.
    func displayTimeZone(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> DisplayTimeZone {
        try DisplayTimeZone.resolve(option: tz, environment: environment)
    }
}
