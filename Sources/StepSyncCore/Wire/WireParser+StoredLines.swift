import Foundation

/// How the sink's own stored lines are recognised (their keys in a fixed order, upper-case uuids, canonical dates),
/// so reading them back skips the checks a stranger's body needs.
extension WireParser {
    /// The key after the one of rank `rank` in the stored line of `shape` (``storedRank(of:steps:)``), or `nil` after
    /// the last.
    @inline(__always)
    static func storedKey(after rank: Int, steps: Bool) -> WireKey? {
        if steps {
            switch rank {
            case 0: return .uuid
            case 1: return .startDate
            case 2: return .endDate
            case 3: return .count
            case 4: return .sourceBundleId
            case 5: return .sourceDeviceName
            default: return nil
            }
        }
        switch rank {
        case 0: return .uuid
        case 1: return .type
        case 2: return .startDate
        case 3: return .endDate
        case 4: return .value
        case 5: return .unit
        case 6: return .sourceName
        case 7: return .sourceBundleId
        case 8: return .sourceDeviceName
        case 9: return .sourceVersion
        case 10: return .deviceModel
        case 11: return .details
        default: return nil
        }
    }

    /// The position of `key` in the stored line of `shape` (1…), or 0 when the stored line has no such key.
    /// `POST /steps`: uuid, startDate, endDate, count, sourceBundleId, sourceDeviceName. `POST /samples`: uuid, type,
    /// startDate, endDate, value, unit, sourceName, sourceBundleId, sourceDeviceName, sourceVersion, deviceModel,
    /// details (``WireEncoder/appendObject(_:to:)``, ``WireEncoder/appendSampleObject(_:to:)``).
    @inline(__always)
    static func storedRank(of key: WireKey, steps: Bool) -> Int {
        if steps {
            switch key {
            case .uuid: return 1
            case .startDate: return 2
            case .endDate: return 3
            case .count: return 4
            case .sourceBundleId: return 5
            case .sourceDeviceName: return 6
            default: return 0
            }
        }
        switch key {
        case .uuid: return 1
        case .type: return 2
        case .startDate: return 3
        case .endDate: return 4
        case .value: return 5
        case .unit: return 6
        case .sourceName: return 7
        case .sourceBundleId: return 8
        case .sourceDeviceName: return 9
        case .sourceVersion: return 10
        case .deviceModel: return 11
        case .details: return 12
        default: return 0
        }
    }

    /// Whether a uuid's 36 bytes (already parsed) hold no lower-case hex digit (the encoder writes upper case).
    static func isUpperCaseUUID(_ raw: UnsafeRawBufferPointer) -> Bool {
        for c in raw where c >= UInt8(ascii: "a") { return false }
        return true
    }

    /// Whether a date's bytes (already parsed) are the 24 that ``ISO8601Millis/write(_:into:)`` gives:
    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` (the parser refuses out-of-range fields, so the digits write back the same).
    static func isStoredDate(_ raw: UnsafeRawBufferPointer) -> Bool {
        raw.count == 24 && raw[10] == UInt8(ascii: "T") && raw[19] == UInt8(ascii: ".") && raw[23] == UInt8(ascii: "Z")
    }

    /// Whether every byte is ASCII (so decoding the bytes as UTF-8 and encoding them again gives the same bytes).
    static func isASCII(_ raw: UnsafeRawBufferPointer) -> Bool {
        var k = 0
        var bits: UInt64 = 0
        while k + 8 <= raw.count {
            bits |= raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)
            k += 8
        }
        while k < raw.count {
            bits |= UInt64(raw[k])
            k += 1
        }
        return bits & 0x8080_8080_8080_8080 == 0
    }
}
