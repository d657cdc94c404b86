import Foundation

extension SampleType {
    /// Workout routes (HealthKit's `HKWorkoutRouteTypeIdentifier`): stored and synced as ``RoutePart`` samples, each
    /// a run of a workout's GPS points in ``HealthSample/details`` (see `Planning/series.md`).
    public static let workoutRoute = SampleType("HKWorkoutRouteTypeIdentifier")
    /// Apple Watch electrocardiograms (HealthKit's `HKDataTypeIdentifierElectrocardiogram`): stored and synced as
    /// ``ElectrocardiogramPart`` samples, each a run of one recording's voltages in ``HealthSample/details``.
    public static let electrocardiogram = SampleType("HKDataTypeIdentifierElectrocardiogram")
}

/// What the series samples (route parts and ECG parts) share: how they are named, cut and bounded.
public enum SeriesLimits {
    /// The most bytes a part's `details` object is cut to (below ``SampleValidation/maxDetailsBytes``, 64 KiB, with
    /// room to spare): a part is closed before the point or voltage that would take it past this.
    public static let maxPartDetailsBytes = 56 << 10
    /// The most parts one interval of a series type holds (its `maxSamples`): ≤ 16 × 56 KiB ≈ 0.9 MiB of details, so
    /// an interval's request fits behind nginx's default 1 MiB body limit with its framing.
    public static let maxPartsPerInterval = 16
    /// The namespace of the parts' version-5 uuids (``RoutePart/uuid(workout:index:)``,
    /// ``ElectrocardiogramPart/uuid(recording:index:)``, ``ElectrocardiogramPart/recordingUUID(recordedMs:sampleRateHz:voltageCount:)``).
    public static let namespace = UUID(uuidString: "3D5B9F0E-6A21-4C7E-B8D4-91E2A07C5F36")!
}
