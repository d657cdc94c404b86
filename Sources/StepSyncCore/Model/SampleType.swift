/// A HealthKit sample type identifier, such as `HKQuantityTypeIdentifierStepCount`.
///
/// The store keeps the identifier exactly as HealthKit (and Apple Health exports) spell it, so that
/// samples of any quantity or category type can live side by side.
public struct SampleType: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The HealthKit identifier, e.g. `HKQuantityTypeIdentifierStepCount`.
    public var rawValue: String

    /// Wraps a HealthKit identifier.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps a HealthKit identifier.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Step count (unit `count`): the type stepsync layers and syncs.
    public static let stepCount = SampleType("HKQuantityTypeIdentifierStepCount")
    /// Heart rate (unit `count/min`).
    public static let heartRate = SampleType("HKQuantityTypeIdentifierHeartRate")
    /// Walking and running distance (unit `km` or `mi`).
    public static let distanceWalkingRunning = SampleType("HKQuantityTypeIdentifierDistanceWalkingRunning")
    /// Active energy burned (unit `kcal` or `kJ`).
    public static let activeEnergyBurned = SampleType("HKQuantityTypeIdentifierActiveEnergyBurned")
    /// Sleep analysis, a category type (value is the category code).
    public static let sleepAnalysis = SampleType("HKCategoryTypeIdentifierSleepAnalysis")

    /// The identifier without its HealthKit prefix, for people: `StepCount`, `HeartRate`, `SleepAnalysis`, `Workout`,
    /// `WorkoutRoute`, `Electrocardiogram`.
    public var shortName: String {
        if rawValue == "HKWorkoutTypeIdentifier" { return "Workout" }
        if rawValue == "HKWorkoutRouteTypeIdentifier" { return "WorkoutRoute" }
        for prefix in ["HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKDataTypeIdentifier", "HKDataType",
                       "HKCorrelationTypeIdentifier"]
        where rawValue.hasPrefix(prefix) {
            return String(rawValue.dropFirst(prefix.count))
        }
        return rawValue
    }

    public var description: String { rawValue }

    public static func < (lhs: SampleType, rhs: SampleType) -> Bool { lhs.rawValue < rhs.rawValue }
}
