import StepSyncCore

/// A stored workout that names a route file: remembered while the XML is read, so that ``SeriesReader`` can read the
/// file afterwards and store its parts under the workout's uuid, source and device.
struct RoutedWorkout: Sendable {
    /// The workout's sample, without its details (the parts take only its uuid, source, device and offset).
    var workout: HealthSample
    /// The route file as the export names it: `/workout-routes/route_2025-06-01_7.05pm.gpx`.
    var file: String
    /// The line of the `<Workout>` start tag in `export.xml`.
    var line: Int
}
