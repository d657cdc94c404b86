import Foundation
import StepSyncCore
#if canImport(StepSyncImport)
@testable import StepSyncImport
#endif

/// What the importer's attribute-level decoders promise for any bytes, as a check that returns the broken promises
/// (empty when all hold). The input is used whole as the raw attributes of a `<Record>`, as one attribute value, as
/// a date, as a number and as a device description. The `xml-attributes` fuzz target compiles this file;
/// `FuzzReplayTests` runs every corpus and crash file through it once. The promises:
/// 1. any bytes are safe in ``XMLAttributes``, ``HealthDate``, ``RecordDecoder`` and ``HealthDevice``;
/// 2. the attributes ``XMLAttributes/forEach(_:line:_:)`` finds, written out again as `name="value"`, are found
///    again the same; its errors name the line it was given;
/// 3. ``XMLAttributes/decode(_:)`` leaves a value without `&` or control characters as it is, and undoes XML
///    escaping: any text without control characters, escaped (`&amp;`, `&lt;`, `&#233;`, `&#x4E2D;` …), decodes
///    back to itself;
/// 4. ``HealthDate/parse(_:)`` reads `YYYY-MM-DD HH:MM:SS ±HHMM` as the ISO-8601 parser reads the same instant
///    written `YYYY-MM-DDTHH:MM:SS±HH:MM` (a leap second `:60` as `:59`), with that offset; it accepts what the
///    ISO-8601 parser refuses only outside ``Instants``; other lengths it leaves to the ISO-8601 parser;
/// 5. ``RecordDecoder/number(_:)`` reads decimal notation only — `-?(digits[.digits]|.digits)([eE][+-]?digits)?`
///    between spaces — exactly as the standard library's `Double(String)` does (too large: infinite, for
///    ``SampleValidation`` to refuse), and gives `nil` for anything else (`+1`, `0x1p3`, `nan`, `-inf`);
/// 6. the bytes as the attributes of a `<Record>` written twice in a document give no sample or two equal ones
///    (uuid included: the decoder's caches change nothing) that end at or after their start with a finite value;
///    an error names one of the document's four lines and quotes at most two values of 64 characters. (Through
///    ``HealthExportParser``, the decoder's stable surface.)
enum XMLAttributesOracle {
    /// The promises `bytes` breaks.
    static func problems(_ bytes: UnsafeRawBufferPointer) -> [String] {
        attributeProblems(bytes) + decodeProblems(bytes) + dateProblems(bytes) + numberProblems(bytes)
            + recordProblems(bytes) + deviceProblems(bytes)
    }

    static func attributeProblems(_ bytes: UnsafeRawBufferPointer) -> [String] {
        var pairs: [([UInt8], [UInt8])] = []
        do {
            try XMLAttributes.forEach(bytes, line: 5) { pairs.append((Array($0), Array($1))) }
        } catch let problem as XMLProblem {
            return problem.line == 5 ? [] : ["forEach's error names line \(problem.line), not 5"]
        } catch {
            return ["forEach threw \(error)"]
        }
        var written: [UInt8] = []
        for (name, value) in pairs {
            written += [0x20] + name + Array("=".utf8)
            let quote = value.contains(UInt8(ascii: "\"")) ? UInt8(ascii: "'") : UInt8(ascii: "\"")
            written += [quote] + value + [quote]
        }
        var again: [([UInt8], [UInt8])] = []
        do {
            try written.withUnsafeBytes { try XMLAttributes.forEach($0, line: 5) { again.append((Array($0), Array($1))) } }
        } catch {
            return ["the attributes written out again are refused: \(error)"]
        }
        return again.elementsEqual(pairs, by: { $0.0 == $1.0 && $0.1 == $1.1 }) ? [] : ["the attributes written out again read differently"]
    }

    static func decodeProblems(_ bytes: UnsafeRawBufferPointer) -> [String] {
        var problems: [String] = []
        let decoded = XMLAttributes.decode(bytes)
        if !XMLAttributes.needsDecoding(bytes), decoded != String(decoding: bytes, as: UTF8.self) {
            problems.append("a value without entities or control characters was changed")
        }
        let text = String(String.UnicodeScalarView(String(decoding: bytes, as: UTF8.self).unicodeScalars.filter { $0.value >= 0x20 }))
        let escaped = escape(text)
        let back = Array(escaped.utf8).withUnsafeBytes { XMLAttributes.decode($0) }
        if back.unicodeScalars.elementsEqual(text.unicodeScalars) == false {
            problems.append("escaped text does not decode back: \(escaped.prefix(80))")
        }
        return problems
    }

    /// XML-escapes `text`: markup characters as named entities, non-ASCII as decimal or hex character references.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case _ where scalar.value >= 0x80 && scalar.value % 2 == 0: out += "&#\(scalar.value);"
            case _ where scalar.value >= 0x80: out += "&#x\(String(scalar.value, radix: 16, uppercase: scalar.value % 3 == 0));"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func dateProblems(_ b: UnsafeRawBufferPointer) -> [String] {
        let health = HealthDate.parse(b)
        guard b.count == 25 else {
            let iso = ISO8601Millis.parse(utf8: b)
            return health?.ms == iso && health?.offsetSeconds == nil ? [] : ["HealthDate gave \(String(describing: health)), ISO-8601 \(String(describing: iso))"]
        }
        let shape = Array("dddd-dd-dd dd:dd:dd sdddd".utf8)
        for (c, s) in zip(b, shape) {
            switch s {
            case UInt8(ascii: "d"): if !(48...57).contains(c) { return health == nil ? [] : ["HealthDate accepted a non-digit"] }
            case UInt8(ascii: "s"): if c != UInt8(ascii: "+"), c != UInt8(ascii: "-") { return health == nil ? [] : ["HealthDate accepted a sign \(c)"] }
            default: if c != s { return health == nil ? [] : ["HealthDate accepted \(c) for \(s)"] }
            }
        }
        var t = Array(b)
        if t[17] == UInt8(ascii: "6"), t[18] == UInt8(ascii: "0") { (t[17], t[18]) = (UInt8(ascii: "5"), UInt8(ascii: "9")) }
        let iso = Array(t[0..<10]) + Array("T".utf8) + Array(t[11..<19]) + Array(t[20..<23]) + Array(":".utf8) + Array(t[23..<25])
        let isoMs = iso.withUnsafeBytes { ISO8601Millis.parse(utf8: $0) }
        let digit = { (i: Int) in Int(b[i]) - 48 }
        let offset = (b[20] == UInt8(ascii: "-") ? -1 : 1) * ((digit(21) * 10 + digit(22)) * 3600 + (digit(23) * 10 + digit(24)) * 60)
        switch (health, isoMs) {
        case (nil, nil): return []
        case (let h?, let i?) where h.ms == i && h.offsetSeconds == Int32(offset): return []
        case (let h?, nil) where !Instants.contains(h.ms): return []
        default: return ["HealthDate gave \(String(describing: health)), ISO-8601 \(String(describing: isoMs)) for \(String(decoding: iso, as: UTF8.self))"]
        }
    }

    static func numberProblems(_ b: UnsafeRawBufferPointer) -> [String] {
        let ours = RecordDecoder.number(b)
        let text = String(decoding: b, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        let expected = isDecimal(text) ? Double(text) : nil
        if ours == expected, ours?.sign == expected?.sign { return [] }
        return ["number gave \(String(describing: ours)) for \"\(text.prefix(40))\", expected \(String(describing: expected))"]
    }

    /// Whether `text` is `-?(digits[.digits]|.digits)([eE][+-]?digits)?`.
    static func isDecimal(_ text: String) -> Bool {
        var u = Substring(text).utf8[...]
        func digits() -> Int {
            var n = 0
            while let c = u.first, c >= 48, c <= 57 { u.removeFirst(); n += 1 }
            return n
        }
        if u.first == UInt8(ascii: "-") { u.removeFirst() }
        var mantissa = digits()
        if u.first == UInt8(ascii: ".") { u.removeFirst(); mantissa += digits() }
        guard mantissa > 0 else { return false }
        if u.first == UInt8(ascii: "e") || u.first == UInt8(ascii: "E") {
            u.removeFirst()
            if u.first == UInt8(ascii: "+") || u.first == UInt8(ascii: "-") { u.removeFirst() }
            guard digits() > 0 else { return false }
        }
        return u.isEmpty
    }

    static func recordProblems(_ bytes: UnsafeRawBufferPointer) -> [String] {
        let record = Array("<Record ".utf8) + Array(bytes) + Array("/>\n".utf8)
        let document = Array("<HealthData>\n".utf8) + record + record + Array("</HealthData>".utf8)
        var scanner = XMLChunkScanner()
        var parser = HealthExportParser()
        var samples: [HealthSample] = []
        var problems: [String] = []
        do {
            try document.withUnsafeBytes { try scanner.feed($0, to: &parser) }
            samples = parser.drain()
            try scanner.finish()
            try parser.finish(line: scanner.line)
        } catch let problem as XMLProblem {
            let lines = document.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            if problem.line < 1 || problem.line > lines { problems.append("an error names line \(problem.line) of \(lines)") }
            if problem.reason.utf8.count > HealthExportOracle.maxReasonBytes {
                problems.append("an error reason of \(problem.reason.utf8.count) bytes: \(ImportFuzzText.head(problem.reason))…")
            }
        } catch {
            problems.append("the parser threw \(error)")
        }
        for sample in samples where sample.endMs < sample.startMs || !sample.value.isFinite {
            problems.append("a record gave a sample \(sample.startMs)…\(sample.endMs) of value \(sample.value)")
        }
        if samples.count == 2, samples[0] != samples[1] { problems.append("the same record read twice gave two samples") }
        return problems
    }

    static func deviceProblems(_ bytes: UnsafeRawBufferPointer) -> [String] {
        let description = String(decoding: bytes, as: UTF8.self)
        let device = HealthDevice(description: description)
        let prefix = "<<HKDevice: 0x"
        // Only a description the reader took apart into fields; anything else is kept whole, address and all.
        guard description.hasPrefix(prefix), device.identity != description else { return [] }
        let rest = description.dropFirst(prefix.count).drop { $0.isHexDigit }
        let other = HealthDevice(description: prefix + "5f3a9c" + rest)
        return other.identity == device.identity || !rest.hasPrefix(">") ? [] : ["the device's identity depends on its address"]
    }
}
