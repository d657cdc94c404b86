/// The dates Health Auto Export writes, read without Foundation's formatters (which depend on the locale).
///
/// Forms accepted (`Z` is `±HHMM`, the phone's UTC offset when the point was recorded):
/// - `yyyy-MM-dd HH:mm:ss Z` — 24-hour time (`2025-06-02 15:04:05 -0400`);
/// - `yyyy-MM-dd h:mm:ss AM Z` — 12-hour time, as on a phone set to it, with a space, a no-break space (U+00A0) or
///   the narrow no-break space recent iOS writes (U+202F) before `AM`/`PM` (`2025-06-02 3:04:05 PM -0400`);
/// - `yyyy-MM-dd` — a day (summarized sleep's `date`), read as local midnight at offset 0 by ``parseDay(_:)``.
///
/// Every field is range-checked before any arithmetic: a date that is not one of these forms is `nil`, never a trap.
public enum HAEDate {
    /// A date read: UTC milliseconds and the UTC offset it was written in.
    public struct Instant: Hashable, Sendable {
        /// UTC milliseconds since 1970.
        public var ms: Int64
        /// The offset written (`-0400` → -14 400).
        public var offsetSeconds: Int32
    }

    /// Reads a date-time in the 24-hour or 12-hour form; `nil` when `text` is neither or out of range.
    public static func parse(_ text: String) -> Instant? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// Reads a day `yyyy-MM-dd` (UTC midnight, offset 0), or a date-time as ``parse(_:)`` does.
    public static func parseDay(_ text: String) -> Instant? {
        var text = text
        return text.withUTF8 { bytes -> Instant? in
            if bytes.count == 10, let day = civilDay(bytes, 0) {
                return Instant(ms: day * 86_400_000, offsetSeconds: 0)
            }
            return parse(bytes: bytes)
        }
    }

    /// ``parse(_:)`` over UTF-8 bytes.
    public static func parse(bytes b: UnsafeBufferPointer<UInt8>) -> Instant? {
        guard b.count >= 19, let day = civilDay(b, 0), b[10] == UInt8(ascii: " ") else { return nil }
        var i = 11
        // Hour: one or two digits.
        guard let h1 = digit(b, i) else { return nil }
        var hour = h1
        i += 1
        if let h2 = digit(b, i) { hour = hour * 10 + h2; i += 1 }
        guard i + 6 <= b.count, b[i] == UInt8(ascii: ":"), let minute = number(b, i + 1, 2),
              b[i + 3] == UInt8(ascii: ":"), let second = number(b, i + 4, 2) else { return nil }
        i += 6
        // Optional AM/PM after a space, U+00A0 (C2 A0) or U+202F (E2 80 AF).
        var meridiem: UInt8?
        if let after = separator(b, i), after + 2 <= b.count {
            let m = b[after] | 0x20
            if (m == UInt8(ascii: "a") || m == UInt8(ascii: "p")), b[after + 1] | 0x20 == UInt8(ascii: "m") {
                meridiem = m
                i = after + 2
            }
        }
        guard b.count == i + 6, b[i] == UInt8(ascii: " ") else { return nil }
        let signByte = b[i + 1]
        guard signByte == UInt8(ascii: "+") || signByte == UInt8(ascii: "-"),
              let offH = number(b, i + 2, 2), let offM = number(b, i + 4, 2), offH <= 18, offM < 60 else { return nil }
        if let meridiem {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (meridiem == UInt8(ascii: "p") ? 12 : 0)
        }
        guard hour < 24, minute < 60, second < 60 else { return nil }
        let offset = (offH * 3600 + offM * 60) * (signByte == UInt8(ascii: "-") ? -1 : 1)
        let local = day * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        let ms = (local - Int64(offset)) * 1000
        guard Instants.contains(ms) else { return nil }
        return Instant(ms: ms, offsetSeconds: Int32(offset))
    }

    /// Days since 1970 of `yyyy-MM-dd` at `at`, or `nil`.
    private static func civilDay(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> Int64? {
        guard at + 10 <= b.count, let year = number(b, at, 4), b[at + 4] == UInt8(ascii: "-"),
              let month = number(b, at + 5, 2), b[at + 7] == UInt8(ascii: "-"), let day = number(b, at + 8, 2),
              year >= 1, (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year)
        else { return nil }
        return ISO8601Millis.days(fromCivil: Int64(year), month, day)
    }

    /// The index after a separator before AM/PM at `i` (a space, U+00A0 or U+202F), or `nil`.
    private static func separator(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int? {
        if i < b.count, b[i] == UInt8(ascii: " ") { return i + 1 }
        if i + 1 < b.count, b[i] == 0xC2, b[i + 1] == 0xA0 { return i + 2 }
        if i + 2 < b.count, b[i] == 0xE2, b[i + 1] == 0x80, b[i + 2] == 0xAF { return i + 3 }
        return nil
    }

    private static func digit(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int? {
        guard i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") else { return nil }
        return Int(b[i] - UInt8(ascii: "0"))
    }

    private static func number(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ count: Int) -> Int? {
        var value = 0
        for k in at..<(at + count) {
            guard let d = digit(b, k) else { return nil }
            value = value * 10 + d
        }
        return value
    }
}
