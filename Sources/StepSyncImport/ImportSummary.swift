import StepSyncCore

/// What an import read, stored and skipped.
public struct ImportSummary: Sendable {
    /// The file imported.
    public var file: String
    /// The zip entry holding the export, when the file was a zip (`apple_health_export/export.xml`).
    public var entry: String?
    /// Bytes of XML read.
    public var bytesRead: Int64
    /// Top-level records and workouts read (stored, duplicate or skipped).
    public var recordsRead: Int
    /// Top-level records and workouts read, by type (workouts under `HKWorkoutTypeIdentifier`); a record with no
    /// type is counted in ``recordsRead`` only.
    public var recordsByType: [SampleType: Int]
    /// New samples stored, by type.
    public var insertedByType: [SampleType: Int]
    /// New samples stored.
    public var inserted: Int
    /// Records the store already held (same derived uuid).
    public var duplicates: Int
    /// Records whose sample was deleted from the store earlier (`stepsync delete`), left out: a deletion stays
    /// deleted when an export that still holds the record is imported again.
    public var previouslyDeleted: Int = 0
    /// Records whose sample was deleted earlier and is stored again (`import --restore-deleted`).
    public var restored: Int = 0
    /// The sum of the new step-count samples' values.
    public var insertedSteps: Double
    /// Records and workouts skipped, by reason (``SkipReason/key``); empty when nothing was skipped.
    public var skipped: [SkipReason: Int]
    /// The first few skipped records, with their line.
    public var firstSkipped: [SkippedRecord]
    /// Top-level elements that are not records or workouts (`ActivitySummary`, `Correlation`, `Me`, …), by name.
    public var otherElements: [String: Int]
    /// Records nested in correlations: they repeat top-level records and are not stored twice.
    public var nestedRecords: Int
    /// Routes stored this run (a workout's route, all its files, or a route file no workout names, with at least one
    /// new part; a re-import stores none).
    public var routes: Int
    /// Of ``routes``, the route files no workout names (a trimmed export): stored under
    /// ``StepSyncCore/RoutePart/orphanOwner(file:)``, listed by a sink's `GET /routes`.
    public var orphanRoutes: Int = 0
    /// The points of the new route parts.
    public var routePoints: Int
    /// ECG recordings stored this run (an ECG file with at least one new part).
    public var electrocardiograms: Int
    /// Wall-clock seconds the import took.
    public var seconds: Double

    /// Records, workouts and route or ECG files skipped.
    public var skippedCount: Int { skipped.values.reduce(0, +) }

    /// New step-count samples stored.
    public var insertedStepSamples: Int { insertedByType[.stepCount] ?? 0 }

    /// New workouts stored.
    public var insertedWorkouts: Int { insertedByType[.workout] ?? 0 }

    /// Records read per second.
    public var recordsPerSecond: Double { seconds > 0 ? Double(recordsRead) / seconds : 0 }
}

/// How far an import has got, reported after every chunk.
public struct ImportProgress: Sendable {
    /// Bytes of XML read so far.
    public var bytesRead: Int64
    /// Bytes of XML in all (the file's size, or the zip entry's uncompressed size).
    public var totalBytes: Int64
    /// Top-level records read so far.
    public var records: Int
}
