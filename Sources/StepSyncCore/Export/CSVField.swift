/// RFC 4180 field writing with formula neutralisation: a field is quoted only when it holds a comma, a double quote,
/// CR or LF (or begins or ends with a space, which some readers trim), and a double quote inside a quoted field is
/// doubled.
///
/// A text cell that begins with `=`, `+`, `-`, `@`, a tab or a CR would be read by a spreadsheet as a formula (a
/// source or device name comes from any app: `=HYPERLINK(…)`, `=cmd|' /C calc'!A0`), so it is written with a
/// leading `'` (OWASP's advice for CSV injection); the spreadsheet shows the text, and a reader that wants the
/// original drops that one `'`. Only text goes through here: numbers (`value`, `utcOffsetSeconds`) are written by
/// the encoder as numbers, so `-3.5` stays `-3.5`.
///
/// `Anna's Apple Watch` → `Anna's Apple Watch`; `Watch6,2` → `"Watch6,2"`; `{"a":1}` → `"{""a"":1}"`;
/// `=1+1` → `'=1+1`; `@SUM(1,1)` → `"'@SUM(1,1)"`.
public enum CSVField {
    /// Whether a text cell beginning with `byte` is neutralised with a leading `'`.
    @inline(__always)
    public static func startsFormula(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D: true
        default: false
        }
    }

    /// Whether `bytes` must be quoted (as written, before any neutralising `'`, which never needs quotes itself).
    @inline(__always)
    public static func needsQuotes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, let last = bytes.last else { return false }
        if first == UInt8(ascii: " ") || last == UInt8(ascii: " ") { return true }
        for byte in bytes where byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == 0x0A || byte == 0x0D {
            return true
        }
        return false
    }

    /// Appends the UTF-8 `bytes` as one text cell: neutralised when it starts like a formula, quoted when needed.
    @inline(__always)
    public static func append(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        let neutralised = bytes.first.map(startsFormula) ?? false
        guard needsQuotes(bytes) else {
            if neutralised { out.append(UInt8(ascii: "'")) }
            out.append(contentsOf: bytes)
            return
        }
        out.append(UInt8(ascii: "\""))
        if neutralised { out.append(UInt8(ascii: "'")) }
        for byte in bytes {
            out.append(byte)
            if byte == UInt8(ascii: "\"") { out.append(byte) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `text` as one text cell, neutralised and quoted when needed; `nil` is the empty field.
    @inline(__always)
    public static func append(_ text: String?, to out: inout [UInt8]) {
        guard var text else { return }
        text.withUTF8 { append($0, to: &out) }
    }
}
