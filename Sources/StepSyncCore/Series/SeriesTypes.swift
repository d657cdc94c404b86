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
    /// The most parts one route or recording may have (part 0's `parts`): 4,096 parts of ≤ 56 KiB. A day-long route
    /// a point a second is ≈ 160 parts, an ECG 3. A part saying more is refused where it enters and never read.
    public static let maxParts = 4_096
    /// The most points one route answer holds (`GET /workouts/{uuid}/route`, GeoJSON and GPX): 200,000, ≈ 55 hours at
    /// Apple's point a second (a marathon is ≈ 15,000). A longer route is answered with its first 200,000 points and
    /// `"truncated": true`; the parts past them are not read. The importer refuses a GPX file of more points.
    public static let maxAnswerPoints = 200_000
    /// The most voltages one ECG answer holds (`GET /electrocardiograms/{uuid}`): 1,048,576, ≈ 34 minutes at 512 Hz
    /// (Apple's recordings are 30 s: 15,360). Past it the answer is cut with `"truncated": true`.
    public static let maxAnswerVoltages = 1 << 20
    /// The most voltages a recording may say it has (``ElectrocardiogramHeader/voltageCount``), so that every index
    /// and instant computed from a part stays far inside `Int64`.
    public static let maxVoltageCount = 1 << 24
    /// The sample rates an ECG may have, Hz (Apple's is 512).
    public static let sampleRates: ClosedRange<Double> = 1...100_000
    /// The namespace of the parts' version-5 uuids (``RoutePart/uuid(workout:index:)``,
    /// ``ElectrocardiogramPart/uuid(recording:index:)``, ``ElectrocardiogramPart/recordingUUID(recordedMs:sampleRateHz:voltageCount:)``).
    public static let namespace = UUID(uuidString: "3D5B9F0E-6A21-4C7E-B8D4-91E2A07C5F36")!
}
