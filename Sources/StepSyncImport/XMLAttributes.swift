import Foundation

/// Reading the raw attribute bytes of an ``XMLTag``: iteration, entity decoding and control-character tolerance.
enum XMLAttributes {
    /// Calls `body` with each attribute's name and raw (undecoded) value bytes, in document order.
    ///
    /// - Throws: ``XMLProblem`` naming `line` when the attributes are not `name="value"` or `name='value'` pairs.
    @inline(__always)
    static func forEach(
        _ a: UnsafeRawBufferPointer,
        line: Int,
        _ body: (_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let n = a.count
        var i = 0
        while true {
            while i < n, XMLChunkScanner.isSpace(a[i]) { i += 1 }
            if i == n { return }
            let nameStart = i
            while i < n, a[i] != UInt8(ascii: "="), !XMLChunkScanner.isSpace(a[i]) { i += 1 }
            let nameEnd = i
            while i < n, XMLChunkScanner.isSpace(a[i]) { i += 1 }
            guard i < n, a[i] == UInt8(ascii: "="), nameEnd > nameStart else {
                throw XMLProblem(kind: .malformed, line: line, reason: "an attribute is not written name=\"value\"")
            }
            i += 1
            while i < n, XMLChunkScanner.isSpace(a[i]) { i += 1 }
            guard i < n, a[i] == UInt8(ascii: "\"") || a[i] == UInt8(ascii: "'") else {
                throw XMLProblem(kind: .malformed, line: line, reason: "an attribute value is not quoted")
            }
            let quote = a[i]
            i += 1
            let valueStart = i
            i = XMLChunkScanner.index(of: quote, in: a, from: i) ?? n
            guard i < n else {
                throw XMLProblem(kind: .malformed, line: line, reason: "an attribute value is not closed")
            }
            try body(UnsafeRawBufferPointer(rebasing: a[nameStart..<nameEnd]),
                     UnsafeRawBufferPointer(rebasing: a[valueStart..<i]))
            i += 1
        }
    }

    /// Whether `bytes` equal the UTF-8 of `literal`.
    ///
    /// Names of 16 bytes or fewer (every attribute and element name a record has) are compared in line, byte by
    /// byte: a call to `memcmp` for each of a record's nine attributes was 2 % of an import's CPU.
    @inline(__always)
    static func equals(_ bytes: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        let n = bytes.count
        guard n == literal.utf8CodeUnitCount else { return false }
        guard let base = bytes.baseAddress else { return n == 0 }
        let other = literal.utf8Start
        if n <= 16 {
            for i in 0..<n where base.load(fromByteOffset: i, as: UInt8.self) != other[i] { return false }
            return true
        }
        return memcmp(base, other, n) == 0
    }

    /// Whether decoding would change `raw`: it holds an entity (`&`) or a control character.
    @inline(__always)
    static func needsDecoding(_ raw: UnsafeRawBufferPointer) -> Bool {
        for c in raw where c == UInt8(ascii: "&") || c < 0x20 { return true }
        return false
    }

    /// The text of a raw attribute value: entities decoded (`&lt; &gt; &amp; &quot; &apos; &#…; &#x…;`), tab,
    /// newline and carriage return normalised to a space as XML says, and other control characters (such as the
    /// stray `\x0b` real exports contain, which XML 1.0 forbids) dropped. An unknown entity is kept as written.
    static func decode(_ raw: UnsafeRawBufferPointer) -> String {
        guard needsDecoding(raw) else { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        let n = raw.count
        var i = 0
        while i < n {
            let c = raw[i]
            if c == UInt8(ascii: "&"), let (scalar, length) = entity(raw, at: i) {
                out.append(contentsOf: String(Character(scalar)).utf8)
                i += length
                continue
            }
            if c == 0x09 || c == 0x0A || c == 0x0D {
                out.append(0x20)
            } else if c >= 0x20 {
                out.append(c)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The character an entity at `raw[at]` (`&`) stands for, and the entity's length.
    private static func entity(_ raw: UnsafeRawBufferPointer, at: Int) -> (Unicode.Scalar, Int)? {
        var end = at + 1
        while end < raw.count, end - at <= 10, raw[end] != UInt8(ascii: ";") { end += 1 }
        guard end < raw.count, raw[end] == UInt8(ascii: ";") else { return nil }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: raw[(at + 1)..<end]), as: UTF8.self)
        let length = end - at + 1
        switch name {
        case "lt": return ("<", length)
        case "gt": return (">", length)
        case "amp": return ("&", length)
        case "quot": return ("\"", length)
        case "apos": return ("'", length)
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let code = digits.hasPrefix("x") || digits.hasPrefix("X")
                ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            guard let code, let scalar = Unicode.Scalar(code) else { return nil }
            return (scalar, length)
        }
    }
}
