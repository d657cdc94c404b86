import StepSyncCore

/// A stored workout that names route files: remembered while the XML is read, so that ``SeriesReader`` can read the
/// files afterwards and store their parts, as one route, under the workout's uuid, source and device.
struct RoutedWorkout: Sendable {
    /// The workout's sample, without its details (the parts take only its uuid, source, device and offset).
    var workout: HealthSample
    /// The route files as the export names them (`/workout-routes/route_2025-06-01_7.05pm.gpx`), once each.
    var files: [String]
    /// The line of the `<Workout>` start tag in `export.xml`.
    var line: Int
}
