/// Reads a workout's `route` into the same series parts an imported GPX becomes (``RoutePart``, samples of
/// `HKWorkoutRouteTypeIdentifier` whose uuids follow from the workout's), so `GET /workouts/{uuid}/route` serves it.
///
/// Version 2 points are `{latitude, longitude, altitude, course, speed, horizontalAccuracy, verticalAccuracy,
/// timestamp, …}`, version 1 points `{lat, lon, altitude, timestamp}`. A point without a readable timestamp, or with a
/// latitude outside −90…90, a longitude outside −180…180 or a non-finite coordinate is skipped (counted as
/// `badRoutePoint` under `workouts[i].route`); optional values that are absent or not finite are left out.
struct HAERouteReader {
    /// The route points of `points` (in order) and how many were skipped.
    static func points(_ points: [JSONValue], metric: String, into reading: inout HAEReading) -> [RoutePoint] {
        var out: [RoutePoint] = []
        out.reserveCapacity(points.count)
        for (k, value) in points.enumerated() {
            guard let point = value.object,
                  let time = point["timestamp"]?.string.flatMap(HAEDate.parse),
                  let latitude = (point["latitude"] ?? point["lat"])?.number,
                  let longitude = (point["longitude"] ?? point["lon"])?.number,
                  latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180
            else {
                reading.skip(metric, k, "badRoutePoint")
                continue
            }
            func optional(_ key: String) -> Double? {
                (point[key]?.number).flatMap { $0.isFinite ? $0 : nil }
            }
            out.append(RoutePoint(timeMs: time.ms, latitude: latitude, longitude: longitude,
                                  elevation: optional("altitude"), speed: optional("speed"), course: optional("course"),
                                  horizontalAccuracy: optional("horizontalAccuracy"),
                                  verticalAccuracy: optional("verticalAccuracy")))
        }
        return out
    }

    /// The route samples of `points` for `workout` (none for an empty route).
    static func samples(_ points: [RoutePoint], workout: HealthSample) -> [HealthSample] {
        RoutePart.split(points, workout: workout.uuid, file: nil).compactMap { $0.sample(of: workout) }
    }
}
