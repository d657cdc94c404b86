import ArgumentParser
import StepSyncCore

/// `--seed` and `--profile`, shared by the commands that run the generator (`generate`, `demo`).
struct GeneratorOptions: ParsableArguments {
    /// The seed every random choice derives from.
    @Option(help: "The seed every random choice derives from.")
    var seed: UInt64 = 42

    /// The generator's profile.
    @Option(help: "realistic: an iPhone and an Apple Watch recording the same walks (≈ 0.6 M step samples in ten years); seed: the density of the original HealthStepsSync generator (≈ 42,000 step samples, steps only).")
    var profile: GeneratorProfile = .realistic
}

extension GeneratorProfile: CaseInsensitiveArgument {}
