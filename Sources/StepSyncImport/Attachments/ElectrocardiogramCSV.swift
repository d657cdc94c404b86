import StepSyncCore

/// One Apple Watch ECG as the Health app exports it: `electrocardiograms/ecg_YYYY-MM-DD[_N].csv` in `export.zip`.
///
/// The file, as found in exports of several locales (`Planning/import.md`):
///
/// ```
/// Name,Anna Example
/// Date of Birth,"Jan 15, 1990"
/// Recorded Date,2025-06-05 10:07:00 +0200
/// Classification,Sinus Rhythm
/// Symptoms,
/// Software Version,1.90
/// Device,"Watch6,2"
/// Sample Rate,512 hertz
///
///
/// Lead,Lead I
/// Unit,µV
///
/// -265.868
/// -271.819
/// …                      (about 15,360 lines: 30 s at 512 Hz)
/// ```
///
/// Header keys are English in every locale seen; values are written in the device's language (`Sinusrhythmus`) and
/// voltages with the device's decimal separator (`-265,868` in German or Portuguese exports). Values may be quoted
/// (`"Watch6,2"`, with `""` for a quote); blank lines occur anywhere in the header; files may start with a byte-order
/// mark and use CRLF. The header ends at the first line that is a number. `Name` and `Date of Birth` are personal and
/// are not kept.
@dynamicMemberLookup
public struct ElectrocardiogramCSV: Hashable, Sendable {
    /// What the file's header says (the one declaration of those fields, stored with every part): start, UTC offset,
    /// classification, symptoms, software version, device, rate, lead, unit; its `voltageCount` is the voltages'.
    public var header: ElectrocardiogramHeader
    /// The voltages, in file order.
    public var microvolts: [Double]

    /// A field of ``header`` (`ecg.recordedMs`, `ecg.sampleRateHz`, …).
    public subscript<T>(dynamicMember field: KeyPath<ElectrocardiogramHeader, T>) -> T { header[keyPath: field] }

    /// The recording's length implied by its samples and rate, milliseconds.
    public var durationMs: Int64 { Int64((Double(microvolts.count) / header.sampleRateHz * 1000).rounded()) }

    /// The most bytes an ECG file may have (a 30 s recording is about 120 KB).
    public static let maxBytes = 16 << 20

    /// Parses one file's bytes.
    ///
    /// - Throws: ``ElectrocardiogramCSVError`` naming the line and the problem: no or unreadable `Recorded Date`, no
    ///   or unreadable `Sample Rate`, a line among the voltages that is not a number, no voltages, an unterminated
    ///   quote, more than ``maxBytes`` bytes, text that is not UTF-8.
    public static func parse(_ bytes: some Collection<UInt8>) throws(ElectrocardiogramCSVError) -> ElectrocardiogramCSV {
        guard bytes.count <= maxBytes else {
            throw .init(line: nil, problem: "is \(bytes.count) bytes, over the limit of \(maxBytes) for an ECG")
        }
        var text = Array(bytes)
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text.removeFirst(3) }
        guard let whole = String(validating: text, as: UTF8.self) else {
            throw .init(line: nil, problem: "is not UTF-8 text")
        }
        var header: [String: String] = [:]
        var microvolts: [Double] = []
        microvolts.reserveCapacity(15_360)
        var lineNumber = 0
        // "\r\n" is one Character in Swift: split on both.
        for rawLine in whole.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            var line = rawLine
            if line.last == "\r" { line.removeLast() }
            let trimmed = line.trimmingSpaces
            if trimmed.isEmpty { continue }
            if let value = voltage(trimmed) {
                microvolts.append(value)
                continue
            }
            guard microvolts.isEmpty else {
                throw .init(line: lineNumber, problem: "\(InputExcerpt.of(String(trimmed))) is not a voltage")
            }
            let fields = try fields(of: line, lineNumber: lineNumber)
            let key = fields[0].trimmingSpaces.lowercased()
            if header[key] == nil { header[key] = String(fields.dropFirst().joined(separator: ",").trimmingSpaces) }
        }
        guard let recorded = header["recorded date"] else {
            throw .init(line: nil, problem: "has no Recorded Date line; not an Apple Watch ECG export")
        }
        let parsed = Array(recorded.utf8).withUnsafeBytes { HealthDate.parse($0) }
        guard let date = parsed, let offset = date.offsetSeconds, date.ms >= Instants.min, date.ms <= Instants.max else {
            throw .init(line: nil, field: "Recorded Date",
                        problem: "\(InputExcerpt.of(recorded)) is not a date like 2025-06-05 10:07:00 +0200")
        }
        guard let rateText = header["sample rate"] else {
            throw .init(line: nil, problem: "has no Sample Rate line; not an Apple Watch ECG export")
        }
        guard let rate = sampleRate(rateText) else {
            throw .init(line: nil, field: "Sample Rate", problem: "\(InputExcerpt.of(rateText)) is not a rate like 512 hertz")
        }
        guard !microvolts.isEmpty else { throw .init(line: nil, problem: "holds no voltages") }
        func optional(_ key: String) -> String? { header[key].flatMap { $0.isEmpty ? nil : $0 } }
        return ElectrocardiogramCSV(header: ElectrocardiogramHeader(
            recordedMs: date.ms, utcOffsetSeconds: offset, classification: optional("classification"),
            symptoms: optional("symptoms"), softwareVersion: optional("software version"), device: optional("device"),
            sampleRateHz: rate, lead: optional("lead"), unit: optional("unit"), voltageCount: microvolts.count),
                                    microvolts: microvolts)
    }

    /// A voltage line: a decimal number with `.` or `,` as separator, optionally quoted; `nil` for anything else.
    static func voltage(_ text: Substring) -> Double? {
        var body = text
        if body.count >= 2, body.first == "\"", body.last == "\"" { body = body.dropFirst().dropLast() }
        var normalized = ""
        normalized.reserveCapacity(body.utf8.count)
        var separators = 0
        var digits = 0
        for (index, c) in body.utf8.enumerated() {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
                normalized.unicodeScalars.append(Unicode.Scalar(c))
            case UInt8(ascii: "-"), UInt8(ascii: "+"):
                guard index == 0 else { return nil }
                normalized.unicodeScalars.append(Unicode.Scalar(c))
            case UInt8(ascii: "."), UInt8(ascii: ","):
                separators += 1
                normalized += "."
            default:
                return nil
            }
        }
        guard digits > 0, separators <= 1, let value = Double(normalized), value.isFinite else { return nil }
        return value
    }

    /// `512 hertz`, `512 Hz`, `511.9 Hertz` → the number; `nil` outside ``SeriesLimits/sampleRates``.
    static func sampleRate(_ text: String) -> Double? {
        let number = text.prefix { $0.isNumber || $0 == "." || $0 == "," }
        // Within SeriesLimits.sampleRates (1…100,000 Hz): a rate of 10⁻²² Hz would put the voltages' instants past
        // any Int64 (a trap converting them), so it is a named skip here like any unreadable rate.
        guard let value = voltage(number), SeriesLimits.sampleRates.contains(value) else { return nil }
        let unit = text.dropFirst(number.count).trimmingSpaces.lowercased()
        return unit.isEmpty || unit.hasPrefix("hertz") || unit == "hz" ? value : nil
    }

    /// The comma-separated fields of a header line, with RFC 4180 quotes.
    static func fields(of line: Substring, lineNumber: Int) throws(ElectrocardiogramCSVError) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var index = line.startIndex
        while index < line.endIndex {
            let c = line[index]
            if quoted {
                if c == "\"" {
                    let next = line.index(after: index)
                    if next < line.endIndex, line[next] == "\"" {
                        current.append("\"")
                        index = next
                    } else {
                        quoted = false
                    }
                } else {
                    current.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                fields.append(current)
                current = ""
            } else {
                current.append(c)
            }
            index = line.index(after: index)
        }
        guard !quoted else { throw .init(line: lineNumber, problem: "has a quote that is never closed") }
        fields.append(current)
        return fields
    }
}

/// An ECG file that cannot be read: where, and what is wrong.
public struct ElectrocardiogramCSVError: Error, Hashable, CustomStringConvertible {
    /// The 1-based line at fault, when one is.
    public var line: Int?
    /// The header field at fault, when one is.
    public var field: String?
    /// What is wrong, as a predicate of the file, line or field.
    public var problem: String

    init(line: Int?, field: String? = nil, problem: String) {
        self.line = line
        self.field = field
        self.problem = problem
    }

    public var description: String {
        if let field { return "\(field) \(problem)" }
        if let line { return "line \(line) \(problem)" }
        return "the file \(problem)"
    }
}

private extension Substring {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: Substring {
        guard let first = firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return self[endIndex...] }
        return self[first...last]
    }
}

private extension String {
    var trimmingSpaces: Substring { self[...].trimmingSpaces }
}
