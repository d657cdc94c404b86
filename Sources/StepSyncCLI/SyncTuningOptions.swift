import ArgumentParser
import StepSyncEngine

/// `--concurrency` and `--request-samples`, shared by the commands that run the sync engine (`sync`, `demo`).
struct SyncTuningOptions: ParsableArguments {
    /// The most intervals in flight at once.
    @Option(help: "The most intervals in flight at once (1…64).")
    var concurrency = 3

    /// The most samples one packed request carries (0: one interval per request).
    @Option(name: .customLong("request-samples"), help: ArgumentHelp(
        "The most samples one request carries when it packs consecutive small intervals (0: one interval per request).",
        valueName: "n"))
    var requestSamples = SyncConfiguration.defaultMaxSamplesPerRequest

    func validate() throws {
        guard (1...64).contains(concurrency) else {
            throw ValidationError("--concurrency must be between 1 and 64, not \(concurrency)")
        }
        guard requestSamples >= 0 else {
            throw ValidationError("--request-samples must be at least 0 (0: one interval per request), not \(requestSamples)")
        }
    }
}
