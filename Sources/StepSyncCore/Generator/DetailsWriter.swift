/// Writes the compact JSON of ``HealthSample/details`` exactly as the importer does (`StepSyncImport/DetailsJSON`):
/// members in the order written, no whitespace, strings escaped as RFC 8259 requires, a number as an integer when it
/// is whole (`80`) and otherwise as Swift's shortest round-trip decimal (`5.23451`).
///
/// So a generated workout or HRV reading is byte-compatible with an imported one, and what the sink stores verbatim
/// looks the same whichever door the sample came in by.
struct DetailsWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// The JSON text written so far.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// `{` (after a comma when it is not the first member or element).
    mutating func openObject() { separator(); bytes.append(UInt8(ascii: "{")) }

    /// `"key":{`.
    mutating func openObject(_ key: String) { separator(); self.key(key); bytes.append(UInt8(ascii: "{")) }

    /// `}`.
    mutating func closeObject() { bytes.append(UInt8(ascii: "}")) }

    /// `"key":[`.
    mutating func openArray(_ key: String) { separator(); self.key(key); bytes.append(UInt8(ascii: "[")) }

    /// `[` as an element of an array.
    mutating func openArray() { separator(); bytes.append(UInt8(ascii: "[")) }

    /// `]`.
    mutating func closeArray() { bytes.append(UInt8(ascii: "]")) }

    /// `"key":"text"`.
    mutating func member(_ key: String, _ text: String) { separator(); self.key(key); string(text) }

    /// `"key":number` (`value` must be finite).
    mutating func member(_ key: String, _ value: Double) { separator(); self.key(key); number(value) }

    /// `"key":"<ISO-8601 UTC instant with milliseconds>"`.
    mutating func member(_ key: String, instant ms: Int64) {
        separator()
        self.key(key)
        bytes.append(UInt8(ascii: "\""))
        let at = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 24))
        bytes.withUnsafeMutableBufferPointer { ISO8601Millis.write(ms, into: $0.baseAddress! + at) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A string as an element of an array.
    mutating func element(_ text: String) { separator(); string(text) }

    // MARK: - Pieces

    private mutating func separator() {
        if let last = bytes.last, last != UInt8(ascii: "["), last != UInt8(ascii: "{") { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func key(_ key: String) {
        string(key)
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)]); bytes.append(hex[Int(byte & 0x0F)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func number(_ value: Double) {
        precondition(value.isFinite, "JSON cannot carry \(value)")
        if value == value.rounded(.towardZero), abs(value) < 9_007_199_254_740_992 {
            bytes.append(contentsOf: String(Int64(value)).utf8)
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
    }
}
