/// HealthKit's sleep-analysis category codes (`HKCategoryValueSleepAnalysis`), as the exporter and the generator
/// (`SleepNight`) store them in a `HKCategoryTypeIdentifierSleepAnalysis` sample's value.
public enum SleepStage: Int, CaseIterable, Hashable, Sendable {
    /// In bed (awake or asleep): the whole time in bed, overlapping the stages.
    case inBed = 0
    /// Asleep, stage unknown (watchOS before 9, third-party apps).
    case asleepUnspecified = 1
    /// Awake during the night.
    case awake = 2
    /// Core (light) sleep.
    case asleepCore = 3
    /// Deep sleep.
    case asleepDeep = 4
    /// REM sleep.
    case asleepREM = 5

    /// The stage's key in `GET /sleep/nights` (`inBed`, `asleepCore`, …).
    public var key: String {
        switch self {
        case .inBed: "inBed"
        case .asleepUnspecified: "asleepUnspecified"
        case .awake: "awake"
        case .asleepCore: "asleepCore"
        case .asleepDeep: "asleepDeep"
        case .asleepREM: "asleepREM"
        }
    }

    /// Whether the stage is sleep (unspecified, core, deep, REM).
    public var isAsleep: Bool { self != .inBed && self != .awake }
}
