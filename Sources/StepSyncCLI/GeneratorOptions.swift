import ArgumentParser
import StepSyncCore

/// `--years`, `--seed`, `--profile` and `--types`, shared by the commands that run the generator (`generate`, `demo`).
struct GeneratorOptions: ParsableArguments {
    /// How many years of history to generate.
    @Option(help: "How many years of history to generate (1…200), ending today or on generate's --end.")
    var years: Int = 10

    /// The seed every random choice derives from.
    @Option(help: "The seed every random choice derives from.")
    var seed: UInt64 = 42

    /// The generator's profile.
    @Option(help: "realistic: an iPhone and an Apple Watch recording the same walks (≈ 0.6 M step samples in ten years); seed: the density of the original HealthStepsSync generator (≈ 42,000 step samples, steps only).")
    var profile: GeneratorProfile = .realistic

    /// The types asked for, when given (each command has its own default).
    @Option(help: ArgumentHelp(
        "The types to generate: steps, all, or a comma-separated list (default: steps for generate, all for demo).",
        discussion: "Names: \(GeneratedType.allCases.map(\.rawValue).joined(separator: ", ")) (or HealthKit names such as HeartRate, SleepAnalysis, Workout). all = every type the profile records.",
        valueName: "types"))
    var types: String?

    func validate() throws {
        guard (1...200).contains(years) else { throw ValidationError("--years must be between 1 and 200, not \(years)") }
    }
}

extension GeneratorProfile: CaseInsensitiveArgument {}
