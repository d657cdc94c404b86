/// Writing the compact JSON of ``StepSyncCore/HealthSample/details`` by hand into a reused byte buffer: keys in a
/// fixed order, no whitespace, strings escaped as RFC 8259 requires, numbers as integers when whole.
///
/// Foundation's `JSONSerialization` would do, but allocates a dictionary per sample and orders keys at random; this
/// writes the bytes once.
enum DetailsJSON {
    /// Appends `"key":` (the key is a literal the importer chose: no escaping needed).
    @inline(__always)
    static func key(_ key: StaticString, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
    }

    /// Appends a comma unless `out` ends with `[` or `{` (the first member of an array or object).
    @inline(__always)
    static func separator(_ out: inout [UInt8]) {
        if let last = out.last, last != UInt8(ascii: "["), last != UInt8(ascii: "{") { out.append(UInt8(ascii: ",")) }
    }

    /// Appends `text` as a JSON string, escaping `"`, `\` and control characters.
    static func string(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\")); out.append(byte)
            case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(byte >> 4)]); out.append(hex[Int(byte & 0x0F)])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends a finite `value`: an integer when whole and exact in a double (`80`), else Swift's shortest
    /// round-trip decimal (`0.0123`, `1e-07`), both valid JSON numbers.
    static func number(_ value: Double, to out: inout [UInt8]) {
        precondition(value.isFinite, "JSON cannot carry \(value)")
        if value == value.rounded(.towardZero), abs(value) < 9_007_199_254_740_992 {
            out.append(contentsOf: String(Int64(value)).utf8)
        } else {
            out.append(contentsOf: value.description.utf8)
        }
    }

    /// Appends `"key":"text"` after a separator.
    static func member(_ name: StaticString, string text: String, to out: inout [UInt8]) {
        separator(&out); key(name, to: &out); string(text, to: &out)
    }

    /// Appends `"key":value` after a separator.
    static func member(_ name: StaticString, number value: Double, to out: inout [UInt8]) {
        separator(&out); key(name, to: &out); number(value, to: &out)
    }
}
