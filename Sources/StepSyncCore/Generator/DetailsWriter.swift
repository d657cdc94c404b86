/// Writes the compact JSON of ``HealthSample/details`` with ``JSONBytes``, as the importer does: members in the order
/// written, no whitespace, strings escaped as RFC 8259 requires, a number as an integer when it is whole (`80`) and
/// otherwise as Swift's shortest round-trip decimal (`5.23451`).
///
/// So a generated workout or HRV reading is byte-compatible with an imported one, and what the sink stores verbatim
/// looks the same whichever door the sample came in by.
struct DetailsWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// The JSON text written so far.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// `{` (after a comma when it is not the first member or element).
    mutating func openObject() { JSONBytes.separator(&bytes); bytes.append(UInt8(ascii: "{")) }

    /// `"key":{`.
    mutating func openObject(_ key: String) {
        JSONBytes.separator(&bytes); JSONBytes.appendKey(key, to: &bytes); bytes.append(UInt8(ascii: "{"))
    }

    /// `}`.
    mutating func closeObject() { bytes.append(UInt8(ascii: "}")) }

    /// `"key":[`.
    mutating func openArray(_ key: String) {
        JSONBytes.separator(&bytes); JSONBytes.appendKey(key, to: &bytes); bytes.append(UInt8(ascii: "["))
    }

    /// `[` as an element of an array.
    mutating func openArray() { JSONBytes.separator(&bytes); bytes.append(UInt8(ascii: "[")) }

    /// `]`.
    mutating func closeArray() { bytes.append(UInt8(ascii: "]")) }

    /// `"key":"text"`.
    mutating func member(_ key: String, _ text: String) {
        JSONBytes.separator(&bytes); JSONBytes.appendKey(key, to: &bytes); JSONBytes.appendString(text, to: &bytes)
    }

    /// `"key":number` (`value` must be finite).
    mutating func member(_ key: String, _ value: Double) {
        precondition(value.isFinite, "JSON cannot carry \(value)")
        JSONBytes.separator(&bytes); JSONBytes.appendKey(key, to: &bytes); JSONBytes.appendNumber(value, to: &bytes)
    }

    /// `"key":"<ISO-8601 UTC instant with milliseconds>"`.
    mutating func member(_ key: String, instant ms: Int64) {
        JSONBytes.separator(&bytes)
        JSONBytes.appendKey(key, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        WireEncoder.appendDate(ms, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// A string as an element of an array.
    mutating func element(_ text: String) { JSONBytes.separator(&bytes); JSONBytes.appendString(text, to: &bytes) }
}
