/// The one JSON text writer of stepsync's hand-written encoders: the wire objects (``WireEncoder``), the `details`
/// of generated samples (the generator's `DetailsWriter`) and of imported ones (the importer's workouts, HRV beats and
/// metadata), so a sample's bytes are the same whichever door it came in by.
///
/// Strings are escaped as RFC 8259 requires (`"`, `\`, control characters; `\n \r \t \b \f` by name, others as
/// `\u00XX`), a number is an integer when whole and exact in a double (`80`) and otherwise Swift's shortest
/// round-trip decimal (`5.23451`). `JSONEncoder` and `JSONSerialization` do the same at a fraction of the speed
/// (`Planning/wire-format.md`).
public enum JSONBytes {
    /// Whether `bytes` need no JSON escape (no `"`, `\\` or control character).
    @inline(__always)
    public static func isClean(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
        return true
    }

    /// Appends the JSON string body of `text` (without quotes), escaping `"`, `\` and control characters.
    @inline(__always)
    public static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendEscaped($0, to: &out) }
    }

    /// Appends the JSON string body of the UTF-8 `bytes` (without quotes), escaping `"`, `\` and control characters.
    @inline(__always)
    public static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        if isClean(bytes) {
            out.append(contentsOf: bytes)
            return
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\\")); out.append(byte)
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(byte)
            case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            case 0x08: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "f"))
            case ..<0x20:
                out.append(contentsOf: unicodeEscapePrefix)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
    }

    /// `text` as a JSON string literal (quoted and escaped), for answers written as `String`.
    public static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 2)
        appendString(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `text` as a JSON string (quoted and escaped).
    public static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendEscaped(text, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `value` as an integer when whole (and within ±2⁵³), otherwise as Swift's shortest round-trip decimal.
    /// Non-finite values, which JSON cannot carry, are written as `0`.
    @inline(__always)
    public static func appendNumber(_ value: Double, to out: inout [UInt8]) {
        if value.isFinite, value == value.rounded(.towardZero), abs(value) < 9_007_199_254_740_992 {
            appendInteger(Int64(value), to: &out)
        } else if value.isFinite {
            out.append(contentsOf: value.description.utf8)
        } else {
            out.append(UInt8(ascii: "0"))
        }
    }

    /// Appends the decimal digits of `value` (and a leading `-` when negative).
    @inline(__always)
    public static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var i = 20
            repeat {
                i -= 1
                buffer[i] = UInt8(truncatingIfNeeded: 48 + magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: UnsafeMutableBufferPointer(rebasing: buffer[i...]))
        }
    }

    /// A small object of integers written by hand: each piece's literal text (keys, punctuation, fixed values), then
    /// its integer, and `}` after the last — `[("{\"deleted\":", 3), (",\"missing\":", 1)]` → `{"deleted":3,"missing":1}`.
    /// The acknowledgements' bodies, in the key order the wire documents.
    public static func integerObject(_ pieces: [(text: String, value: Int)]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(pieces.count * 32 + 1)
        for piece in pieces {
            out.append(contentsOf: piece.text.utf8)
            appendInteger(Int64(piece.value), to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    // MARK: - Members of objects and arrays

    /// Appends a comma unless `out` ends with `[` or `{` (the first member of an array or object).
    @inline(__always)
    public static func separator(_ out: inout [UInt8]) {
        if let last = out.last, last != UInt8(ascii: "["), last != UInt8(ascii: "{") { out.append(UInt8(ascii: ",")) }
    }

    /// Appends `"key":` (a literal: no escaping needed).
    @inline(__always)
    public static func key(_ key: StaticString, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
    }

    /// Appends `"key":` for a key known only at run time (escaped).
    public static func appendKey(_ key: String, to out: inout [UInt8]) {
        appendString(key, to: &out)
        out.append(UInt8(ascii: ":"))
    }

    /// Appends `"key":"text"` after a separator.
    public static func member(_ name: StaticString, string text: String, to out: inout [UInt8]) {
        separator(&out); key(name, to: &out); appendString(text, to: &out)
    }

    /// Appends `"key":value` after a separator.
    public static func member(_ name: StaticString, number value: Double, to out: inout [UInt8]) {
        separator(&out); key(name, to: &out); appendNumber(value, to: &out)
    }

    private static let hex = Array("0123456789ABCDEF".utf8)
    private static let unicodeEscapePrefix = Array("\\u00".utf8)
}
