import Foundation

/// Reads one entry of `data.workouts` into a `HKWorkoutTypeIdentifier` sample and its heart-rate samples.
///
/// Version 2: `id` **is** the workout's uuid; version 1 has none and gets one derived from its name, start and end
/// (``HAEPointIdentity/workoutUUID(name:startMs:endMs:)``). `name` → `activityType` (`Traditional Strength Training`
/// → `HKWorkoutActivityTypeTraditionalStrengthTraining`); the value is `duration` in seconds (unit `s`, as the
/// importer stores a workout), else end − start; `distance` and `activeEnergyBurned` (v1: `totalEnergy`) go into the
/// details as `totalDistance`/`totalEnergyBurned` with their units as sent (mi, km, m, yd, ft; kcal, kJ), which
/// `/workouts` converts to metres and kilocalories as HealthKit would. `heartRateData` and `heartRateRecovery` points
/// are heart-rate samples, read as metric points are; `route` becomes the workout's route parts (``HAERouteReader``),
/// and the details then name `"route":"health-auto-export"` (so `/workouts` says `hasRoute`).
struct HAEWorkoutReader {
    let reader: HAEPayloadReader

    func read(_ value: JSONValue, at i: Int, into reading: inout HAEReading) throws(HAEPayloadError) {
        let field = "data.workouts[\(i)]"
        guard let workout = value.object else { throw HAEPayloadError(field: field, "is not an object") }
        let name = workout["name"]?.string.map { String($0.prefix(128)) } ?? "Other"
        guard let start = workout["start"]?.string.flatMap(HAEDate.parse),
              let end = workout["end"]?.string.flatMap(HAEDate.parse) else {
            return reading.skip("workouts", i, "unreadableDate")
        }
        let uuid: UUID
        if let id = workout["id"]?.string {
            guard let parsed = UUID(uuidString: id) else { return reading.skip("workouts", i, "invalidValue") }
            uuid = parsed
        } else {
            uuid = HAEPointIdentity.workoutUUID(name: name, startMs: start.ms, endMs: end.ms)
        }
        let duration = workout["duration"]?.number ?? Double(end.ms - start.ms) / 1000
        var details: [UInt8] = [UInt8(ascii: "{")]
        let activity = "HKWorkoutActivityType" + name.filter { $0.isLetter || $0.isNumber }
        JSONBytes.member("activityType", string: activity, to: &details)
        JSONBytes.member("duration", number: duration.isFinite ? duration : 0, to: &details)
        for (keys, amount, unit) in [(["distance", "totalDistance"], "totalDistance", "totalDistanceUnit"),
                                     (["activeEnergyBurned", "totalEnergy", "activeEnergy"], "totalEnergyBurned",
                                      "totalEnergyBurnedUnit")] {
            guard let (qty, units) = keys.lazy.compactMap({ Self.quantity(workout[$0]) }).first else { continue }
            JSONBytes.separator(&details)
            JSONBytes.appendKey(amount, to: &details)
            JSONBytes.appendNumber(qty, to: &details)
            JSONBytes.separator(&details)
            JSONBytes.appendKey(unit, to: &details)
            JSONBytes.appendString(units, to: &details)
        }
        let route = (workout["route"]?.array).map {
            HAERouteReader.points($0, metric: "workouts[\(i)].route", into: &reading)
        } ?? []
        if !route.isEmpty { JSONBytes.member("route", string: "health-auto-export", to: &details) }
        details.append(UInt8(ascii: "}"))
        let source = HAEPayloadReader.source(workout)
        guard var sample = reader.sample(type: .workout, startMs: start.ms, endMs: end.ms, offset: start.offsetSeconds,
                                         value: duration, unit: "s", source: source, role: "", metric: "workouts",
                                         index: i, into: &reading, uuid: uuid) else { return }
        sample.details = String(decoding: details, as: UTF8.self)
        reading.samples.append(sample)
        reading.samples += HAERouteReader.samples(route, workout: sample)
        var cursor = HAEBodyCursor()
        for key in ["heartRateData", "heartRateRecovery"] {
            guard let points = workout[key]?.array else { continue }
            for (k, point) in points.enumerated() {
                guard let point = point.object else {
                    throw HAEPayloadError(field: "\(field).\(key)[\(k)]", "is not an object")
                }
                reader.readPoint(HAEPoint(point), .init(type: .heartRate, units: HAEMetricTable.unit("bpm")),
                                 metric: "workouts[\(i)].\(key)", index: k, cursor: &cursor, into: &reading)
            }
        }
    }

    /// A `{qty, units}` quantity with a finite, non-negative `qty`.
    static func quantity(_ value: JSONValue?) -> (Double, String)? {
        guard let object = value?.object, let qty = object["qty"]?.number, qty.isFinite,
              qty >= 0 else { return nil }
        return (qty, String((object["units"]?.string ?? "").prefix(16)))
    }
}
