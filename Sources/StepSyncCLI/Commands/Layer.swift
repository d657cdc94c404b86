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
                marked oversize. Running it again appends intervals for samples later than the last interval only; \
                intervals already in the ledger, and their sync progress, are never changed. The limits apply to \
                the intervals a run creates.
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
            let from = try store.lastInterval(of: .stepCount)?.range.end
            let engine = LayeringEngine(maxSteps: Double(maxSteps), maxSamples: maxSamples)
            let result = try engine.layer(store.statisticsSource(for: .stepCount), type: .stepCount, from: from)
            try store.appendIntervals(result.intervals)
            let elapsed = clock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let ledger = try store.intervalSummary(of: .stepCount)
            let stored = try store.total(of: .stepCount, in: LayeringEngine.domain)
            // Samples outside every interval: recorded inside (or before) already-layered ranges after they were layered.
            let unlayered = stored.count - ledger.samples

            if json {
                var object: [String: Any] = [
                    "intervals": result.intervals.count, "totalIntervals": ledger.intervals,
                    "steps": result.steps, "samples": result.samples, "oversize": result.oversize,
                    "queries": result.queries, "seconds": seconds, "maxSteps": maxSteps, "maxSamples": maxSamples,
                    "lowerBound": Int((result.steps / Double(maxSteps)).rounded(.up)),
                    "unlayeredSamples": unlayered,
                ]
                if let largest = result.largest { object["largestSteps"] = largest.steps }
                if let range = result.range {
                    object["start"] = ISO8601Millis.format(range.start)
                    object["end"] = ISO8601Millis.format(range.end)
                }
                try JSONOutput.print(object)
            } else {
                if result.intervals.isEmpty {
                    print(from == nil ? "No step samples to layer." : "No new step samples since the last interval: the ledger is unchanged.")
                } else {
                    let range = result.range!
                    print("layered \(Format.number(result.intervals.count)) new intervals "
                          + "(\(Format.number(ledger.intervals)) in the ledger) from \(range)")
                    print("steps: \(Format.number(result.steps)) in \(Format.number(result.samples)) samples; "
                          + "lower bound ⌈steps ÷ \(Format.number(maxSteps))⌉ = "
                          + Format.number(Int((result.steps / Double(maxSteps)).rounded(.up))) + " intervals")
                    print("largest interval: \(Format.number(result.largest?.steps ?? 0)) steps; "
                          + "oversize: \(result.oversize)")
                }
                print("statistics queries: \(result.queries), time: \(Format.duration(seconds))")
            }
            if unlayered > 0 {
                FileHandle.standardError.write(Data("""
                    warning: \(unlayered) step samples lie inside or before already-layered ranges and are in no \
                    interval; `stepsync layer` only appends after the last interval.\n
                    """.utf8))
            }
        }
    }
}
