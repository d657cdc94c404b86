extension WireEncoder {
    /// Appends the `POST /samples` object of `sample` (no separator, no newline) to `out`:
    /// `{"uuid","type","startDate","endDate","value","unit","sourceName","sourceBundleId"` then
    /// `sourceDeviceName`, `sourceVersion`, `deviceModel` when not `nil` and `details` (its JSON text as is) when
    /// present. The sink's per-type files hold these objects, one a line.
    public static func appendSampleObject(_ sample: HealthSample, to out: inout [UInt8]) {
        out.append(contentsOf: sampleUUIDKey)
        appendUUID(sample.uuid, to: &out)
        out.append(contentsOf: sampleTypeKey)
        appendEscaped(sample.type.rawValue, to: &out)
        out.append(contentsOf: sampleStartKey)
        appendDate(sample.startMs, to: &out)
        out.append(contentsOf: sampleEndKey)
        appendDate(sample.endMs, to: &out)
        out.append(contentsOf: sampleValueKey)
        appendNumber(sample.value, to: &out)
        out.append(contentsOf: sampleUnitKey)
        appendEscaped(sample.unit, to: &out)
        out.append(contentsOf: sampleNameKey)
        appendEscaped(sample.sourceName, to: &out)
        out.append(contentsOf: sampleBundleKey)
        appendEscaped(sample.sourceBundleId, to: &out)
        out.append(UInt8(ascii: "\""))
        appendOptionalFields(sample, to: &out)
        out.append(UInt8(ascii: "}"))
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
        appendObject(WireSample(sample), to: &out)
        if !sample.sourceName.isEmpty || sample.unit != "count" || sample.sourceVersion != nil
            || sample.deviceModel != nil || sample.details != nil
        {
            out.removeLast() // }
            if !sample.sourceName.isEmpty {
                out.append(contentsOf: extraNameKey)
                appendEscaped(sample.sourceName, to: &out)
                out.append(UInt8(ascii: "\""))
            }
            if sample.unit != "count" {
                out.append(contentsOf: extraUnitKey)
                appendEscaped(sample.unit, to: &out)
                out.append(UInt8(ascii: "\""))
            }
            var rest = sample
            rest.deviceName = nil // the POST /steps object has it already
            appendOptionalFields(rest, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "\n"))
    }

    /// `,"sourceDeviceName":…,"sourceVersion":…,"deviceModel":…,"details":{…}` for the fields that are present.
    private static func appendOptionalFields(_ sample: HealthSample, to out: inout [UInt8]) {
        if let device = sample.deviceName {
            out.append(contentsOf: extraDeviceKey)
            appendEscaped(device, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        if let version = sample.sourceVersion {
            out.append(contentsOf: extraVersionKey)
            appendEscaped(version, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        if let model = sample.deviceModel {
            out.append(contentsOf: extraModelKey)
            appendEscaped(model, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        if let details = sample.details {
            out.append(contentsOf: extraDetailsKey)
            out.append(contentsOf: details.utf8)
        }
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
