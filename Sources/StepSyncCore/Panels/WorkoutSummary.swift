import Foundation

/// One workout as the dashboard lists it (`GET /workouts?from=&to=&tz=`): read from a `HKWorkoutTypeIdentifier`
/// sample and its ``HealthSample/details`` (the importer's and the generator's layout:
/// `{"activityType":"HKWorkoutActivityTypeRunning","duration":1800,"totalDistance":5.2,"totalDistanceUnit":"km",
/// "totalEnergyBurned":410.5,"totalEnergyBurnedUnit":"kcal",…,"route":"/workout-routes/….gpx"}`).
///
/// Distances are given in **metres** (`distanceMeters`, from `km`, `m`, `cm`, `mi`, `yd`, `ft`) and energy in
/// **kilocalories** (`energyKilocalories`, from `kcal`, `Cal`, `cal`, `kJ`, `J`); a total that is absent or in
/// another unit is `null`. The duration is the details' `duration` (seconds), else the sample's value (also seconds).
/// `hasRoute` says whether the details name a route file (`GET /workouts/{uuid}/route` then answers it once its
/// parts are stored).
public struct WorkoutSummary: Hashable, Sendable {
    /// The workout's uuid.
    public var uuid: UUID
    /// Start (UTC ms).
    public var startMs: Int64
    /// End (UTC ms).
    public var endMs: Int64
    /// The activity type as HealthKit names it (`HKWorkoutActivityTypeRunning`), `nil` when unknown.
    public var activity: String?
    /// The duration in seconds.
    public var durationSeconds: Double
    /// The total distance in metres, when known.
    public var distanceMeters: Double?
    /// The total energy burned in kilocalories, when known.
    public var energyKilocalories: Double?
    /// Whether the details name a route.
    public var hasRoute: Bool
    /// The recording source.
    public var sourceName: String

    /// The summary of a workout sample (details that are not a JSON object are read as none).
    public init(_ sample: HealthSample) {
        let details = sample.details.flatMap { JSONValue(parsing: $0)?.object } ?? [:]
        func number(_ key: String) -> Double? {
            let double: Double
            switch details[key] {
            case .number(let value)?: double = value
            case .bool(let flag)?: double = flag ? 1 : 0
            default: return nil
            }
            return double.isFinite ? double : nil
        }
        uuid = sample.uuid
        startMs = sample.startMs
        endMs = sample.endMs
        activity = details["activityType"]?.string.map { String($0.prefix(128)) }
        durationSeconds = number("duration") ?? sample.value
        distanceMeters = number("totalDistance").flatMap { value in
            Self.metresPer[details["totalDistanceUnit"]?.string ?? ""].map { value * $0 }
        }
        energyKilocalories = number("totalEnergyBurned").flatMap { value in
            Self.kilocaloriesPer[details["totalEnergyBurnedUnit"]?.string ?? ""].map { value * $0 }
        }
        hasRoute = details["route"]?.string != nil
        sourceName = sample.sourceName
    }

    /// Metres per unit of distance HealthKit writes.
    static let metresPer: [String: Double] = ["km": 1000, "m": 1, "cm": 0.01, "mi": 1609.344, "yd": 0.9144, "ft": 0.3048]
    /// Kilocalories per unit of energy HealthKit writes (`Cal` is the food calorie, a kilocalorie).
    static let kilocaloriesPer: [String: Double] = ["kcal": 1, "Cal": 1, "cal": 0.001, "kJ": 1 / 4.184, "J": 1 / 4184]

    /// The summary as a compact JSON object: `{"uuid":…,"start":…,"end":…,"activity":…,"durationSeconds":…,
    /// "distanceMeters":…,"energyKilocalories":…,"hasRoute":…,"sourceName":…}`.
    public var json: String {
        "{\"uuid\":\"\(uuid.uuidString)\",\"start\":\"\(ISO8601Millis.format(startMs))\",\"end\":\"\(ISO8601Millis.format(endMs))\""
            + ",\"activity\":" + (activity.map(PanelJSON.quoted) ?? "null")
            + ",\"durationSeconds\":" + PanelJSON.number(durationSeconds)
            + ",\"distanceMeters\":" + PanelJSON.number(distanceMeters)
            + ",\"energyKilocalories\":" + PanelJSON.number(energyKilocalories)
            + ",\"hasRoute\":\(hasRoute),\"sourceName\":" + PanelJSON.quoted(sourceName) + "}"
    }

    /// The answer of `GET /workouts`: `{"tz":…,"from":…,"to":…,"workouts":[…]}`, the workouts in start order (then
    /// uuid).
    public static func listJSON(_ workouts: [WorkoutSummary], request: DailyStepsRequest?, timeZoneName: String) -> String {
        let sorted = workouts.sorted { ($0.startMs, $0.uuid.uuidString) < ($1.startMs, $1.uuid.uuidString) }
        var out = "{" + PanelJSON.rangeHead(timeZoneName: timeZoneName, from: request?.from, to: request?.to)
            + ",\"workouts\":["
        for (i, workout) in sorted.enumerated() {
            if i > 0 { out += "," }
            out += workout.json
        }
        return out + "]}"
    }
}
