import Foundation

/// The last string of each repeated field of a body, so the next sample with the same bytes reuses it.
struct InternedStrings {
    /// One field's last bytes and string.
    struct Entry {
        var bytes: [UInt8] = []
        var value = ""

        /// Whether `bytes` are ASCII.
        var isASCII = true

        /// The string of `raw`: the previous one when the bytes are the same. Clears `canonical` unless `raw` is
        /// ASCII.
        mutating func string(_ raw: UnsafeRawBufferPointer, canonical: inout Bool) -> String {
            // Strings of up to 15 UTF-8 bytes are stored inline by Swift: nothing to save.
            if raw.count <= 15 {
                if canonical { canonical = WireParser.isASCII(raw) }
                return String(decoding: raw, as: UTF8.self)
            }
            if raw.count == bytes.count, bytes.withUnsafeBytes({ memcmp($0.baseAddress!, raw.baseAddress!, raw.count) }) == 0 {
                canonical = canonical && isASCII
                return value
            }
            bytes = Array(raw)
            value = String(decoding: raw, as: UTF8.self)
            isASCII = WireParser.isASCII(raw)
            canonical = canonical && isASCII
            return value
        }
    }

    /// The fields whose strings are reused.
    enum Field {
        case type, unit, sourceName, sourceBundleId, sourceDeviceName, sourceVersion, deviceModel
    }

    /// The string of `raw` for `field` (``Entry/string(_:canonical:)``), updating the field's entry in place (a
    /// switch rather than a `WritableKeyPath`, whose dynamic access was ≈ 2% of the sink's parse).
    @inline(__always)
    mutating func string(_ field: Field, _ raw: UnsafeRawBufferPointer, canonical: inout Bool) -> String {
        switch field {
        case .type: return type.string(raw, canonical: &canonical)
        case .unit: return unit.string(raw, canonical: &canonical)
        case .sourceName: return sourceName.string(raw, canonical: &canonical)
        case .sourceBundleId: return sourceBundleId.string(raw, canonical: &canonical)
        case .sourceDeviceName: return sourceDeviceName.string(raw, canonical: &canonical)
        case .sourceVersion: return sourceVersion.string(raw, canonical: &canonical)
        case .deviceModel: return deviceModel.string(raw, canonical: &canonical)
        }
    }

    var type = Entry()
    var unit = Entry()
    var sourceName = Entry()
    var sourceBundleId = Entry()
    var sourceDeviceName = Entry()
    var sourceVersion = Entry()
    var deviceModel = Entry()
}
