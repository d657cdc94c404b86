import Foundation

/// One sample as the HealthStepsSync wire carries it, decoded and validated.
///
/// The wire object is `{"uuid":…,"startDate":…,"endDate":…,"count":…,"sourceBundleId":…,"sourceDeviceName":…}`;
/// `sourceDeviceName` may be absent. ``WireDecoder`` only produces samples that passed validation: a valid uuid,
/// parsable dates with `endMs ≥ startMs`, and `0 ≤ count ≤ 1,000,000`.
public struct WireSample: Hashable, Sendable {
    /// The sample's identity (the sink de-duplicates on it, case-insensitively).
    public var uuid: UUID
    /// `startDate`, in UTC milliseconds since 1970.
    public var startMs: Int64
    /// `endDate`, in UTC milliseconds since 1970; never before `startMs`.
    public var endMs: Int64
    /// `count`: the step count (not always whole).
    public var count: Double
    /// `sourceBundleId`.
    public var sourceBundleId: String
    /// `sourceDeviceName`, when present.
    public var sourceDeviceName: String?

    /// Creates a wire sample.
    public init(uuid: UUID, startMs: Int64, endMs: Int64, count: Double, sourceBundleId: String, sourceDeviceName: String?) {
        self.uuid = uuid
        self.startMs = startMs
        self.endMs = endMs
        self.count = count
        self.sourceBundleId = sourceBundleId
        self.sourceDeviceName = sourceDeviceName
    }

    /// The wire view of a stored health sample: `value` becomes `count`, `deviceName` becomes `sourceDeviceName`.
    public init(_ sample: HealthSample) {
        self.init(uuid: sample.uuid, startMs: sample.startMs, endMs: sample.endMs, count: sample.value,
                  sourceBundleId: sample.sourceBundleId, sourceDeviceName: sample.deviceName)
    }

    /// The largest `count` the wire accepts.
    public static let maximumCount: Double = 1_000_000
}
