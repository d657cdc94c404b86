import Foundation

/// The `POST /samples` body of every type other than step counts, and the deletion bodies, written by hand with
/// precomputed keys like the `/steps` body (see `Planning/wire-format.md`, the contract with the sinks).
///
/// One sample object is
/// `{"uuid":"0B1E…","type":"HKQuantityTypeIdentifierHeartRate","startDate":"2025-05-11T16:27:22.000Z","endDate":"2025-05-11T16:27:22.000Z","value":72,"unit":"count/min","sourceName":"Anna's Apple Watch","sourceBundleId":"com.apple.health.8B0C…","sourceDeviceName":"Apple Watch","sourceVersion":"10.1","deviceModel":"Watch6,2","details":{…}}`:
/// the eight required fields always, in this order; `sourceDeviceName`, `sourceVersion`, `deviceModel` and `details`
/// only when present. `details` is the store's JSON object text, embedded verbatim (it is JSON already).
extension WireEncoder {
    /// The request body `{"samples":[…]}` of `POST /samples` for `samples` (any types).
    public static func encodeSamplesRequest(_ samples: [HealthSample]) -> [UInt8] {
        var capacity = 16
        for sample in samples { capacity += 260 + (sample.details?.utf8.count ?? 0) }
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        out.append(contentsOf: samplesRequestPrefix)
        for (i, sample) in samples.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            appendSampleObject(sample, to: &out)
        }
        out.append(contentsOf: samplesRequestSuffix)
        return out
    }

    /// Appends the `/samples` wire object of `sample` (no separator, no newline) to `out`.
    public static func appendSampleObject(_ sample: HealthSample, to out: inout [UInt8]) {
        out.append(contentsOf: sUUIDKey)
        appendUUID(sample.uuid, to: &out)
        out.append(contentsOf: sTypeKey)
        appendEscaped(sample.type.rawValue, to: &out)
        out.append(contentsOf: sStartKey)
        appendDate(sample.startMs, to: &out)
        out.append(contentsOf: sEndKey)
        appendDate(sample.endMs, to: &out)
        out.append(contentsOf: sValueKey)
        appendNumber(sample.value, to: &out)
        out.append(contentsOf: sUnitKey)
        appendEscaped(sample.unit, to: &out)
        out.append(contentsOf: sSourceNameKey)
        appendEscaped(sample.sourceName, to: &out)
        out.append(contentsOf: sBundleKey)
        appendEscaped(sample.sourceBundleId, to: &out)
        out.append(UInt8(ascii: "\""))
        if let device = sample.deviceName {
            out.append(contentsOf: sDeviceKey)
            appendEscaped(device, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        if let version = sample.sourceVersion {
            out.append(contentsOf: sVersionKey)
            appendEscaped(version, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        if let model = sample.deviceModel {
            out.append(contentsOf: sModelKey)
            appendEscaped(model, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        if let details = sample.details {
            out.append(contentsOf: sDetailsKey)
            out.append(contentsOf: details.utf8)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The body of a deletions request: `{"uuids":[…]}` for `POST /steps/delete` when `type` is `nil`, or
    /// `{"type":"HK…","uuids":[…]}` for `POST /samples/delete`. Uuids are written upper-case.
    public static func encodeDeletions(_ uuids: [UUID], type: SampleType?) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(48 + uuids.count * 39)
        if let type {
            out.append(contentsOf: deletionsTypeKey)
            appendEscaped(type.rawValue, to: &out)
            out.append(contentsOf: deletionsTypedUUIDsKey)
        } else {
            out.append(contentsOf: deletionsUUIDsKey)
        }
        for (i, uuid) in uuids.enumerated() {
            out.append(contentsOf: i == 0 ? quote : commaQuote)
            appendUUID(uuid, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        out.append(contentsOf: samplesRequestSuffix)
        return out
    }

    // MARK: - Pieces

    private static let samplesRequestPrefix = Array(#"{"samples":["#.utf8)
    private static let samplesRequestSuffix = Array("]}".utf8)
    private static let sUUIDKey = Array(#"{"uuid":""#.utf8)
    private static let sTypeKey = Array(#"","type":""#.utf8)
    private static let sStartKey = Array(#"","startDate":""#.utf8)
    private static let sEndKey = Array(#"","endDate":""#.utf8)
    private static let sValueKey = Array(#"","value":"#.utf8)
    private static let sUnitKey = Array(#","unit":""#.utf8)
    private static let sSourceNameKey = Array(#"","sourceName":""#.utf8)
    private static let sBundleKey = Array(#"","sourceBundleId":""#.utf8)
    private static let sDeviceKey = Array(#","sourceDeviceName":""#.utf8)
    private static let sVersionKey = Array(#","sourceVersion":""#.utf8)
    private static let sModelKey = Array(#","deviceModel":""#.utf8)
    private static let sDetailsKey = Array(#","details":"#.utf8)
    private static let deletionsUUIDsKey = Array(#"{"uuids":["#.utf8)
    private static let deletionsTypeKey = Array(#"{"type":""#.utf8)
    private static let deletionsTypedUUIDsKey = Array(#"","uuids":["#.utf8)
    private static let quote: [UInt8] = [UInt8(ascii: "\"")]
    private static let commaQuote: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: "\"")]
}
