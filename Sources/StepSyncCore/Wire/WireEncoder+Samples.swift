extension WireEncoder {
    /// Appends the `POST /samples` object of `sample` (no separator, no newline) to `out`:
    /// `{"uuid","type","startDate","endDate","value","unit","sourceName","sourceBundleId"` then
    /// `sourceDeviceName`, `sourceVersion`, `deviceModel` when not `nil` and `details` (its JSON text as is) when
    /// present. The sink's per-type files hold these objects, one a line.
    public static func appendSampleObject(_ sample: HealthSample, to out: inout [UInt8]) {
        SampleFields.with(sample) { appendSampleObject($0, type: sample.type, to: &out) }
    }

    /// Appends the line the sink stores for `sample` (the object and `\n`): for a step count the `POST /steps`
    /// object — exactly HealthStepsSync's line when `sourceName` is empty and `unit` is `count` — followed by the
    /// other fields it carries (`sourceName`, `unit`, `sourceVersion`, `deviceModel`, `details`); for any other type
    /// the `POST /samples` object.
    public static func appendStoredLine(_ sample: HealthSample, to out: inout [UInt8]) {
        guard sample.type == .stepCount else {
            appendSampleObject(sample, to: &out)
            out.append(UInt8(ascii: "\n"))
            return
        }
        appendStepLine(sample, to: &out)
    }

    /// ``appendStoredLine(_:to:)`` for a sample the caller knows is a step count.
    public static func appendStepLine(_ sample: HealthSample, to out: inout [UInt8]) {
        SampleFields.with(sample) { fields in
            appendObject(fields, to: &out)
            if !sample.sourceName.isEmpty || sample.unit != "count" || sample.sourceVersion != nil
                || sample.deviceModel != nil || sample.details != nil
            {
                out.removeLast() // }
                if !sample.sourceName.isEmpty { appendOptional(extraNameKey, fields.sourceName, to: &out) }
                if sample.unit != "count" { appendOptional(extraUnitKey, fields.unit, to: &out) }
                // The POST /steps object has the device already.
                appendOptionalFields(fields, device: false, to: &out)
                out.append(UInt8(ascii: "}"))
            }
        }
        out.append(UInt8(ascii: "\n"))
    }

    static let sampleUUIDKey = Array(#"{"uuid":""#.utf8)
    static let sampleTypeKey = Array(#"","type":""#.utf8)
    static let sampleStartKey = Array(#"","startDate":""#.utf8)
    static let sampleEndKey = Array(#"","endDate":""#.utf8)
    static let sampleValueKey = Array(#"","value":"#.utf8)
    static let sampleUnitKey = Array(#","unit":""#.utf8)
    static let sampleNameKey = Array(#"","sourceName":""#.utf8)
    static let sampleBundleKey = Array(#"","sourceBundleId":""#.utf8)
    private static let extraNameKey = Array(#","sourceName":""#.utf8)
    private static let extraUnitKey = Array(#","unit":""#.utf8)
    static let extraDeviceKey = Array(#","sourceDeviceName":""#.utf8)
    static let extraVersionKey = Array(#","sourceVersion":""#.utf8)
    static let extraModelKey = Array(#","deviceModel":""#.utf8)
    static let extraDetailsKey = Array(#","details":"#.utf8)
}
