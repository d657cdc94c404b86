import ArgumentParser
import Foundation
import StepSyncCore
import StepSyncStore

extension StepSyncCommand {
    /// `stepsync layer`: partitions the history of every sample type into bounded intervals and appends them to the
    /// ledger.
    struct Layer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Partition the history of every sample type into bounded sync intervals, from statistics queries only.",
            discussion: """
                Intervals are per type. Step-count intervals hold at most --max-steps steps and --max-samples \
                samples; every other type's intervals at most --max-samples samples (and, for a cumulative type such \
                as distance or energy, at most the sum given with --max-sum). An interval whose content cannot be \
                split (one sample over the limit, or more samples than the limit in one millisecond) is marked \
                oversize. Running it again layers only what changed since the previous run: samples after the \
                ledger's end become new intervals, samples added inside layered ranges become delta intervals, and \
                deletions become deletion intervals. Intervals already in the ledger, and their sync progress, are \
                never changed. The first run after `stepsync reset` also sends again every deletion the sink has \
                not acknowledged.
                Examples:
                  stepsync layer
                  stepsync layer --type StepCount --type HeartRate --max-samples 2000
                  stepsync layer --max-sum DistanceWalkingRunning=20 --json
                """)

        @OptionGroup var data: DataDirectoryOptions

        @Option(name: .customLong("type"),
                help: ArgumentHelp("Layer only this type (a short name such as HeartRate, or a HealthKit identifier); repeatable. Default: every type.",
                                   valueName: "type"))
        var types: [String] = []

        @Option(help: ArgumentHelp("The most steps a step-count interval may hold.", valueName: "n"))
        var maxSteps = 10_000

        @Option(help: ArgumentHelp("The most samples an interval of any type may hold.", valueName: "n"))
        var maxSamples = 5_000

        @Option(name: .customLong("max-sum"),
                help: ArgumentHelp("A sum limit for a cumulative type other than steps, as TYPE=N (e.g. DistanceWalkingRunning=20); repeatable.",
                                   valueName: "type=n"))
        var maxSums: [String] = []

        @Flag(help: "Print one JSON object instead of a summary.")
        var json = false

        func validate() throws {
            guard maxSteps > 0 else { throw ValidationError("--max-steps must be positive (got \(maxSteps)).") }
            guard maxSamples > 0 else { throw ValidationError("--max-samples must be positive (got \(maxSamples)).") }
            for entry in maxSums {
                let parts = entry.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, let value = Double(parts[1]), value > 0, value.isFinite else {
                    throw ValidationError("--max-sum \(String(entry.prefix(64))) is not TYPE=N with N > 0 (e.g. DistanceWalkingRunning=20).")
                }
            }
        }

        func run() async throws {
            let elapsed = TimeSource.system.stopwatch()
            let store = try data.openStore()
            let known = try store.sampleTypes()
            let selected = try SampleTypeArgument.resolve(types, among: known)
            SampleTypeArgument.noteMissing(selected, among: known)
            var sums: [SampleType: Double] = [:]
            for entry in maxSums {
                let parts = entry.split(separator: "=", maxSplits: 1)
                let type = try SampleTypeArgument.resolve(String(parts[0]), among: known, option: "--max-sum")
                let value = Double(parts[1])!
                if let problem = LayeringLimits.sumLimitProblem(type, value) {
                    throw ValidationError("--max-sum \(String(entry.prefix(64))): \(problem).")
                }
                sums[type] = value
            }
            let limits = LayeringLimits(maxSteps: Double(maxSteps), maxSamples: maxSamples, maxSums: sums)
            let report = try store.layer(types: selected, limits: limits)
            let seconds = elapsed().inSeconds
            let ledger = try store.ledgerSummary()
            let steps = report.plan[.stepCount]?.sampleIntervals ?? []
            let stepSum = steps.reduce(0.0) { $0 + $1.steps }
            let lowerBound = Int((stepSum / Double(maxSteps)).rounded(.up))
            let sampleIntervals = report.types.flatMap(\.sampleIntervals)

            if json {
                let largest = steps.max(by: { $0.steps < $1.steps })
                let first = sampleIntervals.map(\.range.start).min(), last = sampleIntervals.map(\.range.end).max()
                try JSONOutput.print(JSONReport(
                    intervals: report.intervals.count, totalIntervals: ledger.overall.intervals,
                    appended: report.appended, deltas: report.deltas, deletionIntervals: report.deletionIntervals,
                    deletedSamples: report.deletedSamples,
                    samples: sampleIntervals.reduce(0) { $0 + $1.samples }, oversize: sampleIntervals.filter(\.oversize).count,
                    queries: report.queries, maxSteps: maxSteps, maxSamples: maxSamples, lowerBound: lowerBound,
                    steps: stepSum, seconds: seconds, anchor: report.anchor, upToDate: report.upToDate,
                    types: Dictionary(uniqueKeysWithValues: report.types.map { ($0.type.rawValue, TypeReport($0)) }),
                    largestSteps: largest?.steps, start: first.map { ISO8601Millis.format($0) },
                    end: first == nil ? nil : last.map { ISO8601Millis.format($0) }))
                return
            }
            if report.types.isEmpty {
                print("The store holds no samples to layer. Fill it with `stepsync generate` or `stepsync import`.")
            } else if report.upToDate {
                print("The store has not changed since the last layering run: the ledger is unchanged "
                      + "(\(Format.number(ledger.overall.intervals)) intervals).")
            } else {
                print("layered \(Format.number(report.intervals.count)) new intervals "
                      + "(\(Format.number(ledger.overall.intervals)) in the ledger): \(Format.number(report.appended)) after the "
                      + "ledger's end, \(Format.number(report.deltas)) delta, \(Format.number(report.deletionIntervals)) "
                      + "deletion (\(Format.number(report.deletedSamples)) samples deleted)")
                print(Format.table(
                    header: ["type", "new", "backfill", "delta", "deletion", "samples", "sum", "oversize"],
                    rows: report.types.filter { !$0.intervals.isEmpty }.map { plan in
                        let intervals = plan.sampleIntervals
                        let sum = intervals.reduce(0.0) { $0 + $1.steps }
                        return [plan.type.shortName, Format.number(plan.intervals.count), Format.number(plan.appended),
                                Format.number(plan.deltas), Format.number(plan.deletionIntervals),
                                Format.number(intervals.reduce(0) { $0 + $1.samples }),
                                plan.type.kind == .cumulative ? Format.number(sum) : "",
                                Format.number(intervals.filter(\.oversize).count)]
                    }))
                if !steps.isEmpty {
                    print("steps: \(Format.number(stepSum)); lower bound ⌈steps ÷ \(Format.number(maxSteps))⌉ = "
                          + "\(Format.number(lowerBound)) intervals; largest interval: "
                          + "\(Format.number(steps.map(\.steps).max() ?? 0)) steps")
                }
            }
            print("statistics queries: \(report.queries), time: \(Format.duration(seconds))")
        }
    }
}
