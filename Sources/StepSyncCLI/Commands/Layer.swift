import ArgumentParser
import Foundation
import StepSyncCore
import StepSyncStore

extension StepSyncCommand {
    /// `stepsync layer`: partitions the step history into ≤ `--max-steps` intervals and appends them to the ledger.
    struct Layer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Partition the step history into bounded sync intervals, from statistics queries only.",
            discussion: """
                Every interval holds at most --max-steps steps and --max-samples samples, unless its content cannot \
                be split (one sample over the limit, or more samples than the limit in one millisecond): it is then \
                marked oversize. Running it again layers only what changed since the previous run: samples after the \
                ledger's end become new intervals, samples added inside layered ranges become delta intervals, and \
                deletions become deletion intervals. Intervals already in the ledger, and their sync progress, are \
                never changed. The limits apply to the intervals a run creates.
                Examples:
                  stepsync layer
                  stepsync layer --max-steps 5000 --json
                """)

        @OptionGroup var data: DataDirectoryOptions

        @Option(help: ArgumentHelp("The most steps an interval may hold.", valueName: "n"))
        var maxSteps = 10_000

        @Option(help: ArgumentHelp("The most samples an interval may hold.", valueName: "n"))
        var maxSamples = 5_000

        @Flag(help: "Print one JSON object instead of a summary.")
        var json = false

        func validate() throws {
            guard maxSteps > 0 else { throw ValidationError("--max-steps must be positive (got \(maxSteps)).") }
            guard maxSamples > 0 else { throw ValidationError("--max-samples must be positive (got \(maxSamples)).") }
        }

        func run() async throws {
            let clock = ContinuousClock()
            let started = clock.now
            let store = try data.openStore()
            let engine = LayeringEngine(maxSteps: Double(maxSteps), maxSamples: maxSamples)
            let report = try store.layer(type: .stepCount, engine: engine)
            let elapsed = clock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let ledger = try store.intervalSummary(of: .stepCount)
            let sampleIntervals = report.intervals.filter { $0.kind == .samples }
            let steps = sampleIntervals.reduce(0.0) { $0 + $1.steps }
            let samples = sampleIntervals.reduce(0) { $0 + $1.samples }
            let oversize = sampleIntervals.filter(\.oversize).count
            let largest = sampleIntervals.max { $0.steps < $1.steps }
            let lowerBound = Int((steps / Double(maxSteps)).rounded(.up))

            if json {
                var object: [String: Any] = [
                    "intervals": report.intervals.count, "totalIntervals": ledger.intervals,
                    "appended": report.appended, "deltas": report.deltas,
                    "deletionIntervals": report.deletionIntervals, "deletedSamples": report.deletedSamples,
                    "steps": steps, "samples": samples, "oversize": oversize,
                    "queries": report.queries, "seconds": seconds, "maxSteps": maxSteps, "maxSamples": maxSamples,
                    "lowerBound": lowerBound, "anchor": report.anchor, "upToDate": report.upToDate,
                ]
                if let largest { object["largestSteps"] = largest.steps }
                if let first = sampleIntervals.map(\.range.start).min(), let last = sampleIntervals.map(\.range.end).max() {
                    object["start"] = ISO8601Millis.format(first)
                    object["end"] = ISO8601Millis.format(last)
                }
                try JSONOutput.print(object)
                return
            }
            if report.upToDate {
                print("The store has not changed since the last layering run: the ledger is unchanged "
                      + "(\(Format.number(ledger.intervals)) intervals).")
            } else if report.intervals.isEmpty {
                print("No step samples to layer.")
            } else {
                print("layered \(Format.number(report.intervals.count)) new intervals "
                      + "(\(Format.number(ledger.intervals)) in the ledger): \(Format.number(report.appended)) after the "
                      + "ledger's end, \(Format.number(report.deltas)) delta, \(Format.number(report.deletionIntervals)) "
                      + "deletion (\(Format.number(report.deletedSamples)) samples deleted)")
                print("steps: \(Format.number(steps)) in \(Format.number(samples)) samples; "
                      + "lower bound ⌈steps ÷ \(Format.number(maxSteps))⌉ = \(Format.number(lowerBound)) intervals")
                print("largest interval: \(Format.number(largest?.steps ?? 0)) steps; oversize: \(oversize)")
            }
            print("statistics queries: \(report.queries), time: \(Format.duration(seconds))")
        }
    }
}
