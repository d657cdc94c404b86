import ArgumentParser
import StepSyncCore
import StepSyncEngine

/// `--concurrency`, `--max-in-flight` and `--request-samples`, shared by the commands that run the sync engine
/// (`sync`, `demo`).
struct SyncTuningOptions: ParsableArguments {
    /// The send lanes: requests in flight at first, and the fewest ever.
    @Option(help: ArgumentHelp(
        "The send lanes (1…64): requests in flight at first; each lane keeps more in flight as the round trip asks.",
        discussion: "The sync measures the link as it goes (the acknowledgement rate and the shortest round trip) and "
            + "lets each lane keep as many requests in flight as fill it: one on loopback, several over a long link "
            + "— at most --max-in-flight in all."))
    var concurrency = SyncRunMachine.Configuration.defaultConcurrency

    /// The most requests in flight at once (default: eight a lane).
    @Option(name: .customLong("max-in-flight"), help: ArgumentHelp(
        "The most requests in flight at once, however long the round trip (default: 8 × --concurrency; "
            + "= --concurrency: one request a lane).",
        valueName: "n"))
    var maxInFlight: Int?

    /// The most samples one packed request carries (0: one interval per request).
    @Option(name: .customLong("request-samples"), help: ArgumentHelp(
        "The most samples one request carries when it packs consecutive small intervals (0: one interval per request).",
        valueName: "n"))
    var requestSamples = SyncRunMachine.Configuration.defaultMaxSamplesPerRequest

    func validate() throws {
        guard (1...64).contains(concurrency) else {
            throw ValidationError("--concurrency must be between 1 and 64, not \(concurrency)")
        }
        if let maxInFlight, !(concurrency...512).contains(maxInFlight) {
            throw ValidationError(
                "--max-in-flight must be between --concurrency (\(concurrency)) and 512, not \(maxInFlight)")
        }
        guard requestSamples >= 0 else {
            throw ValidationError("--request-samples must be at least 0 (0: one interval per request), not \(requestSamples)")
        }
    }

    /// The run's settings these options make (``SyncRunMachine/Configuration`` clamps and defaults them), waiting
    /// for the sink by `outagePolicy`. `oneRequestPerLane`: without `--max-in-flight`, one request a lane (the demo's
    /// sink is in process on loopback: no link to fill, and the window would only add bodies in memory;
    /// Planning/sync.md, "In flight") rather than the window's default.
    func run(outagePolicy: SinkOutageMachine.Policy = .default, oneRequestPerLane: Bool = false)
        -> SyncRunMachine.Configuration {
        SyncRunMachine.Configuration(concurrency: concurrency,
                                     maxInFlight: maxInFlight ?? (oneRequestPerLane ? concurrency : nil),
                                     maxSamplesPerRequest: requestSamples, outagePolicy: outagePolicy)
    }
}
