/// Which kind of synthetic history ``SampleGenerator`` produces.
public enum GeneratorProfile: String, CaseIterable, Sendable {
    /// An iPhone and an Apple Watch recording the same walks, across workdays, weekends, holidays, sick days,
    /// months without a Watch and days the phone stayed home, plus occasional manual entries: 100–300 samples on a
    /// dense day, roughly 0.5–1 million samples in ten years.
    case realistic
    /// The density of the original HealthStepsSync generator, so figures compare with its published ones: 10–30
    /// samples a day in recorded stretches of 30–180 days separated by gaps of 14–180 days, about 42,000 samples
    /// and 18 million steps in ten years.
    case seed

    /// The types the profile records: every ``GeneratedType`` for `realistic`, step counts alone for `seed` (an
    /// iPhone, as the original generator).
    public var types: Set<GeneratedType> {
        switch self {
        case .realistic: Set(GeneratedType.allCases)
        case .seed: [.steps]
        }
    }
}
