// The demo row of issue 14: `stepsync demo --types steps` run in this process exactly as the command runs — generate
// the realistic decade of step samples (seed 42, ten years ending today: ≈ 624,750 samples), layer it, start the
// bundled sink on loopback with durable acknowledgements, sync into it with 3 concurrent requests, check the sink's
// uuids against the store's. The figure is the process's peak resident set (`ru_maxrss`, what the demo's own
// `maxRSSMegabytes` reports): client, sink and store together. One iteration per process, so the peak is the demo's.
//
// Run: cd Benchmarks && swift package --disable-sandbox benchmark --target DemoBenchmarks
import Benchmark
import Foundation
import Issue14Support
import StepSyncCLI

let peakRSS = BenchmarkMetric.custom("peak RSS (MB)", polarity: .prefersSmaller, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    Benchmark("demo --types steps: peak memory (realistic decade, client, sink and store in one process)",
              configuration: .init(metrics: [.wallClock, .cpuTotal, peakRSS], timeUnits: .milliseconds,
                                   warmupIterations: 0, maxDuration: .seconds(300), maxIterations: 1)
    ) { benchmark in
        let start = ContinuousClock.now
        // Prints the demo's own JSON (samples, intervals, syncSeconds, maxRSSMegabytes, exact) on stdout; exits
        // non-zero, ending the run, unless the sink holds exactly the store's samples.
        await StepSyncCommand.main(["demo", "--types", "steps", "--json"])
        let seconds = Issue14.seconds(ContinuousClock.now - start)
        let megabytes = Issue14.peakResidentMegabytes()
        benchmark.measurement(peakRSS, Int(megabytes.rounded()))
        Issue14.record("demo", input: "stepsync demo --types steps (realistic, seed 42, 10 years ending today)",
                       ["peakRSSMB": megabytes, "seconds": seconds])
    }
}
