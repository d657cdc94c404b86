import Foundation

extension WireParser {
    /// Parses one sample object in `shape` (see ``WireShape`` for its fields). Only the syntax and the JSON types are
    /// checked here; ``SampleValidation`` checks the content.
    ///
    /// On the way it notes whether the object's bytes are already the line the sink stores for the sample
    /// (``WireEncoder/appendStoredLine(_:to:)`` without its newline) and sets ``lastStoredLine`` to their range if so:
    /// the keys in the encoder's order with nothing else, no whitespace, no escapes, only ASCII text, an upper-case
    /// uuid, dates as `YYYY-MM-DDTHH:MM:SS.mmmZ`, the value a plain integer, no `null`. What stepsync's client sends
    /// is that; the sink then copies the bytes instead of encoding the sample again (both give the same line, which
    /// `WireDecoderTests` checks on every case).
    mutating func parseSample(_ shape: WireShape) throws(WireError) -> HealthSample {
        skipWhitespace()
        guard peek == UInt8(ascii: "{") else {
            if peek == nil { throw syntax("unexpected end of input") }
            throw .wrongType("samples", index: sampleIndex, expected: "an array of objects")
        }
        var uuid: UUID?, type: SampleType?, start: Int64?, end: Int64?, value: Double?
        var unit: String?, name: String?, bundle: String?, device: String?, version: String?, model: String?
        var details: String?
        let steps = shape == .steps
        let objectStart = i
        let whitespaceBefore = skippedWhitespace
        // Whether the bytes are the stored line so far, and the rank (in the encoder's order) of the last key.
        var canonical = recordsStoredLines
        var rank = 0
        try expectObjectStart()
        if try !consumeObjectEnd() {
            repeat {
                // In a body of the encoder's objects the next key is the one after the last in its order: its
                // bytes are compared at once instead of scanned for the closing quote and then recognised.
                let (key, plain): (WireKey, Bool)
                do throws(WireError) {
                    (key, plain) = try parseSampleKey(predicted: canonical ? Self.storedKey(after: rank, steps: steps) : nil)
                } catch {
                    throw error.naming("(a key)")
                }
                if canonical {
                    let next = Self.storedRank(of: key, steps: steps)
                    canonical = plain && next > rank
                    rank = next
                }
                do throws(WireError) {
                switch key {
                case .uuid:
                    if let raw = fixedStringField(36), let parsed = Self.parseUUID(raw) {
                        // Every byte was a hex digit or a hyphen: no escape to look for, nothing else to scan.
                        uuid = parsed
                        i += 38
                        if canonical { canonical = Self.isUpperCaseUUID(raw) }
                        break
                    }
                    let (raw, text) = try rawStringField("uuid")
                    uuid = raw.flatMap(Self.parseUUID) ?? text.flatMap(UUID.init(uuidString:))
                    guard uuid != nil else { throw .invalidUUID(text ?? Self.string(raw!), index: sampleIndex) }
                    if canonical { canonical = raw.map(Self.isUpperCaseUUID) ?? false }
                case .startDate, .endDate:
                    if let raw = fixedStringField(24), let ms = ISO8601Millis.parse(utf8: raw) {
                        // The parser checked every byte (digits and separators): no escape is possible.
                        if key == .startDate { start = ms } else { end = ms }
                        i += 26
                        if canonical { canonical = Self.isStoredDate(raw) }
                        break
                    }
                    let (raw, text) = try rawStringField(key.rawValue)
                    let ms = raw.flatMap(ISO8601Millis.parse(utf8:)) ?? text.flatMap(ISO8601Millis.parse)
                    guard let ms else { throw Self.dateError(key.rawValue, raw: raw, text: text, index: sampleIndex) }
                    if key == .startDate { start = ms } else { end = ms }
                    if canonical { canonical = raw.map(Self.isStoredDate) ?? false }
                case .count where steps, .value where !steps:
                    skipWhitespace()
                    guard let c = peek, c == UInt8(ascii: "-") || (c >= 48 && c <= 57) else {
                        try wrongType(key.rawValue, expected: "a number")
                    }
                    value = try parseNumber()
                    canonical = canonical && lastNumberIsCanonical
                case .type where !steps:
                    type = try internedField("type", .type, canonical: &canonical).map(SampleType.init(rawValue:))
                case .unit: unit = try internedField("unit", .unit, canonical: &canonical)
                case .sourceName: name = try internedField("sourceName", .sourceName, canonical: &canonical)
                case .sourceBundleId: bundle = try internedField("sourceBundleId", .sourceBundleId, canonical: &canonical)
                case .sourceDeviceName:
                    device = try internedField("sourceDeviceName", .sourceDeviceName, nullable: true, canonical: &canonical)
                case .sourceVersion:
                    version = try internedField("sourceVersion", .sourceVersion, nullable: true, canonical: &canonical)
                case .deviceModel:
                    model = try internedField("deviceModel", .deviceModel, nullable: true, canonical: &canonical)
                case .details:
                    let detailsStart = i
                    details = try detailsField()
                    if canonical {
                        canonical = details != nil
                            && Self.isASCII(UnsafeRawBufferPointer(rebasing: bytes[detailsStart..<i]))
                    }
                default: try skipValue()
                }
                } catch {
                    throw error.naming(key == .other ? keyName() : key.rawValue)
                }
            } while try nextMember()
        }
        // A step count sent as a `POST /samples` object is stored in the `POST /steps` layout.
        lastStoredLine = canonical && skippedWhitespace == whitespaceBefore && (steps || type != .stepCount)
            ? objectStart..<i : nil
        guard let uuid else { throw .missingField("uuid", index: sampleIndex) }
        if steps { type = .stepCount }
        guard let type else { throw .missingField("type", index: sampleIndex) }
        guard let start else { throw .missingField("startDate", index: sampleIndex) }
        guard let end else { throw .missingField("endDate", index: sampleIndex) }
        guard let value else { throw .missingField(steps ? "count" : "value", index: sampleIndex) }
        if steps {
            unit = unit ?? "count"
            name = name ?? ""
        }
        guard let unit else { throw .missingField("unit", index: sampleIndex) }
        guard let name else { throw .missingField("sourceName", index: sampleIndex) }
        guard let bundle else { throw .missingField("sourceBundleId", index: sampleIndex) }
        return HealthSample(uuid: uuid, type: type, startMs: start, endMs: end, value: value, unit: unit,
                            sourceName: name, sourceBundleId: bundle, sourceVersion: version, deviceName: device,
                            deviceModel: model, details: details)
    }

    /// The next key of a sample object and its `:`, recognised from its bytes (``WireKey``); a key with escapes is
    /// decoded first (`plain` is then `false`: the key's bytes are not the encoder's). When the bytes are
    /// `"<predicted>":` they are taken as that key without scanning.
    private mutating func parseSampleKey(predicted: WireKey?) throws(WireError) -> (key: WireKey, plain: Bool) {
        skipWhitespace()
        guard peek == UInt8(ascii: "\"") else { throw syntax("expected a key") }
        let start = i + 1
        if let predicted {
            let literal = predicted.literal
            let n = literal.utf8CodeUnitCount
            if start + n + 1 < bytes.count, bytes[start + n] == UInt8(ascii: "\""), bytes[start + n + 1] == UInt8(ascii: ":"),
               memcmp(bytes.baseAddress! + start, literal.utf8Start, n) == 0 {
                i = start + n + 2
                return (predicted, true)
            }
        }
        let k = try scanText(from: start)
        lastKeyStart = start
        let key: WireKey
        let plain = k < bytes.count && bytes[k] == UInt8(ascii: "\"")
        if plain {
            key = WireKey.of(UnsafeRawBufferPointer(rebasing: bytes[start..<k]))
            i = k + 1
        } else {
            key = WireKey(rawValue: try parseString()) ?? .other
        }
        skipWhitespace()
        guard peek == UInt8(ascii: ":") else { throw syntax("expected :") }
        i += 1
        return (key, plain)
    }

    /// The last sample key read (for an error in an unknown field's value), as a short excerpt.
    private func keyName() -> String {
        var k = lastKeyStart
        while k < bytes.count, bytes[k] != UInt8(ascii: "\""), bytes[k] != UInt8(ascii: "\\") { k += 1 }
        return InputExcerpt.of(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[lastKeyStart..<k]), as: UTF8.self))
    }

    /// The `length` bytes between a `"` here and a `"` right after them, or `nil`: a fixed-width value (a uuid, a
    /// date) taken without scanning. Only valid when the caller's parse of the bytes then accepts every one of them
    /// (so none is a quote, a backslash or a control character); otherwise it falls back to ``rawStringField(_:)``.
    @inline(__always)
    private mutating func fixedStringField(_ length: Int) -> UnsafeRawBufferPointer? {
        skipWhitespace()
        let end = i + 1 + length
        guard end < bytes.count, bytes[i] == UInt8(ascii: "\""), bytes[end] == UInt8(ascii: "\"") else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[(i + 1)..<end])
    }

    /// A string field as its raw bytes when it holds no escape (the common case), else decoded.
    private mutating func rawStringField(_ key: String) throws(WireError) -> (UnsafeRawBufferPointer?, String?) {
        skipWhitespace()
        guard peek == UInt8(ascii: "\"") else { try wrongType(key, expected: "a string") }
        let start = i + 1
        let k = try scanText(from: start)
        if k < bytes.count, bytes[k] == UInt8(ascii: "\"") {
            i = k + 1
            return (UnsafeRawBufferPointer(rebasing: bytes[start..<k]), nil)
        }
        return (nil, try parseString())
    }

    /// A string field (or `nil` for `null` when `nullable`), reusing the previous sample's string when equal.
    /// `canonical` is cleared unless the field's bytes are what the encoder writes for the string (no escape, ASCII).
    private mutating func internedField(
        _ key: String, _ field: InternedStrings.Field, nullable: Bool = false,
        canonical: inout Bool
    ) throws(WireError) -> String? {
        skipWhitespace()
        if nullable, peek == UInt8(ascii: "n") {
            guard matchLiteral("null") else { throw syntax("invalid literal") }
            canonical = false
            return nil
        }
        let (raw, text) = try rawStringField(key)
        guard let raw else {
            canonical = false
            return text
        }
        return interned.string(field, raw, canonical: &canonical)
    }

    /// `details`: a JSON object kept as its text with the whitespace between tokens removed (so it fits a JSONL
    /// line and is stored and served back as the same JSON value), or `nil` for `null`.
    private mutating func detailsField() throws(WireError) -> String? {
        skipWhitespace()
        if peek == UInt8(ascii: "n") {
            guard matchLiteral("null") else { throw syntax("invalid literal") }
            return nil
        }
        guard peek == UInt8(ascii: "{") else { try wrongType("details", expected: "a JSON object") }
        let start = i
        do throws(WireError) {
            try skipValue(depth: 1)
        } catch {
            // Name where in `details` a string is refused (only on that error: a second, slow walk up to it).
            guard let offset = error.textOffset else { throw error }
            throw error.locating(Self.jsonPath(bytes, from: start, to: offset))
        }
        return Self.minified(UnsafeRawBufferPointer(rebasing: bytes[start..<i]))
    }

    /// `json` (syntactically valid) without the whitespace outside its strings.
    static func minified(_ json: UnsafeRawBufferPointer) -> String {
        var hasSpace = false
        var inString = false
        var escaped = false
        for c in json {
            if inString {
                if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                hasSpace = true
                break
            }
        }
        guard hasSpace else { return String(decoding: json, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(json.count)
        inString = false
        escaped = false
        for c in json {
            if inString {
                if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
                out.append(c)
            } else if c == UInt8(ascii: "\"") {
                inString = true
                out.append(c)
            } else if c != 0x20, c != 0x0A, c != 0x0D, c != 0x09 {
                out.append(c)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func wrongType(_ key: String, expected: String) throws(WireError) -> Never {
        // A syntax error in the offending value wins over its type.
        try skipValue()
        throw .wrongType(key, index: sampleIndex, expected: expected)
    }

    static func string(_ raw: UnsafeRawBufferPointer) -> String { String(decoding: raw, as: UTF8.self) }

    /// The error for a date that ``ISO8601Millis/parse(_:)`` refused: `instant_out_of_range` (naming the range)
    /// when it is a well-formed date outside ``Instants`` — year 0000, or a time whose offset carries it past
    /// 9999-12-31 or before 0001-01-01 — else `invalid_date`.
    static func dateError(_ field: String, raw: UnsafeRawBufferPointer?, text: String?, index: Int?) -> WireError {
        var bytes = raw.map { Array($0) } ?? Array((text ?? "").utf8)
        let shown = text ?? string(raw!)
        guard bytes.count >= 10, bytes.count <= 64 else { return .invalidDate(field, shown, index: index) }
        // Move the date into range without changing its form: year 0000 → 2000 (both leap years), offset → Z.
        if bytes[0..<4] == [48, 48, 48, 48] { bytes[0] = UInt8(ascii: "2") }
        if bytes.count > 16, let sign = bytes[16...].firstIndex(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }) {
            guard isOffset(bytes[(sign + 1)...]) else { return .invalidDate(field, shown, index: index) }
            bytes.removeSubrange(sign...)
            bytes.append(UInt8(ascii: "Z"))
        }
        let wellFormed = bytes.withUnsafeBytes { ISO8601Millis.parse(utf8: $0) } != nil
        guard wellFormed else { return .invalidDate(field, shown, index: index) }
        return .invalidSample(SampleProblem(.instantOutOfRange, field: field, detail: "is outside \(Instants.description)"),
                              index: index)
    }

    /// Whether `b` is `HH:MM` or `HHMM` with HH < 24 and MM < 60 (an offset after its sign).
    private static func isOffset(_ b: ArraySlice<UInt8>) -> Bool {
        let digits = b.filter { $0 != UInt8(ascii: ":") }
        guard digits.count == 4, b.count == 4 || (b.count == 5 && b[b.startIndex + 2] == UInt8(ascii: ":")),
              digits.allSatisfy({ $0 >= 48 && $0 <= 57 })
        else { return false }
        let d = digits.map { Int($0) - 48 }
        return d[0] * 10 + d[1] < 24 && d[2] * 10 + d[3] < 60
    }

    /// Parses the 36 characters of a hyphenated UUID in either case, without allocating.
    ///
    /// Branch-free per digit (a digit or a letter of either case is told by two subtractions, a bad byte only sets
    /// a flag checked once at the end): the branchy switch per byte it replaced was ≈ 4% of the sink's CPU.
    static func parseUUID(_ b: UnsafeRawBufferPointer) -> UUID? {
        guard b.count == 36 else { return nil }
        guard b[8] == UInt8(ascii: "-"), b[13] == UInt8(ascii: "-"), b[18] == UInt8(ascii: "-"),
              b[23] == UInt8(ascii: "-") else { return nil }
        var bad: UInt8 = 0
        var hi: UInt64 = 0, lo: UInt64 = 0
        @inline(__always) func digits(_ from: Int, _ count: Int, into v: inout UInt64) {
            for k in from..<(from + count) { v = v << 4 | UInt64(nibble(b[k], &bad)) }
        }
        digits(0, 8, into: &hi)
        digits(9, 4, into: &hi)
        digits(14, 4, into: &hi)
        digits(19, 4, into: &lo)
        digits(24, 12, into: &lo)
        guard bad == 0 else { return nil }
        // Big-endian: the first digit is the high nibble of the first byte.
        let bytes = (hi.bigEndian, lo.bigEndian)
        return withUnsafeBytes(of: bytes) { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }

    /// The value of a hex digit of either case; any other byte sets `bad`.
    @inline(__always) private static func nibble(_ c: UInt8, _ bad: inout UInt8) -> UInt8 {
        let digit = c &- 48
        let letter = (c | 0x20) &- 97
        let isDigit = digit < 10
        bad |= isDigit || letter < 6 ? 0 : 1
        return isDigit ? digit : letter &+ 10
    }
}
