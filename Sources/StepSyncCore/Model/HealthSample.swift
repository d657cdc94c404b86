import Foundation

/// One raw health sample, as HealthKit records it: the unit of storage and of sync.
///
/// Times are UTC milliseconds since 1970 (`startMs` inclusive, `endMs` ≥ `startMs`, both inside ``Instants``). Where the source said which
/// UTC offset the sample was recorded in (Apple Health exports do), `utcOffsetSeconds` keeps it so a local time can
/// be shown again; it never takes part in ordering or bucketing, which are UTC only.
public struct HealthSample: Hashable, Sendable {
    /// Identity of the sample. Unique in the store; the sink de-duplicates on it.
    public var uuid: UUID
    /// The HealthKit type identifier.
    public var type: SampleType
    /// Start, in UTC milliseconds since 1970.
    public var startMs: Int64
    /// End, in UTC milliseconds since 1970; never before `startMs`.
    public var endMs: Int64
    /// The UTC offset the sample was recorded in, in seconds, when known.
    public var utcOffsetSeconds: Int32?
    /// The quantity (step count, bpm, km, …) or category code.
    public var value: Double
    /// The unit of `value` as HealthKit spells it (`count`, `count/min`, `km`, `kcal`, …).
    public var unit: String
    /// The recording app or device as shown to people ("Anna's iPhone", "Apple Watch").
    public var sourceName: String
    /// The bundle id of the source (`com.apple.health.…`).
    public var sourceBundleId: String
    /// The source's version, when known.
    public var sourceVersion: String?
    /// The device name (`iPhone`, `Apple Watch`), when known.
    public var deviceName: String?
    /// The device model (`iPhone14,5`, `Watch6,2`), when known.
    public var deviceModel: String?
    /// Type-specific fields as one JSON object (UTF-8 text), when the type has any: a workout's activity type,
    /// duration, totals, statistics and events; an HRV reading's beats; metadata. Stored as is, sent on the wire as
    /// `"details":{…}`, stored by the sink verbatim. At most ``SampleValidation/maxDetailsBytes``.
    public var details: String?

    /// Creates a sample.
    public init(
        uuid: UUID,
        type: SampleType,
        startMs: Int64,
        endMs: Int64,
        utcOffsetSeconds: Int32? = nil,
        value: Double,
        unit: String,
        sourceName: String,
        sourceBundleId: String,
        sourceVersion: String? = nil,
        deviceName: String? = nil,
        deviceModel: String? = nil,
        details: String? = nil
    ) {
        self.uuid = uuid
        self.type = type
        self.startMs = startMs
        self.endMs = endMs
        self.utcOffsetSeconds = utcOffsetSeconds
        self.value = value
        self.unit = unit
        self.sourceName = sourceName
        self.sourceBundleId = sourceBundleId
        self.sourceVersion = sourceVersion
        self.deviceName = deviceName
        self.deviceModel = deviceModel
        self.details = details
    }
}
