import Foundation

/// A hand-written parser for the one JSON shape of the wire: `{"samples":[{…},…]}` with flat sample objects.
///
/// It replaced `JSONDecoder`, which decoded ≈ 10× slower than ``WireEncoder`` writes and would have capped ingest
/// (figures in `Planning/wire-format.md`). It checks full JSON syntax (strings with every escape, numbers, nesting
/// of unknown fields, trailing bytes) and reports the byte offset of a syntax error and the sample index of a
/// missing or ill-typed field.
struct WireParser {
    private let bytes: UnsafeRawBufferPointer
    private var i = 0
    private var sampleIndex: Int?

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    // MARK: - Entry points

    /// Parses `{"samples":[…]}`; unknown top-level keys are skipped.
    mutating func parseRequest() throws(WireError) -> [WireSample] {
        var samples: [WireSample]?
        try expectObjectStart()
        if try !consumeObjectEnd() {
            repeat {
                let key = try parseKey()
                if key == "samples" {
                    skipWhitespace()
                    guard peek == UInt8(ascii: "[") else {
                        if peek == nil { throw syntax("unexpected end of input") }
                        throw .wrongType("samples", index: nil, expected: "an array")
                    }
                    samples = try parseSampleArray()
                } else {
                    try skipValue()
                }
            } while try nextMember()
        }
        try expectEnd()
        guard let samples else { throw .missingField("samples", index: nil) }
        return samples
    }

    /// Parses one sample object that makes up the whole input (a `steps.jsonl` line).
    mutating func parseSingleSample(index: Int?) throws(WireError) -> WireSample {
        sampleIndex = index
        let sample = try parseSample()
        try expectEnd()
        return sample
    }

    // MARK: - Samples

    private mutating func parseSampleArray() throws(WireError) -> [WireSample] {
        i += 1 // [
        var samples: [WireSample] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") { i += 1; return samples }
        while true {
            sampleIndex = samples.count
            samples.append(try parseSample())
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): i += 1
            case UInt8(ascii: "]"): i += 1; sampleIndex = nil; return samples
            default: throw syntax("expected , or ] in samples")
            }
        }
    }

    private mutating func parseSample() throws(WireError) -> WireSample {
        skipWhitespace()
        guard peek == UInt8(ascii: "{") else {
            if peek == nil { throw syntax("unexpected end of input") }
            throw .wrongType("samples", index: sampleIndex, expected: "an array of objects")
        }
        var uuid: UUID?, start: Int64?, end: Int64?, bundle: String?, device: String?
        var count: Double?
        try expectObjectStart()
        if try !consumeObjectEnd() {
            repeat {
                let key = try parseKey()
                switch key {
                case "uuid":
                    let (raw, text) = try rawStringField(key)
                    uuid = raw.flatMap(Self.parseUUID) ?? text.flatMap(UUID.init(uuidString:))
                    guard uuid != nil else { throw .invalidUUID(text ?? Self.string(raw!), index: sampleIndex) }
                case "startDate", "endDate":
                    let (raw, text) = try rawStringField(key)
                    let ms = raw.flatMap(ISO8601Millis.parse(utf8:)) ?? text.flatMap(ISO8601Millis.parse)
                    guard let ms else { throw .invalidDate(key, text ?? Self.string(raw!), index: sampleIndex) }
                    if key == "startDate" { start = ms } else { end = ms }
                case "sourceBundleId": bundle = try stringField(key)
                case "sourceDeviceName": device = try stringField(key, nullable: true)
                case "count":
                    skipWhitespace()
                    guard let c = peek, c == UInt8(ascii: "-") || (c >= 48 && c <= 57) else {
                        try wrongType(key, expected: "a number")
                    }
                    count = try parseNumber()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let uuid else { throw .missingField("uuid", index: sampleIndex) }
        guard let start else { throw .missingField("startDate", index: sampleIndex) }
        guard let end else { throw .missingField("endDate", index: sampleIndex) }
        guard let count else { throw .missingField("count", index: sampleIndex) }
        guard let bundle else { throw .missingField("sourceBundleId", index: sampleIndex) }
        guard end >= start else { throw .endBeforeStart(index: sampleIndex) }
        guard count >= 0, count <= WireSample.maximumCount else { throw .invalidCount(count, index: sampleIndex) }
        return WireSample(uuid: uuid, startMs: start, endMs: end, count: count, sourceBundleId: bundle,
                          sourceDeviceName: device)
    }

    /// A string field as its raw bytes when it holds no escape (the common case), else decoded.
    private mutating func rawStringField(_ key: String) throws(WireError) -> (UnsafeRawBufferPointer?, String?) {
        skipWhitespace()
        guard peek == UInt8(ascii: "\"") else { try wrongType(key, expected: "a string") }
        let start = i + 1
        var k = start
        while k < bytes.count, bytes[k] != UInt8(ascii: "\""), bytes[k] != UInt8(ascii: "\\"), bytes[k] >= 0x20 { k += 1 }
        if k < bytes.count, bytes[k] == UInt8(ascii: "\"") {
            i = k + 1
            return (UnsafeRawBufferPointer(rebasing: bytes[start..<k]), nil)
        }
        return (nil, try parseString())
    }

    private static func string(_ raw: UnsafeRawBufferPointer) -> String { String(decoding: raw, as: UTF8.self) }

    /// Parses the 36 characters of a hyphenated UUID in either case, without allocating.
    static func parseUUID(_ b: UnsafeRawBufferPointer) -> UUID? {
        guard b.count == 36 else { return nil }
        var out: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let ok = withUnsafeMutableBytes(of: &out) { o -> Bool in
            var j = 0
            for n in 0..<16 {
                if n == 4 || n == 6 || n == 8 || n == 10 {
                    guard b[j] == UInt8(ascii: "-") else { return false }
                    j += 1
                }
                guard let hi = nibble(b[j]), let lo = nibble(b[j + 1]) else { return false }
                o[n] = hi << 4 | lo
                j += 2
            }
            return true
        }
        return ok ? UUID(uuid: out) : nil
    }

    @inline(__always) private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 65...70: return c - 55
        case 97...102: return c - 87
        default: return nil
        }
    }

    private mutating func stringField(_ key: String, nullable: Bool = false) throws(WireError) -> String? {
        skipWhitespace()
        if peek == UInt8(ascii: "\"") { return try parseString() }
        if nullable, matchLiteral("null") { return nil }
        try wrongType(key, expected: "a string")
    }

    private mutating func wrongType(_ key: String, expected: String) throws(WireError) -> Never {
        // A syntax error in the offending value wins over its type.
        try skipValue()
        throw .wrongType(key, index: sampleIndex, expected: expected)
    }

    // MARK: - JSON syntax

    private var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    private func syntax(_ message: String) -> WireError {
        .malformedJSON("\(message) at byte \(i)", index: sampleIndex)
    }

    private mutating func skipWhitespace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    private mutating func expectObjectStart() throws(WireError) {
        skipWhitespace()
        guard peek == UInt8(ascii: "{") else { throw syntax(peek == nil ? "unexpected end of input" : "expected {") }
        i += 1
    }

    private mutating func consumeObjectEnd() throws(WireError) -> Bool {
        skipWhitespace()
        if peek == UInt8(ascii: "}") { i += 1; return true }
        return false
    }

    /// After a member: `,` → true (another follows), `}` → false.
    private mutating func nextMember() throws(WireError) -> Bool {
        skipWhitespace()
        switch peek {
        case UInt8(ascii: ","): i += 1; return true
        case UInt8(ascii: "}"): i += 1; return false
        default: throw syntax("expected , or }")
        }
    }

    private mutating func parseKey() throws(WireError) -> String {
        skipWhitespace()
        guard peek == UInt8(ascii: "\"") else { throw syntax("expected a key") }
        let key = try parseString()
        skipWhitespace()
        guard peek == UInt8(ascii: ":") else { throw syntax("expected :") }
        i += 1
        return key
    }

    private mutating func expectEnd() throws(WireError) {
        skipWhitespace()
        guard i == bytes.count else { throw syntax("unexpected bytes after the JSON value") }
    }

    private mutating func matchLiteral(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard i + n <= bytes.count else { return false }
        for k in 0..<n where bytes[i + k] != literal.utf8Start[k] { return false }
        i += n
        return true
    }

    /// Parses a string at `"`, decoding escapes; plain strings are copied in one go.
    private mutating func parseString() throws(WireError) -> String {
        i += 1
        let start = i
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
                i += 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw syntax("control character in a string") }
            i += 1
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
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), matchLiteral("\\u") {
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw syntax("invalid surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    let value = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                    out.append(contentsOf: Array(String(Character(value)).utf8))
                default: throw syntax("invalid escape")
                }
            default:
                if c < 0x20 { throw syntax("control character in a string") }
                out.append(c)
                i += 1
            }
        }
        throw syntax("unterminated string")
    }

    private mutating func hex4() throws(WireError) -> UInt32 {
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

    /// Parses a JSON number; plain integers without a `Double(String)` round trip.
    private mutating func parseNumber() throws(WireError) -> Double {
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
            return negative ? -Double(integer) : Double(integer)
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw syntax("invalid number") }
        return value
    }

    /// Skips any JSON value (checking its syntax).
    private mutating func skipValue(depth: Int = 0) throws(WireError) {
        guard depth < 64 else { throw syntax("nesting too deep") }
        skipWhitespace()
        guard let c = peek else { throw syntax("unexpected end of input") }
        switch c {
        case UInt8(ascii: "\""): _ = try parseString()
        case UInt8(ascii: "{"):
            i += 1
            if try consumeObjectEnd() { return }
            repeat {
                _ = try parseKey()
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
        case UInt8(ascii: "-"), 48...57: _ = try parseNumber()
        default: throw syntax("unexpected character")
        }
    }
}
