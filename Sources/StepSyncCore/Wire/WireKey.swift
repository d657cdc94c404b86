/// The keys of a wire sample object, recognised from their bytes without building a `String` (six to twelve keys a
/// sample; `sourceDeviceName` is too long for Swift's inline small strings, so building it allocated every time).
enum WireKey: String {
    case uuid, type, startDate, endDate, count, value, unit, sourceName, sourceBundleId, sourceDeviceName,
         sourceVersion, deviceModel, details
    /// Any other key (skipped).
    case other

    /// The key's bytes (without quotes); `""` for ``other``.
    var literal: StaticString {
        switch self {
        case .uuid: "uuid"
        case .type: "type"
        case .startDate: "startDate"
        case .endDate: "endDate"
        case .count: "count"
        case .value: "value"
        case .unit: "unit"
        case .sourceName: "sourceName"
        case .sourceBundleId: "sourceBundleId"
        case .sourceDeviceName: "sourceDeviceName"
        case .sourceVersion: "sourceVersion"
        case .deviceModel: "deviceModel"
        case .details: "details"
        case .other: ""
        }
    }

    /// The key of `raw` (the key's bytes without quotes and without escapes).
    @inline(__always)
    static func of(_ raw: UnsafeRawBufferPointer) -> WireKey {
        switch raw.count {
        case 4: return matches(raw, "uuid") ? .uuid : matches(raw, "type") ? .type : matches(raw, "unit") ? .unit : .other
        case 5: return matches(raw, "count") ? .count : matches(raw, "value") ? .value : .other
        case 7: return matches(raw, "endDate") ? .endDate : matches(raw, "details") ? .details : .other
        case 9: return matches(raw, "startDate") ? .startDate : .other
        case 10: return matches(raw, "sourceName") ? .sourceName : .other
        case 11: return matches(raw, "deviceModel") ? .deviceModel : .other
        case 13: return matches(raw, "sourceVersion") ? .sourceVersion : .other
        case 14: return matches(raw, "sourceBundleId") ? .sourceBundleId : .other
        case 16: return matches(raw, "sourceDeviceName") ? .sourceDeviceName : .other
        default: return .other
        }
    }

    @inline(__always)
    private static func matches(_ raw: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard raw.count == n else { return false }
        for k in 0..<n where raw[k] != literal.utf8Start[k] { return false }
        return true
    }
}
