/// RFC 4180 field writing: a field is quoted only when it holds a comma, a double quote, CR or LF (or begins or ends
/// with a space, which some readers trim), and a double quote inside a quoted field is doubled.
///
/// `Anna's Apple Watch` → `Anna's Apple Watch`; `Watch6,2` → `"Watch6,2"`; `{"a":1}` → `"{""a"":1}"`.
public enum CSVField {
    /// Whether `bytes` must be quoted.
    @inline(__always)
    public static func needsQuotes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, let last = bytes.last else { return false }
        if first == UInt8(ascii: " ") || last == UInt8(ascii: " ") { return true }
        for byte in bytes where byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == 0x0A || byte == 0x0D {
            return true
        }
        return false
    }

    /// Appends the UTF-8 `bytes` as one field, quoted when needed.
    @inline(__always)
    public static func append(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard needsQuotes(bytes) else {
            out.append(contentsOf: bytes)
            return
        }
        out.append(UInt8(ascii: "\""))
        for byte in bytes {
            out.append(byte)
            if byte == UInt8(ascii: "\"") { out.append(byte) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `text` as one field, quoted when needed; `nil` is the empty field.
    @inline(__always)
    public static func append(_ text: String?, to out: inout [UInt8]) {
        guard var text else { return }
        text.withUTF8 { append($0, to: &out) }
    }
}
