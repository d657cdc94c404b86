import ArgumentParser
import Foundation
import StepSyncCore
import StepSyncStore

/// `stepsync stats --daily`: daily step totals that count a walk recorded by the iPhone and the Watch once, from the
/// store, with the function the sink answers `GET /steps/daily` with (``DailyStepTotals``).
struct DailyStatsOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(
        "Print daily step totals without double counting (one source per moment, by --priority).",
        discussion: """
            Every local day from --from to --to (inclusive, at most 3,700 days), with overlapping samples of \
            lower-priority devices counted only where no higher-priority device recorded. Without --from/--to: the \
            30 days ending on the day of the newest step sample. The JSON is the sink's GET /steps/daily answer.
            Example: stepsync stats --daily --from 2025-05-01 --to 2025-05-31 --tz Europe/Berlin \
            --priority "Apple Watch,iPhone" --json
            """))
    var daily = false

    @Option(help: ArgumentHelp("The first day, YYYY-MM-DD (with --daily).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("The last day, YYYY-MM-DD (with --daily; default: the day of the newest step sample).",
                               valueName: "date"))
    var to: String?

    @Option(help: ArgumentHelp(
        "The IANA time zone of the days with --daily, and of the dates in the table (default: STEPSYNC_TZ, else the system's); --json stays UTC.",
        valueName: "zone"))
    var tz: String?

    @Option(help: ArgumentHelp(
        "Device names, highest priority first, comma-separated, any case (with --daily; default: \"Apple Watch,iPhone\").",
        valueName: "names"))
    var priority: String?

    func validate() throws {
        guard daily || (from == nil && to == nil && priority == nil) else {
            throw ValidationError("--from, --to and --priority go with --daily.")
        }
        do {
            _ = try from.map { try DailyStepsRequest.parseDate($0, parameter: "--from") }
            _ = try to.map { try DailyStepsRequest.parseDate($0, parameter: "--to") }
            _ = try tz.map { try DailyStepsRequest.parseTimeZone($0, parameter: "--tz") }
            _ = try priority.map { try DevicePriority.parse($0, parameter: "--priority") }
            if let from, let to {
                // --to before --from, or too long a span: refused before any data directory is looked at.
                _ = try DailyStepsRequest(
                    from: DailyStepsRequest.parseDate(from, parameter: "--from"),
                    to: DailyStepsRequest.parseDate(to, parameter: "--to"), timeZoneName: "UTC",
                    priority: .default, parameters: .options)
            }
        } catch let error as DailyStepsError {
            throw ValidationError(error.description)
        }
    }

    /// The request these options make against `store`: missing dates default from its newest step sample.
    func request(store: StepStore, environment: [String: String] = ProcessInfo.processInfo.environment,
                 time: TimeSource) throws -> DailyStepsRequest {
        do {
            let (zoneName, zoneParameter): (String, String) =
                if let tz { (tz, "--tz") }
                else if let name = environment["STEPSYNC_TZ"] { (name, "STEPSYNC_TZ") }
                else { (TimeZone.current.identifier, "the system time zone") }
            let zone = try DailyStepsRequest.parseTimeZone(zoneName, parameter: zoneParameter)
            let first = try from.map { try DailyStepsRequest.parseDate($0, parameter: "--from") }
            let last: CivilDate
            if let to {
                last = try DailyStepsRequest.parseDate(to, parameter: "--to")
            } else {
                // The day of the newest step sample (today in an empty store), but not before --from.
                let newest = CivilDate.local(ofMs: try store.bounds(of: .stepCount)?.last ?? time.nowMs(), in: zone)
                last = first.map { max($0, newest) } ?? newest
            }
            return try DailyStepsRequest(
                from: first ?? last.advanced(by: -29), to: last, timeZoneName: zoneName,
                priority: try priority.map { try DevicePriority.parse($0, parameter: "--priority") } ?? .default,
                parameters: .options)
        } catch let error as DailyStepsError {
            throw ValidationError(error.description)
        }
    }

    /// Prints the totals: the sink's JSON with `json`, else a table and the total.
    func run(store: StepStore, json: Bool) throws {
        let request = try request(store: store, time: .system)
        let result = try store.dailyStepTotals(request)
        if json {
            print(result.json)
            return
        }
        print("Daily steps in \(request.timeZoneName), counting one device at a time (priority: \(request.priority)):")
        let rows = result.days.map { day in [day.date.description, Format.number(day.steps)] }
        print(Format.table(header: ["date", "steps"], rows: rows))
        print("total: \(Format.number(result.totalSteps)) steps in \(result.days.count) days")
        if !result.unmatched.isEmpty, priority != nil {
            FileHandle.standardError.write(Data("""
                warning: --priority names no device of these days: \(result.unmatched.joined(separator: ", ")) \
                (device names are matched case-insensitively; check the spelling against stepsync stats)

                """.utf8))
        }
    }


}
