import Foundation

/// A hand-written parser for the wire's JSON: `{"samples":[{…},…]}` with flat sample objects, in the two shapes of
/// ``WireShape`` (`POST /steps` and `POST /samples`), and single objects (the sink's stored lines).
///
/// It replaced `JSONDecoder`, which decoded ≈ 10× slower than ``WireEncoder`` writes and would have capped ingest
/// (figures in `Planning/wire-format.md`). It checks full JSON syntax (strings with every escape, numbers, nesting
/// of unknown fields, trailing bytes) and reports the byte offset of a syntax error and the sample index of a
/// missing or ill-typed field. It only parses: the content of a sample is checked afterwards by
/// ``SampleValidation`` (``WireDecoder`` does both). Every index is bounds-checked, so any input is safe.
struct WireParser {
    let bytes: UnsafeRawBufferPointer
    var i = 0
    var sampleIndex: Int?
    /// The last string seen per field, reused when the next sample repeats it (most samples of a body share their
    /// type, unit and source), which saves an allocation per long string.
    var interned = InternedStrings()
    /// Whitespace bytes skipped between tokens so far (a sample object without any may be stored as it came).
    var skippedWhitespace = 0
    /// Whether the last number parsed is written the way ``WireEncoder`` writes it (a plain integer of at most 15
    /// digits, no sign, no leading zero), so its bytes can be stored as they came.
    var lastNumberIsCanonical = false
    /// Where the last sample key read starts (after its quote), to name an unknown field in an `invalid_text` error.
    var lastKeyStart = 0
    /// When set, ``skipValue(depth:)`` and ``value(depth:)`` read numbers too large for `Double` as infinite (valid
    /// JSON that the wire refuses).
    var readsAnyNumber = false
    /// When set, ``parseRequest(_:)`` also records, per sample, ``storedLineSpan``.
    var recordsStoredLines = false
    /// Per sample of the last ``parseRequest(_:)`` (when ``recordsStoredLines``): the range of its object in the input
    /// when those bytes are exactly the line the sink stores for it (see ``WireParser/parseSample(_:)``), else `nil`.
    var storedLines: [Range<Int>?] = []
    /// The stored-line range of the last sample parsed (see ``storedLines``).
    var lastStoredLine: Range<Int>?

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    // MARK: - Entry points

    /// Parses `{"samples":[…]}` in `shape`; unknown top-level keys are skipped.
    mutating func parseRequest(_ shape: WireShape) throws(WireError) -> [HealthSample] {
        var samples: [HealthSample]?
        try expectObjectStart()
        if try !consumeObjectEnd() {
            repeat {
                let key: String
                do throws(WireError) { key = try parseKey() } catch { throw error.naming("(a key)") }
                if key == "samples" {
                    skipWhitespace()
                    guard peek == UInt8(ascii: "[") else {
                        if peek == nil { throw syntax("unexpected end of input") }
                        throw .wrongType("samples", index: nil, expected: "an array")
                    }
                    samples = try parseSampleArray(shape)
                } else {
                    do throws(WireError) { try skipValue() } catch { throw error.naming(InputExcerpt.of(key)) }
                }
            } while try nextMember()
        }
        try expectEnd()
        guard let samples else { throw .missingField("samples", index: nil) }
        return samples
    }

    /// Parses one sample object that makes up the whole input (a stored line).
    mutating func parseSingleSample(_ shape: WireShape, index: Int?) throws(WireError) -> HealthSample {
        sampleIndex = index
        let sample = try parseSample(shape)
        try expectEnd()
        return sample
    }

    private mutating func parseSampleArray(_ shape: WireShape) throws(WireError) -> [HealthSample] {
        i += 1 // [
        var samples: [HealthSample] = []
        // ≈ 200 bytes an object; capped so that a huge body of tiny objects reserves little before it is read.
        samples.reserveCapacity(min((bytes.count - i) / 180 + 1, 8_192))
        if recordsStoredLines {
            storedLines = [] // a second "samples" key replaces the first's samples
            storedLines.reserveCapacity(samples.capacity)
        }
        skipWhitespace()
        if peek == UInt8(ascii: "]") { i += 1; return samples }
        while true {
            sampleIndex = samples.count
            samples.append(try parseSample(shape))
            if recordsStoredLines { storedLines.append(lastStoredLine) }
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): i += 1
            case UInt8(ascii: "]"): i += 1; sampleIndex = nil; return samples
            default: throw syntax("expected , or ] in samples")
            }
        }
    }

    // MARK: - JSON syntax

    var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    func syntax(_ message: String) -> WireError {
        .malformedJSON("\(message) at byte \(i)", index: sampleIndex)
    }

    /// Skips JSON whitespace, counting it in ``skippedWhitespace``.
    @inline(__always)
    mutating func skipWhitespace() {
        // Every whitespace byte is ≤ 0x20; most calls find a token at once.
        guard i < bytes.count, bytes[i] <= 0x20 else { return }
        let start = i
        loop: while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: break loop
            }
        }
        skippedWhitespace &+= i - start
    }

    mutating func expectObjectStart() throws(WireError) {
        skipWhitespace()
        guard peek == UInt8(ascii: "{") else { throw syntax(peek == nil ? "unexpected end of input" : "expected {") }
        i += 1
    }

    mutating func consumeObjectEnd() throws(WireError) -> Bool {
        skipWhitespace()
        if peek == UInt8(ascii: "}") { i += 1; return true }
        return false
    }

    /// After a member: `,` → true (another follows), `}` → false.
    mutating func nextMember() throws(WireError) -> Bool {
        skipWhitespace()
        switch peek {
        case UInt8(ascii: ","): i += 1; return true
        case UInt8(ascii: "}"): i += 1; return false
        default: throw syntax("expected , or }")
        }
    }

    mutating func parseKey() throws(WireError) -> String {
        skipWhitespace()
        guard peek == UInt8(ascii: "\"") else { throw syntax("expected a key") }
        let key = try parseString()
        skipWhitespace()
        guard peek == UInt8(ascii: ":") else { throw syntax("expected :") }
        i += 1
        return key
    }

    mutating func expectEnd() throws(WireError) {
        skipWhitespace()
        guard i == bytes.count else { throw syntax("unexpected bytes after the JSON value") }
    }

    mutating func matchLiteral(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard i + n <= bytes.count else { return false }
        for k in 0..<n where bytes[i + k] != literal.utf8Start[k] { return false }
        i += n
        return true
    }

    /// Parses a string at `"`, decoding escapes; plain strings are copied in one go. The text must be UTF-8 with
    /// surrogate escapes only in pairs (``WireText``), else `invalid_text`.
    mutating func parseString() throws(WireError) -> String {
        i += 1
        let start = i
        i = try scanText(from: i)
        if i < bytes.count, bytes[i] == UInt8(ascii: "\"") {
            let s = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
            i += 1
            return s
        }
        var out = Array(bytes[start..<i])
        while i < bytes.count {
            let c = bytes[i]
            switch c {
            case UInt8(ascii: "\""):
                i += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                i += 1
                guard let e = peek else { throw syntax("unexpected end of input") }
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    // Never a surrogate here (``escapedScalar(_:)`` pairs or refuses them).
                    let value = Unicode.Scalar(try escapedScalar(try hex4()))!
                    out.append(contentsOf: String(Character(value)).utf8)
                default: throw syntax("invalid escape")
                }
            default:
                if c < 0x20 { throw syntax("control character in a string") }
                let end = try scanText(from: i)
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[i..<end]))
                i = end
            }
        }
        throw syntax("unterminated string")
    }

    mutating func hex4() throws(WireError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw syntax("unexpected end of input") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i]
            let d: UInt8
            switch c {
            case 48...57: d = c - 48
            case 65...70: d = c - 55
            case 97...102: d = c - 87
            default: throw syntax("invalid \\u escape")
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    /// Parses a JSON number; plain integers without a `Double(String)` round trip. A number `Double` cannot hold
    /// (`1e999`) is an error.
    mutating func parseNumber() throws(WireError) -> Double {
        let value = try parseAnyNumber()
        guard value.isFinite else { throw syntax("invalid number") }
        return value
    }

    /// Parses a JSON number as ``parseNumber()`` does, but gives `±infinity` for one too large for `Double` (its
    /// syntax is still checked): for readers that skip such a value rather than refuse the body.
    mutating func parseAnyNumber() throws(WireError) -> Double {
        let start = i
        var negative = false
        if peek == UInt8(ascii: "-") { negative = true; i += 1 }
        guard let first = peek, first >= 48, first <= 57 else { throw syntax("invalid number") }
        var integer: UInt64 = 0
        var digits = 0
        if first == 48 {
            i += 1
            digits = 1
        } else {
            while let c = peek, c >= 48, c <= 57 {
                integer = integer &* 10 &+ UInt64(c - 48)
                digits += 1
                i += 1
            }
        }
        var isInteger = true
        if peek == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard let c = peek, c >= 48, c <= 57 else { throw syntax("invalid number") }
            while let c = peek, c >= 48, c <= 57 { i += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            isInteger = false
            i += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
            guard let c = peek, c >= 48, c <= 57 else { throw syntax("invalid number") }
            while let c = peek, c >= 48, c <= 57 { i += 1 }
        }
        if isInteger, digits <= 15 {
            lastNumberIsCanonical = !negative && (first != 48 || digits == 1)
            return negative ? -Double(integer) : Double(integer)
        }
        lastNumberIsCanonical = false
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        guard let value = Double(text) else { throw syntax("invalid number") }
        return value
    }

    /// Skips any JSON value (checking its syntax).
    mutating func skipValue(depth: Int = 0) throws(WireError) {
        guard depth < 64 else { throw syntax("nesting too deep") }
        skipWhitespace()
        guard let c = peek else { throw syntax("unexpected end of input") }
        switch c {
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "{"):
            i += 1
            if try consumeObjectEnd() { return }
            repeat {
                skipWhitespace()
                guard peek == UInt8(ascii: "\"") else { throw syntax("expected a key") }
                try skipString()
                skipWhitespace()
                guard peek == UInt8(ascii: ":") else { throw syntax("expected :") }
                i += 1
                try skipValue(depth: depth + 1)
            } while try nextMember()
        case UInt8(ascii: "["):
            i += 1
            skipWhitespace()
            if peek == UInt8(ascii: "]") { i += 1; return }
            while true {
                try skipValue(depth: depth + 1)
                skipWhitespace()
                switch peek {
                case UInt8(ascii: ","): i += 1
                case UInt8(ascii: "]"): i += 1; return
                default: throw syntax("expected , or ]")
                }
            }
        case UInt8(ascii: "t"): guard matchLiteral("true") else { throw syntax("invalid literal") }
        case UInt8(ascii: "f"): guard matchLiteral("false") else { throw syntax("invalid literal") }
        case UInt8(ascii: "n"): guard matchLiteral("null") else { throw syntax("invalid literal") }
        case UInt8(ascii: "-"), 48...57: _ = readsAnyNumber ? try parseAnyNumber() : try parseNumber()
        default: throw syntax("unexpected character")
        }
    }

    /// Skips a string at `"`, checking its escapes and its text (``WireText``), without building it.
    private mutating func skipString() throws(WireError) {
        i += 1
        while true {
            i = try scanText(from: i)
            guard let c = peek else { break }
            switch c {
            case UInt8(ascii: "\""):
                i += 1
                return
            case UInt8(ascii: "\\"):
                i += 1
                guard let e = peek else { throw syntax("unexpected end of input") }
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "n"), UInt8(ascii: "r"),
                     UInt8(ascii: "t"), UInt8(ascii: "b"), UInt8(ascii: "f"):
                    i += 1
                case UInt8(ascii: "u"):
                    i += 1
                    _ = try escapedScalar(try hex4())
                default: throw syntax("invalid escape")
                }
            default:
                throw syntax("control character in a string")
            }
        }
        throw syntax("unterminated string")
    }
}
