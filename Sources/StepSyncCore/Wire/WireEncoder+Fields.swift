import Foundation

extension WireEncoder {
    /// A sample's fields as borrowed UTF-8 bytes, for writing a wire object straight from where the sample is stored
    /// (the sync reads the store's rows into these without building a ``HealthSample``).
    ///
    /// The buffers are only valid for the call they are passed to, and must hold valid UTF-8 (the text a `String`
    /// made from the stored bytes would hold: the store's reader repairs invalid sequences the way
    /// `String(decoding:as:)` does). ``appendObject(_:to:)-(SampleFields,_)`` and
    /// ``appendSampleObject(_:type:to:)`` write exactly the bytes that ``appendObject(_:to:)-(HealthSample,_)`` and
    /// ``appendSampleObject(_:to:)`` write for the ``HealthSample`` holding the same values.
    public struct SampleFields {
        /// The sample's uuid.
        public var uuid: UUID
        /// Start, UTC milliseconds since 1970.
        public var startMs: Int64
        /// End, UTC milliseconds since 1970.
        public var endMs: Int64
        /// The quantity or category code.
        public var value: Double
        /// The unit (UTF-8).
        public var unit: UnsafeBufferPointer<UInt8>
        /// The source's name (UTF-8).
        public var sourceName: UnsafeBufferPointer<UInt8>
        /// The source's bundle id (UTF-8).
        public var sourceBundleId: UnsafeBufferPointer<UInt8>
        /// The source's version, `nil` when unknown.
        public var sourceVersion: UnsafeBufferPointer<UInt8>?
        /// The device name, `nil` when unknown.
        public var deviceName: UnsafeBufferPointer<UInt8>?
        /// The device model, `nil` when unknown.
        public var deviceModel: UnsafeBufferPointer<UInt8>?
        /// The `details` JSON object, `nil` when absent.
        public var details: UnsafeBufferPointer<UInt8>?

        /// Borrowed fields.
        public init(uuid: UUID, startMs: Int64, endMs: Int64, value: Double, unit: UnsafeBufferPointer<UInt8>,
                    sourceName: UnsafeBufferPointer<UInt8>, sourceBundleId: UnsafeBufferPointer<UInt8>,
                    sourceVersion: UnsafeBufferPointer<UInt8>?, deviceName: UnsafeBufferPointer<UInt8>?,
                    deviceModel: UnsafeBufferPointer<UInt8>?, details: UnsafeBufferPointer<UInt8>?) {
            self.uuid = uuid
            self.startMs = startMs
            self.endMs = endMs
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

    /// Appends the `POST /steps` object of a step count given by its borrowed `fields` to `out`: the bytes
    /// ``appendObject(_:to:)-(HealthSample,_)`` writes for the same sample.
    public static func appendObject(_ fields: SampleFields, to out: inout [UInt8]) {
        appendStepObject(uuid: fields.uuid, startMs: fields.startMs, endMs: fields.endMs, value: fields.value,
                         bundle: fields.sourceBundleId, device: fields.deviceName, to: &out)
    }

    /// Appends the `POST /samples` object of a sample of `type` given by its borrowed `fields` to `out`: the bytes
    /// ``appendSampleObject(_:to:)`` writes for the same sample.
    public static func appendSampleObject(_ fields: SampleFields, type: SampleType, to out: inout [UInt8]) {
        out.append(contentsOf: sampleUUIDKey)
        appendUUID(fields.uuid, to: &out)
        out.append(contentsOf: sampleTypeKey)
        appendEscaped(type.rawValue, to: &out)
        out.append(contentsOf: sampleStartKey)
        appendDate(fields.startMs, to: &out)
        out.append(contentsOf: sampleEndKey)
        appendDate(fields.endMs, to: &out)
        out.append(contentsOf: sampleValueKey)
        appendNumber(fields.value, to: &out)
        out.append(contentsOf: sampleUnitKey)
        appendEscaped(fields.unit, to: &out)
        out.append(contentsOf: sampleNameKey)
        appendEscaped(fields.sourceName, to: &out)
        out.append(contentsOf: sampleBundleKey)
        appendEscaped(fields.sourceBundleId, to: &out)
        out.append(UInt8(ascii: "\""))
        appendOptionalFields(fields, device: true, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// `,"sourceDeviceName":…` (when `device`), `,"sourceVersion":…,"deviceModel":…,"details":{…}` for the fields
    /// that are present.
    static func appendOptionalFields(_ fields: SampleFields, device: Bool, to out: inout [UInt8]) {
        if device { appendOptional(extraDeviceKey, fields.deviceName, to: &out) }
        appendOptional(extraVersionKey, fields.sourceVersion, to: &out)
        appendOptional(extraModelKey, fields.deviceModel, to: &out)
        if let details = fields.details {
            out.append(contentsOf: extraDetailsKey)
            out.append(contentsOf: details)
        }
    }
}

extension WireEncoder.SampleFields {
    /// Runs `body` with the fields of `sample`, borrowed from its strings.
    @inline(__always)
    static func with<R>(_ sample: HealthSample, _ body: (WireEncoder.SampleFields) -> R) -> R {
        var unit = sample.unit, name = sample.sourceName, bundle = sample.sourceBundleId
        return unit.withUTF8 { u in
            name.withUTF8 { n in
                bundle.withUTF8 { b in
                    WireEncoder.withOptionalUTF8(sample.sourceVersion) { v in
                        WireEncoder.withOptionalUTF8(sample.deviceName) { d in
                            WireEncoder.withOptionalUTF8(sample.deviceModel) { m in
                                WireEncoder.withOptionalUTF8(sample.details) { x in
                                    body(Self(uuid: sample.uuid, startMs: sample.startMs, endMs: sample.endMs,
                                              value: sample.value, unit: u, sourceName: n, sourceBundleId: b,
                                              sourceVersion: v, deviceName: d, deviceModel: m, details: x))
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
