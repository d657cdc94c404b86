import ArgumentParser
import Foundation
import StepSyncCore
import StepSyncStore

extension StepSyncCommand {
    /// `stepsync generate`: fills the store with a deterministic synthetic history.
    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fill the sample store with a deterministic synthetic history: steps, or every type an iPhone and an Apple Watch record.",
            discussion: """
                The same --seed, --profile, --types, --years and --end always give the same samples (uuids, dates, \
                values); samples already in the store are skipped and counted as duplicates. Days are laid out in \
                Europe/Berlin time, daylight saving included. Everything is written in one transaction: an error \
                leaves the store as it was. --types steps (the default) gives exactly the step history of earlier \
                releases; each other type is drawn from its own random streams and follows the same days.

                Examples:
                  stepsync generate --years 10                # iPhone + Watch steps
                  stepsync generate --years 2 --types all     # every type
                  stepsync generate --types heart-rate,sleep,workouts --end 2025-06-30
                  stepsync generate --append-days 7           # up to today
                """)

        @OptionGroup var data: DataDirectoryOptions

        @OptionGroup var generation: GeneratorOptions
        var years: Int { generation.years }
        var seed: UInt64 { generation.seed }
        var profile: GeneratorProfile { generation.profile }
        var types: String { generation.types ?? "steps" }

        @Option(help: ArgumentHelp("The last day generated (inclusive), as YYYY-MM-DD. Defaults to today (UTC).", valueName: "date"))
        var end: String?

        @Option(name: .customLong("append-days"), help: ArgumentHelp(
            "Instead of a history, add this many new days after the store's last step sample, up to today (UTC).",
            discussion: "The days are those a longer history with the same seed and profile would hold; --years and --end do not apply. When the history already reaches today, nothing is generated and the command fails, saying so.",
            valueName: "n"))
        var appendDays: Int?

        @Flag(name: .customLong("allow-future"), help: "With --append-days or --end, generate samples after the current instant too (for tests).")
        var allowFuture = false

        @Flag(help: "Print one JSON object instead of progress and a summary (docs/json/generate.schema.json).")
        var json = false

        func validate() throws {
            if let end, CivilDate(iso: end) == nil {
                throw ValidationError("--end must be a date as YYYY-MM-DD (got '\(end.prefix(64))').")
            }
            if let appendDays {
                guard appendDays >= 1 else {
                    throw ValidationError("--append-days must be at least 1 (got \(appendDays)).")
                }
                guard end == nil else {
                    throw ValidationError("--append-days adds days after the store's last sample; it cannot be combined with --end.")
                }
            } else if allowFuture, end == nil {
                throw ValidationError("--allow-future only applies to --append-days or --end.")
            }
            _ = try Self.resolveTypes(types, profile: profile)
        }

        /// The last day to generate: --end, else today (UTC) as of `nowMs`.
        func endDate(nowMs: Int64) -> CivilDate { end.flatMap(CivilDate.init(iso:)) ?? Now.utcDate(nowMs) }

        func run() async throws {
            let selected = try Self.resolveTypes(types, profile: profile)
            let nowMs = try Now.ms()
            let today = Now.utcDate(nowMs)
            // Never a sample that ends after the current instant, unless asked for (tests).
            let cutoffMs: Int64? = allowFuture ? nil : nowMs
            let store = try data.openStore()
            let generator: SampleGenerator
            var requestedDays: Int?
            // The days reported: those after the stored history (a refilled last day is not counted).
            let reportedDays: ClosedRange<CivilDate>
            var refilled = 0
            if let appendDays {
                guard let bounds = try store.bounds(of: .stepCount) else {
                    throw ValidationError("--append-days needs step samples to follow, and \(store.path) holds none: run `stepsync generate` first.")
                }
                let lastDay = EuropeBerlinTime.localDate(atUTCMs: bounds.last)
                // A history generated in the past week may end at the instant it was generated, inside its last
                // day: the realistic profile's days do not depend on the range, so that day is generated again (what
                // is stored is skipped as duplicates) and so filled up to now.
                let recent: ClosedRange<CivilDate> = today.advanced(by: -7)...today.advanced(by: 1)
                let refill = profile == GeneratorProfile.realistic && !allowFuture && recent.contains(lastDay)
                let days: ClosedRange<CivilDate>
                if refill, lastDay >= today {
                    // Nothing after today: only the rest of the last day, up to now.
                    days = lastDay...lastDay
                    reportedDays = days
                } else {
                    let plan = try AppendDays(after: lastDay, count: appendDays, today: today, allowFuture: allowFuture)
                    reportedDays = plan.days
                    if refill {
                        days = lastDay...plan.days.upperBound
                        refilled = 1
                    } else {
                        days = plan.days
                    }
                }
                generator = SampleGenerator(profile: profile, seed: seed, days: days, types: selected, continuing: true)
                requestedDays = appendDays
            } else {
                generator = SampleGenerator(profile: profile, seed: seed, years: years, end: endDate(nowMs: nowMs), types: selected)
                reportedDays = generator.days
            }
            var outcome = try Self.generate(generator, into: store, progress: !json, notAfterMs: cutoffMs)
            outcome.days -= refilled
            if requestedDays != nil, outcome.summary.inserted == 0 {
                throw GenerateError.nothingAppended(days: generator.days, duplicates: outcome.summary.duplicates)
            }
            if json {
                try JSONOutput.print(JSONReport(
                    samples: outcome.summary.inserted, steps: Int64(outcome.summary.insertedSteps.rounded()),
                    duplicates: outcome.summary.duplicates, days: outcome.days,
                    firstDay: reportedDays.lowerBound.description, lastDay: reportedDays.upperBound.description,
                    profile: profile.rawValue, seed: seed, seconds: (outcome.seconds * 1000).rounded() / 1000,
                    samplesPerSecond: Int(outcome.samplesPerSecond), types: outcome.jsonTypes,
                    requestedDays: requestedDays))
            } else {
                var upToNow = ""
                if let cutoffMs { upToNow = " (up to now, \(ISO8601Millis.format(cutoffMs)))" }
                var lines = ["""
                    \(store.path): generated \(profile.rawValue) history, seed \(seed), \
                    \(reportedDays.lowerBound) … \(reportedDays.upperBound)\(upToNow)
                    """]
                if let requestedDays, outcome.days < requestedDays {
                    lines.append("(\(Format.number(outcome.days)) of the \(Format.number(requestedDays)) days asked for: "
                                 + "the rest would be after today, \(today) UTC)")
                }
                lines.append("""
                    samples:    \(Format.number(outcome.summary.inserted))
                    steps:      \(Format.number(outcome.summary.insertedSteps))
                    duplicates: \(Format.number(outcome.summary.duplicates)) (already stored, skipped)
                    days:       \(Format.number(outcome.days))
                    time:       \(Format.duration(outcome.seconds)) (\(Format.number(Int(outcome.samplesPerSecond))) samples/s)
                    """)
                if outcome.perType.count > 1 || outcome.perType.keys.first != .stepCount {
                    lines.append(outcome.typeTable())
                }
                print(lines.joined(separator: "\n"))
            }
        }

        /// The types `text` (`--types`) names for `profile`: `all` is every type the profile records; naming a type
        /// the profile does not record is an error.
        static func resolveTypes(_ text: String, profile: GeneratorProfile) throws -> Set<GeneratedType> {
            let named: Set<GeneratedType>
            switch GeneratedType.parseList(text) {
            case .success(let types): named = types
            case .failure(let unknown): throw ValidationError("--types: \(unknown)")
            }
            let saysAll = text.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "all" }
            if saysAll { return named.intersection(profile.types) }
            let missing = named.subtracting(profile.types)
            guard missing.isEmpty else {
                throw ValidationError("--types: the \(profile.rawValue) profile records step counts only (an iPhone, as the "
                                      + "original generator); \(missing.sorted().map(\.rawValue).joined(separator: ", ")) "
                                      + "need --profile realistic.")
            }
            return named
        }

        /// What one generation did.
        struct Outcome {
            var summary: InsertSummary
            /// Per type: samples inserted, duplicates, and the sum of the inserted values.
            var perType: [SampleType: TypeCount]
            var days: Int
            var seconds: Double
            var samplesPerSecond: Double { seconds > 0 ? Double(summary.inserted + summary.duplicates) / seconds : 0 }

            /// What was generated of one type.
            struct TypeCount {
                var inserted = 0
                var duplicates = 0
                var insertedSum = 0.0
            }

            /// `{"<identifier>": {"samples": n, "duplicates": n[, "steps": n]}, …}`.
            var jsonTypes: [String: JSONReport.TypeCount] {
                Dictionary(uniqueKeysWithValues: perType.map { type, count in
                    (type.rawValue, JSONReport.TypeCount(samples: count.inserted, duplicates: count.duplicates,
                                                         steps: type == .stepCount ? Int64(count.insertedSum.rounded()) : nil))
                })
            }

            /// One line per type: samples, duplicates, and the steps of step counts.
            func typeTable() -> String {
                let rows = perType.sorted { $0.key.shortName < $1.key.shortName }.map { type, count in
                    "  \(type.shortName.padding(toLength: 26, withPad: " ", startingAt: 0)) "
                        + "\(Format.number(count.inserted).leftPadded(to: 11)) samples"
                        + (count.duplicates > 0 ? ", \(Format.number(count.duplicates)) duplicates" : "")
                        + (type == .stepCount ? ", \(Format.number(count.insertedSum)) steps" : "")
                }
                return (["types:"] + rows).joined(separator: "\n")
            }
        }

        /// Writes every sample of `generator` into `store` in one transaction, reporting days done on stderr.
        /// Inserts `generator`'s samples into `store`, leaving out every sample that ends after `notAfterMs`.
        static func generate(_ generator: SampleGenerator, into store: StepStore, progress: Bool,
                             notAfterMs: Int64? = nil) throws -> Outcome {
            let cutoff = notAfterMs ?? .max
            var reporter = ProgressReporter(label: "days", enabled: progress, time: .system)
            let total = Int64(generator.dayCount)
            let ((days, perType), summary) = try store.insertSamples { inserter in
                var days = 0
                var perType: [SampleType: Outcome.TypeCount] = [:]
                for day in generator {
                    var index = 0
                    while index < day.count {
                        // A day's samples come sorted by time, so runs of one type are short: count per run.
                        let type = day[index].type
                        var count = perType[type] ?? Outcome.TypeCount()
                        while index < day.count, day[index].type == type {
                            if day[index].endMs > cutoff {
                                index += 1
                                continue
                            }
                            if try inserter.insert(day[index]) {
                                count.inserted += 1
                                count.insertedSum += day[index].value
                            } else {
                                count.duplicates += 1
                            }
                            index += 1
                        }
                        perType[type] = count
                    }
                    days += 1
                    reporter.update(done: Int64(days), total: total,
                                    detail: "\(Format.number(inserter.summary.inserted)) samples")
                }
                return (days, perType)
            }
            reporter.update(done: total, total: total, detail: "\(Format.number(summary.inserted)) samples", force: true)
            reporter.finish()
            return Outcome(summary: summary, perType: perType, days: days, seconds: reporter.elapsedSeconds)
        }
    }
}

extension String {
    /// The string right-aligned in `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
