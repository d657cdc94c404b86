import ArgumentParser
import StepSyncCore

/// `--from`, `--to` and `--tz`, shared by the commands that pick samples by their start (`export`, `delete`): each
/// bound an ISO-8601 instant or a day `YYYY-MM-DD` in `--tz` (`--to` including its whole day), read by
/// ``ExportRange`` as the sink's `from`/`to` are.
struct StartRangeOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Samples starting at or after this ISO-8601 instant, or from the start of this day (YYYY-MM-DD, in --tz).",
        valueName: "date|instant"))
    var from: String?

    @Option(help: ArgumentHelp(
        "Samples starting before this ISO-8601 instant, or up to the end of this day (YYYY-MM-DD, in --tz).",
        valueName: "date|instant"))
    var to: String?

    @Option(help: ArgumentHelp(
        "The IANA time zone of --from/--to days and of the range shown (default: STEPSYNC_TZ, else the system's); --json and the rows stay UTC.",
        valueName: "zone"))
    var tz: String?

    /// Whether `--from` or `--to` is given.
    var isGiven: Bool { from != nil || to != nil }

    /// The zone `--tz` (else `STEPSYNC_TZ`, else the system's) names; read only when a bound is given.
    func zone() throws -> DisplayTimeZone { try DisplayTimeZone.resolve(option: tz) }

    /// The start range the bounds name (open on a side not given), or `nil` when neither is.
    ///
    /// - Throws: `ValidationError` naming the bound or the zone that is not one.
    func range() throws -> TimeRange? {
        guard isGiven else { return nil }
        let zone = try zone().zone
        do {
            return try ExportRange.parse(from: from, to: to, timeZone: zone, names: ("--from", "--to"))
        } catch {
            throw ValidationError(error.description)
        }
    }
}
