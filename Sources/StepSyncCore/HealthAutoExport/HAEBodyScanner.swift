/// The JSON reading of a Health Auto Export body, straight from its bytes on ``WireParser``'s syntax (strings with
/// every escape and UTF-8 checked, numbers, nesting at most 64 deep): no object graph of the body is ever built.
///
/// It replaced `JSONDecoder` (22.8k points/s, 798 MB for a 36 MB body; figures in `Planning/benchmarks.md`). The
/// readers above it (``HAEBodyMap``, ``HAEPayloadReader``) read the shape; this reads values, leniently where the
/// app's fields may hold another JSON type than expected (``pointNumber()``, ``pointString()``).
struct HAEBodyScanner {
    var parser: WireParser

    init(_ bytes: UnsafeRawBufferPointer) {
        parser = WireParser(bytes)
        parser.readsAnyNumber = true
    }

    /// The byte offset read up to.
    var offset: Int {
        get { parser.i }
        set { parser.i = newValue }
    }

    /// The next byte after whitespace, not consumed; `nil` at the end of the input.
    mutating func peek() -> UInt8? {
        parser.skipWhitespace()
        return parser.peek
    }

    /// Whether the next byte after whitespace is `byte` (not consumed); a syntax error at the end of the input, so
    /// that a body cut short is reported as not JSON rather than as the wrong shape.
    mutating func at(_ byte: UInt8) throws(WireError) -> Bool {
        guard let next = peek() else { throw parser.syntax("unexpected end of input") }
        return next == byte
    }

    /// Consumes `byte` after whitespace, or throws a syntax error naming `what` was expected.
    mutating func expect(_ byte: UInt8, _ what: String) throws(WireError) {
        guard peek() == byte else { throw parser.syntax(parser.peek == nil ? "unexpected end of input" : "expected \(what)") }
        parser.i += 1
    }

    /// After an element of an array: `,` → true (another follows), `]` → false.
    mutating func nextElement() throws(WireError) -> Bool {
        switch peek() {
        case UInt8(ascii: ","): parser.i += 1; return true
        case UInt8(ascii: "]"): parser.i += 1; return false
        default: throw parser.syntax(parser.peek == nil ? "unexpected end of input" : "expected , or ]")
        }
    }

    /// Reads `[` and tells whether the array is empty (then its `]` is read too).
    mutating func openArray() throws(WireError) -> Bool {
        try expect(UInt8(ascii: "["), "[")
        if peek() == UInt8(ascii: "]") { parser.i += 1; return false }
        return true
    }

    /// Reads `{` and tells whether the object is empty (then its `}` is read too).
    mutating func openObject() throws(WireError) -> Bool {
        try expect(UInt8(ascii: "{"), "{")
        return try !parser.consumeObjectEnd()
    }

    /// Reads a member's key and its `:`.
    mutating func key() throws(WireError) -> String {
        try parser.parseKey()
    }

    /// After a member of an object: `,` → true (another follows), `}` → false.
    mutating func nextMember() throws(WireError) -> Bool {
        try parser.nextMember()
    }

    /// Skips any value, checking its syntax.
    mutating func skipValue() throws(WireError) {
        try parser.skipValue(depth: 1)
    }

    /// Any value, typed (``JSONValue``); a number too large for `Double` reads as infinite.
    mutating func json() throws(WireError) -> JSONValue {
        try parser.value()
    }

    /// A point's number field, read as ``JSONValue/number`` reads: a number, a string holding one (at most 64 bytes
    /// read), or a Boolean as 1 or 0; `nil` for anything else (skipped, its syntax checked).
    mutating func pointNumber() throws(WireError) -> Double? {
        guard let c = peek() else { throw parser.syntax("unexpected end of input") }
        switch c {
        case UInt8(ascii: "-"), 48...57: return try parser.parseAnyNumber()
        case UInt8(ascii: "\""): return Double(try parser.parseString().prefix(64))
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return try boolean() ? 1 : 0
        default:
            try skipValue()
            return nil
        }
    }

    /// A point's string field: the string, reusing `entry`'s when the bytes repeat it (most points of a metric share
    /// their source); `nil` for another JSON type (skipped, its syntax checked).
    mutating func pointString(_ entry: inout InternedStrings.Entry) throws(WireError) -> String? {
        guard let raw = try plainString() else {
            if peek() == UInt8(ascii: "\"") { return try parser.parseString() }
            try skipValue()
            return nil
        }
        var canonical = false
        return entry.string(raw, canonical: &canonical)
    }

    /// A point's date field: the instant it names (``HAEDate``), or `nil` when it is not a string of a date form
    /// (skipped, its syntax checked). A date without escapes is read in place, without making a string.
    mutating func pointDate() throws(WireError) -> HAEDate.Instant? {
        if let raw = try plainString() { return HAEDate.parse(bytes: raw.assumingMemoryBound(to: UInt8.self)) }
        if peek() == UInt8(ascii: "\"") { return HAEDate.parse(try parser.parseString()) }
        try skipValue()
        return nil
    }

    /// At a string without escapes: its bytes (valid while the input is), the string consumed. Otherwise `nil` and
    /// nothing consumed.
    private mutating func plainString() throws(WireError) -> UnsafeRawBufferPointer? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        let start = parser.i + 1
        let end = try parser.scanText(from: start)
        guard end < parser.bytes.count, parser.bytes[end] == UInt8(ascii: "\"") else { return nil }
        parser.i = end + 1
        return UnsafeRawBufferPointer(rebasing: parser.bytes[start..<end])
    }

    private mutating func boolean() throws(WireError) -> Bool {
        if parser.matchLiteral("true") { return true }
        if parser.matchLiteral("false") { return false }
        throw parser.syntax("invalid literal")
    }
}
