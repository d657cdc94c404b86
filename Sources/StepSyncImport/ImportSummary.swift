import StepSyncCore

/// What an import read and stored.
public struct ImportSummary: Sendable {
    /// The file imported.
    public var file: String
    /// The zip entry holding the export, when the file was a zip (`apple_health_export/export.xml`).
    public var entry: String?
    /// Bytes of XML read.
    public var bytesRead: Int64
    /// Top-level records read, by type (stored, duplicate or skipped).
    public var recordsByType: [SampleType: Int]
    /// New samples stored, by type.
    public var insertedByType: [SampleType: Int]
    /// New samples stored.
    public var inserted: Int
    /// Records skipped because the store already held them (same derived uuid).
    public var duplicates: Int
    /// The sum of the new step-count samples' values.
    public var insertedSteps: Double
    /// Top-level elements that are not records (`Workout`, `ActivitySummary`, `Correlation`, …), by name.
    public var skippedElements: [String: Int]
    /// Records nested in correlations: they repeat top-level records and are not stored twice.
    public var nestedRecords: Int
    /// Category records skipped for a value label the importer does not know, by type.
    public var unknownCategoryValues: [SampleType: Int]
    /// Wall-clock seconds the import took.
    public var seconds: Double

    /// All top-level records read.
    public var recordsRead: Int { recordsByType.values.reduce(0, +) }

    /// New step-count samples stored.
    public var insertedStepSamples: Int { insertedByType[.stepCount] ?? 0 }

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
