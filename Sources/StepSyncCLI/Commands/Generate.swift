import ArgumentParser
import Foundation
import StepSyncCore
import StepSyncStore

extension GeneratorProfile: ExpressibleByArgument {}

extension StepSyncCommand {
    /// `stepsync generate`: fills the store with a deterministic synthetic history of step samples.
    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fill the sample store with a deterministic synthetic history of step samples.",
            discussion: """
                The same --seed, --profile, --years and --end always give the same samples (uuids, dates, values); \
                samples already in the store are skipped and counted as duplicates. Days are laid out in \
                Europe/Berlin time, daylight saving included. Everything is written in one transaction: an error \
                leaves the store as it was.
                """)

        @OptionGroup var data: DataDirectoryOptions

        @Option(help: "How many years of history to generate, ending on --end.")
        var years: Int = 10

        @Option(help: "The seed every random choice derives from.")
        var seed: UInt64 = 42

        @Option(help: "realistic: an iPhone and an Apple Watch recording the same walks (≈ 0.6 M samples in ten years); seed: the density of the original HealthStepsSync generator (≈ 42,000 samples).")
        var profile: GeneratorProfile = .realistic

        @Option(help: ArgumentHelp("The last day generated (inclusive), as YYYY-MM-DD. Defaults to today (UTC).", valueName: "date"))
        var end: String?

        @Option(name: .customLong("append-days"), help: ArgumentHelp(
            "Instead of a history, add this many new days after the store's last step sample.",
            discussion: "The days are those a longer history with the same seed and profile would hold; --years and --end do not apply.",
            valueName: "n"))
        var appendDays: Int?

        @Flag(help: "Print one JSON object instead of progress and a summary.")
        var json = false

        func validate() throws {
            guard years >= 1 else {
                throw ValidationError("--years must be at least 1 (got \(years)).")
            }
            guard years <= 200 else {
                throw ValidationError("--years must be at most 200 (got \(years)).")
            }
            if let end, CivilDate(iso: end) == nil {
                throw ValidationError("--end must be a date as YYYY-MM-DD (got '\(end)').")
            }
            if let appendDays {
                guard appendDays >= 1 else {
                    throw ValidationError("--append-days must be at least 1 (got \(appendDays)).")
                }
                guard end == nil else {
                    throw ValidationError("--append-days adds days after the store's last sample; it cannot be combined with --end.")
                }
            }
        }

        /// The last day to generate.
        var endDate: CivilDate { end.flatMap(CivilDate.init(iso:)) ?? .today() }

        func run() async throws {
            let store = try data.openStore()
            let generator: SampleGenerator
            if let appendDays {
                guard let bounds = try store.bounds(of: .stepCount) else {
                    throw ValidationError("--append-days needs step samples to follow, and \(store.path) holds none: run `stepsync generate` first.")
                }
                let first = EuropeBerlinTime.localDate(atUTCMs: bounds.last).advanced(by: 1)
                generator = SampleGenerator(profile: profile, seed: seed, days: first...first.advanced(by: appendDays - 1))
            } else {
                generator = SampleGenerator(profile: profile, seed: seed, years: years, end: endDate)
            }
            let outcome = try Self.generate(generator, into: store, progress: !json)
            if json {
                try JSONOutput.print([
                    "samples": outcome.summary.inserted,
                    "steps": Int64(outcome.summary.insertedSteps.rounded()),
                    "duplicates": outcome.summary.duplicates,
                    "days": outcome.days,
                    "first": generator.days.lowerBound.description,
                    "last": generator.days.upperBound.description,
                    "profile": profile.rawValue,
                    "seed": seed,
                    "seconds": (outcome.seconds * 1000).rounded() / 1000,
                    "samplesPerSecond": Int(outcome.samplesPerSecond),
                ] as [String: Any])
            } else {
                print("""
                    \(store.path): generated \(profile.rawValue) history, seed \(seed), \
                    \(generator.days.lowerBound) … \(generator.days.upperBound)
                    samples:    \(Format.number(outcome.summary.inserted))
                    steps:      \(Format.number(outcome.summary.insertedSteps))
                    duplicates: \(Format.number(outcome.summary.duplicates)) (already stored, skipped)
                    days:       \(Format.number(outcome.days))
                    time:       \(Format.duration(outcome.seconds)) (\(Format.number(Int(outcome.samplesPerSecond))) samples/s)
                    """)
            }
        }

        /// What one generation did.
        struct Outcome {
            var summary: InsertSummary
            var days: Int
            var seconds: Double
            var samplesPerSecond: Double { seconds > 0 ? Double(summary.inserted + summary.duplicates) / seconds : 0 }
        }

        /// Writes every sample of `generator` into `store` in one transaction, reporting days done on stderr.
        static func generate(_ generator: SampleGenerator, into store: StepStore, progress: Bool) throws -> Outcome {
            var reporter = ProgressReporter(label: "days", enabled: progress)
            let total = Int64(generator.dayCount)
            let (days, summary) = try store.insertSamples { inserter in
                var days = 0
                for day in generator {
                    for sample in day { try inserter.insert(sample) }
                    days += 1
                    reporter.update(done: Int64(days), total: total,
                                    detail: "\(Format.number(inserter.summary.inserted)) samples")
                }
                return days
            }
            reporter.update(done: total, total: total, detail: "\(Format.number(summary.inserted)) samples", force: true)
            reporter.finish()
            return Outcome(summary: summary, days: days, seconds: reporter.elapsedSeconds)
        }
    }
}
