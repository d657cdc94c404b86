/// How the values of a sample type add up, which decides how it is bounded, summarised and totalled.
///
/// HealthKit calls this the aggregation style: the values of a **cumulative** type add up over time (steps,
/// distance, energy, flights climbed, dietary intake), so a sum means something; a **discrete** type is a reading at
/// a moment (heart rate, HRV, weight, SpO₂, body temperature), so count, minimum, average and maximum mean something
/// and a sum does not; a **category** type holds a code over a span (sleep stages, mindful minutes, events), so a count
/// and a total duration mean something; a **workout** holds its details (activity, duration, totals) in
/// ``HealthSample/details``.
public enum SampleKind: String, CaseIterable, Codable, Hashable, Sendable {
    /// Values add up over time (a sum is meaningful).
    case cumulative
    /// A reading at a moment (count, min, average, max are meaningful).
    case discrete
    /// A category code over a span (count and total duration are meaningful).
    case category
    /// A workout (`HKWorkoutTypeIdentifier`).
    case workout
    /// A part of a series attached to another record: a workout route's GPS points (``RoutePart``), an ECG's
    /// voltages (``ElectrocardiogramPart``). Its value is the part's point count, so a sum counts points.
    case series
}

extension SampleType {
    /// Workouts (`HKWorkoutTypeIdentifier`): stored as samples whose ``HealthSample/details`` hold activity type,
    /// duration, totals, statistics and events; their value is the duration in seconds (unit `s`).
    public static let workout = SampleType("HKWorkoutTypeIdentifier")

    /// How this type's values add up. Unknown quantity types are taken as discrete (a sum is then never shown),
    /// which is the safe side.
    public var kind: SampleKind {
        let raw = rawValue
        if raw == SampleType.workout.rawValue { return .workout }
        if raw == SampleType.workoutRoute.rawValue || raw == SampleType.electrocardiogram.rawValue { return .series }
        if raw.hasPrefix("HKCategoryTypeIdentifier") { return .category }
        if raw.hasPrefix("HKQuantityTypeIdentifier") {
            let name = raw.dropFirst("HKQuantityTypeIdentifier".count)
            if name.hasPrefix("Dietary") || name.hasPrefix("Distance") || Self.cumulativeNames.contains(String(name)) {
                return .cumulative
            }
        }
        return .discrete
    }

    /// Cumulative quantity types besides `Dietary*` and `Distance*` (HealthKit's `HKQuantityAggregationStyle
    /// .cumulative`), without their `HKQuantityTypeIdentifier` prefix.
    static let cumulativeNames: Set<String> = [
        "StepCount", "ActiveEnergyBurned", "BasalEnergyBurned", "FlightsClimbed", "NikeFuel", "AppleExerciseTime",
        "AppleMoveTime", "AppleStandTime", "PushCount", "SwimmingStrokeCount", "NumberOfTimesFallen", "InhalerUsage",
        "InsulinDelivery", "NumberOfAlcoholicBeverages", "UVExposure", "TimeInDaylight",
    ]
}
