/// A sample type ``SampleGenerator`` can make, with the name `generate --types` and `demo --types` know it by.
///
/// | name | HealthKit type | recorded by |
/// |---|---|---|
/// | `steps` | `HKQuantityTypeIdentifierStepCount` (count) | iPhone, Apple Watch, manual entries |
/// | `distance` | `HKQuantityTypeIdentifierDistanceWalkingRunning` (km) | iPhone, Apple Watch: one per step sample |
/// | `heart-rate` | `HKQuantityTypeIdentifierHeartRate` (count/min) | Apple Watch, while worn |
/// | `hrv` | `HKQuantityTypeIdentifierHeartRateVariabilitySDNN` (ms), with beats | Apple Watch |
/// | `energy` | `HKQuantityTypeIdentifierActiveEnergyBurned` (kcal) | Apple Watch |
/// | `flights` | `HKQuantityTypeIdentifierFlightsClimbed` (count) | iPhone |
/// | `sleep` | `HKCategoryTypeIdentifierSleepAnalysis` (category codes) | Apple Watch |
/// | `mindful` | `HKCategoryTypeIdentifierMindfulSession` (code 0) | Apple Watch |
/// | `workouts` | `HKWorkoutTypeIdentifier` (s), with details | Apple Watch |
///
/// Each type is drawn from random streams of its own, so the samples of a type do not depend on which other types
/// are generated with it; ``steps`` alone is exactly the step history of earlier releases.
public enum GeneratedType: String, CaseIterable, Sendable, Comparable, CustomStringConvertible {
    /// Step counts.
    case steps
    /// Walking and running distance.
    case distance
    /// Heart rate.
    case heartRate = "heart-rate"
    /// Heart rate variability (SDNN).
    case heartRateVariability = "hrv"
    /// Active energy burned.
    case activeEnergy = "energy"
    /// Flights climbed.
    case flights
    /// Sleep analysis.
    case sleep
    /// Mindful sessions.
    case mindful
    /// Workouts.
    case workouts

    /// The HealthKit type of the samples.
    public var sampleType: SampleType {
        switch self {
        case .steps: .stepCount
        case .distance: .distanceWalkingRunning
        case .heartRate: .heartRate
        case .heartRateVariability: SampleType("HKQuantityTypeIdentifierHeartRateVariabilitySDNN")
        case .activeEnergy: .activeEnergyBurned
        case .flights: SampleType("HKQuantityTypeIdentifierFlightsClimbed")
        case .sleep: .sleepAnalysis
        case .mindful: SampleType("HKCategoryTypeIdentifierMindfulSession")
        case .workouts: .workout
        }
    }

    /// The unit of the samples' values.
    public var unit: String {
        switch self {
        case .steps, .flights: "count"
        case .distance: "km"
        case .heartRate: "count/min"
        case .heartRateVariability: "ms"
        case .activeEnergy: "kcal"
        case .sleep, .mindful: ""
        case .workouts: "s"
        }
    }

    /// The type `name` names: ``rawValue`` (`heart-rate`), the HealthKit short name (`HeartRate`, `Workout`) or the
    /// full identifier, case-insensitive; `nil` for anything else.
    public init?(name: some StringProtocol) {
        let wanted = name.lowercased()
        guard let match = Self.allCases.first(where: { type in
            type.rawValue == wanted || type.sampleType.rawValue.lowercased() == wanted
                || type.sampleType.shortName.lowercased() == wanted
                || (type == .workouts && wanted == "workout")
        }) else { return nil }
        self = match
    }

    /// The types a comma-separated list names (`steps`, `all`, `heart-rate,sleep,Workout`).
    ///
    /// - Returns: the types, or the first name that names none (cut to 64 characters).
    public static func parseList(_ list: String) -> Result<Set<GeneratedType>, UnknownName> {
        var types: Set<GeneratedType> = []
        for part in list.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingSpaces()
            if name.lowercased() == "all" {
                types.formUnion(allCases)
            } else if let type = GeneratedType(name: name) {
                types.insert(type)
            } else {
                return .failure(UnknownName(name: String(name.prefix(64))))
            }
        }
        return types.isEmpty ? .failure(UnknownName(name: list)) : .success(types)
    }

    /// A name in a `--types` list that names no type.
    public struct UnknownName: Error, Hashable, Sendable, CustomStringConvertible {
        /// The name (at most 64 characters).
        public let name: String
        public var description: String {
            "'\(name)' is not a type the generator makes; give all, or some of: "
                + GeneratedType.allCases.map(\.rawValue).joined(separator: ", ")
        }
    }

    public var description: String { rawValue }

    public static func < (lhs: GeneratedType, rhs: GeneratedType) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
