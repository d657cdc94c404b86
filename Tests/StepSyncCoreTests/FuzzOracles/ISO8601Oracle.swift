import Foundation
import StepSyncCore

/// What `ISO8601Millis` promises for any bytes, as a check that returns the broken promises (empty when all hold).
///
/// The `iso8601` fuzz target (`Fuzz/Targets/iso8601.swift`, which compiles this file) stops on the first input with
/// a problem; `FuzzReplayTests` runs every corpus and crash file through it once. The promises:
/// 1. any input of any length is safe (a trap or an out-of-bounds read ends the process: AddressSanitizer in the
///    fuzz build, the bounds checks of the debug build in the tests);
/// 2. the byte, `String` and `Substring` entry points agree on valid UTF-8;
/// 3. an accepted instant is inside ``Instants``, formats to 24 bytes and parses back to itself, and a canonical
///    input (`YYYY-MM-DDTHH:MM:SS.mmmZ`) formats back to the very same text;
/// 4. on strict RFC 3339 input (`YYYY-MM-DDTHH:MM:SS[.f…](Z|±HH:MM)`) from 1583 on (Foundation's calendar is
///    Julian before the Gregorian reform) whose fields are all in range, `parse` agrees with Foundation's
///    `ISO8601DateFormatter` to the millisecond when the instant is inside ``Instants``, and refuses it when it is
///    outside (Foundation does not know our range);
/// 5. the first 8 bytes, read as an instant inside ``Instants``, format and parse back to themselves, and format as
///    Foundation does (from 1583 on).
struct ISO8601Oracle {
    private let withFraction = ISO8601DateFormatter()
    private let withoutFraction = ISO8601DateFormatter()

    init() {
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        withoutFraction.formatOptions = [.withInternetDateTime]
        for formatter in [withFraction, withoutFraction] { formatter.timeZone = TimeZone(identifier: "UTC") }
    }

    /// The promises `bytes` breaks.
    func problems(_ bytes: UnsafeRawBufferPointer) -> [String] {
        var problems: [String] = []
        let parsed = ISO8601Millis.parse(utf8: bytes)

        if let text = FuzzText.validUTF8(bytes) {
            let viaString = ISO8601Millis.parse(text)
            if viaString != parsed { problems.append("parse(String) gave \(String(describing: viaString)), bytes \(String(describing: parsed))") }
            // A line feed never joins the next character into one grapheme (a "#" would, before a combining mark).
            let viaSubstring = ISO8601Millis.parse(("\n" + text).dropFirst())
            if viaSubstring != parsed {
                problems.append("parse(Substring) gave \(String(describing: viaSubstring)), bytes \(String(describing: parsed))")
            }
        }

        if let ms = parsed {
            if !Instants.contains(ms) { problems.append("accepted \(ms) ms, outside \(Instants.description)") }
            let formatted = ISO8601Millis.format(ms)
            if formatted.utf8.count != 24 { problems.append("format(\(ms)) is \(formatted.utf8.count) bytes") }
            if ISO8601Millis.parse(formatted) != ms { problems.append("format(\(ms)) = \(formatted) does not parse back") }
            if Self.isCanonical(bytes), !formatted.utf8.elementsEqual(bytes) {
                problems.append("canonical input formats back as \(formatted)")
            }
        }

        if let fields = RFC3339Fields(bytes), fields.year >= 1583, fields.inRange {
            let text = String(decoding: bytes, as: UTF8.self)
            let formatter = fields.hasFraction ? withFraction : withoutFraction
            if let date = formatter.date(from: text) {
                let foundation = date.timeIntervalSince1970 * 1000
                if foundation >= Double(Instants.min), foundation < Double(Instants.max) + 1 {
                    if let ms = parsed {
                        if abs(Double(ms) - foundation) >= 1 { problems.append("parse gave \(ms), Foundation \(foundation)") }
                    } else {
                        problems.append("refused a valid in-range instant Foundation reads as \(foundation) ms")
                    }
                } else if foundation > Double(Instants.max) + 1, let ms = parsed {
                    problems.append("accepted \(ms) for an instant Foundation places after 9999 (\(foundation) ms)")
                }
            }
        }

        if bytes.count >= 8 {
            let raw = bytes.loadUnaligned(as: UInt64.self)
            let span = UInt64(Instants.max - Instants.min + 1)
            let ms = Instants.min + Int64(raw % span)
            let formatted = ISO8601Millis.format(ms)
            if ISO8601Millis.parse(formatted) != ms { problems.append("format(\(ms)) = \(formatted) does not parse back") }
            let date = Date(timeIntervalSince1970: Double(ms) / 1000)
            if formatted >= "1583", withFraction.string(from: date) != formatted {
                problems.append("format(\(ms)) = \(formatted), Foundation \(withFraction.string(from: date))")
            }
        }
        return problems
    }

    /// Whether `b` is `YYYY-MM-DDTHH:MM:SS.mmmZ` (digits where digits go).
    static func isCanonical(_ b: UnsafeRawBufferPointer) -> Bool {
        let shape = Array("dddd-dd-ddTdd:dd:dd.dddZ".utf8)
        guard b.count == shape.count else { return false }
        for (c, s) in zip(b, shape) {
            if s == UInt8(ascii: "d") { guard c >= 48, c <= 57 else { return false } } else if c != s { return false }
        }
        return true
    }
}

/// The fields of a strict RFC 3339 date-time `YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|±HH:MM)`, read independently of
/// `ISO8601Millis` (for the differential check against Foundation).
struct RFC3339Fields {
    var year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, offsetHour = 0, offsetMinute = 0
    var hasFraction = false

    init?(_ b: UnsafeRawBufferPointer) {
        func digits(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= b.count else { return nil }
            var v = 0
            for i in at..<(at + count) {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        func at(_ i: Int, _ c: Character) -> Bool { i < b.count && b[i] == c.asciiValue! }
        guard let y = digits(0, 4), at(4, "-"), let mo = digits(5, 2), at(7, "-"), let d = digits(8, 2), at(10, "T"),
              let h = digits(11, 2), at(13, ":"), let mi = digits(14, 2), at(16, ":"), let s = digits(17, 2)
        else { return nil }
        (year, month, day, hour, minute, second) = (y, mo, d, h, mi, s)
        var i = 19
        if at(i, ".") {
            i += 1
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
            guard (1...9).contains(i - start) else { return nil }
            hasFraction = true
        }
        if at(i, "Z"), i + 1 == b.count { return }
        guard at(i, "+") || at(i, "-"), let oh = digits(i + 1, 2), at(i + 3, ":"), let om = digits(i + 4, 2),
              i + 6 == b.count
        else { return nil }
        (offsetHour, offsetMinute) = (oh, om)
    }

    /// Whether every field is within its calendar range (the day checked against the month's length).
    var inRange: Bool {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let length = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return (1...12).contains(month) && day >= 1 && day <= length[month - 1] && hour < 24 && minute < 60
            && second < 60 && offsetHour < 24 && offsetMinute < 60
    }
}
