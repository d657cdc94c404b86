/// Fast, exact ISO-8601 formatting and parsing of UTC millisecond instants: `2025-05-11T16:27:22.000Z`.
///
/// This is the one date format of the wire, of `chunks --json` and of every `--from/--to` option. It is written by
/// hand (civil-from-days arithmetic, no `DateFormatter`, no locale, no allocation but the result) because the sync
/// engine formats two dates per sample; see `Planning/wire-format.md` for the measured figure.
public enum ISO8601Millis {
    /// Formats `ms` (UTC milliseconds since 1970) as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public static func format(_ ms: Int64) -> String {
        var bytes = [UInt8](repeating: 0, count: 24)
        bytes.withUnsafeMutableBufferPointer { write(ms, into: $0.baseAddress!) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes the 24 bytes of `format(ms)` at `out`. Only instants in ``Instants`` format faithfully: one outside is
    /// written as the nearest end of the range (callers check ``Instants/contains(_:)`` at the door, so stored instants
    /// never are; clamping first keeps any `Int64`, `Int64.min` included, from overflowing the day arithmetic).
    @inline(__always)
    public static func write(_ ms: Int64, into out: UnsafeMutablePointer<UInt8>) {
        let ms = Swift.min(Swift.max(ms, Instants.min), Instants.max)
        let days = floorDiv(ms, Milliseconds.day)
        var msOfDay = ms - days * Milliseconds.day
        let (y, m, d) = civil(fromDays: days)
        let year = Int(max(0, min(9999, y)))
        let hour = Int(msOfDay / Milliseconds.hour); msOfDay -= Int64(hour) * Milliseconds.hour
        let minute = Int(msOfDay / Milliseconds.minute); msOfDay -= Int64(minute) * Milliseconds.minute
        let second = Int(msOfDay / 1000)
        let milli = Int(msOfDay % 1000)
        out[0] = digit(year / 1000); out[1] = digit(year / 100 % 10); out[2] = digit(year / 10 % 10); out[3] = digit(year % 10)
        out[4] = UInt8(ascii: "-")
        out[5] = digit(m / 10); out[6] = digit(m % 10)
        out[7] = UInt8(ascii: "-")
        out[8] = digit(d / 10); out[9] = digit(d % 10)
        out[10] = UInt8(ascii: "T")
        out[11] = digit(hour / 10); out[12] = digit(hour % 10)
        out[13] = UInt8(ascii: ":")
        out[14] = digit(minute / 10); out[15] = digit(minute % 10)
        out[16] = UInt8(ascii: ":")
        out[17] = digit(second / 10); out[18] = digit(second % 10)
        out[19] = UInt8(ascii: ".")
        out[20] = digit(milli / 100); out[21] = digit(milli / 10 % 10); out[22] = digit(milli % 10)
        out[23] = UInt8(ascii: "Z")
    }

    /// Parses an ISO-8601 instant: `YYYY-MM-DDTHH:MM[:SS[.fff…]](Z|±HH:MM|±HHMM)`, or a bare date `YYYY-MM-DD`
    /// (midnight UTC). Fractions beyond milliseconds are truncated. Returns `nil` for anything else, including
    /// out-of-range fields such as month 13 or 25:00, and instants outside ``Instants`` (so `9999-12-31T23:00:00-02:00`,
    /// which is in year 10000, is refused rather than clamped). Every index is bounds-checked: any input of any length
    /// is safe.
    public static func parse(_ text: some StringProtocol) -> Int64? {
        var text = String(text)
        return text.withUTF8 { parse(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// The number the `count` ASCII digits of `b` at `at` write, or `nil` when one is not a digit or they run past the
    /// end: the one digit reader of the date parsers (the export's dates too).
    @inlinable @inline(__always)
    public static func digits(_ b: UnsafeRawBufferPointer, at: Int, count: Int) -> Int? {
        guard at >= 0, at + count <= b.count else { return nil }
        var v = 0
        for i in at..<(at + count) {
            let c = b[i]
            guard c >= 48, c <= 57 else { return nil }
            v = v * 10 + Int(c - 48)
        }
        return v
    }

    /// Parses the UTF-8 bytes of an ISO-8601 instant; see ``parse(_:)``.
    public static func parse(utf8 b: UnsafeRawBufferPointer) -> Int64? {
        let n = b.count
        guard n >= 10 else { return nil }
        func num(_ at: Int, _ len: Int) -> Int? { digits(b, at: at, count: len) }
        guard let year = num(0, 4), b[4] == UInt8(ascii: "-"), let month = num(5, 2), b[7] == UInt8(ascii: "-"),
              let day = num(8, 2), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        let dayMs = days(fromCivil: Int64(year), month, day) * Milliseconds.day
        if n == 10 { return Instants.contains(dayMs) ? dayMs : nil }
        guard n >= 16, b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "),
              let hour = num(11, 2), b[13] == UInt8(ascii: ":"), let minute = num(14, 2),
              hour < 24, minute < 60
        else { return nil }
        var i = 16
        var second = 0
        if i < n, b[i] == UInt8(ascii: ":") {
            guard let s = num(17, 2), s < 60 else { return nil }
            second = s
            i = 19
        }
        var milli = 0
        if i < n, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
            i += 1
            var digits = 0
            while i < n, b[i] >= 48, b[i] <= 57 {
                if digits < 3 { milli = milli * 10 + Int(b[i] - 48) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { milli *= 10 } }
        }
        guard i < n else { return nil }
        var offsetSeconds = 0
        switch b[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            guard let oh = num(i + 1, 2), oh < 24 else { return nil }
            var j = i + 3
            if j < n, b[j] == UInt8(ascii: ":") { j += 1 }
            guard let om = num(j, 2), om < 60 else { return nil }
            offsetSeconds = sign * (oh * 3600 + om * 60)
            i = j + 2
        default:
            return nil
        }
        guard i == n else { return nil }
        let ms = dayMs + Int64(hour) * Milliseconds.hour + Int64(minute) * Milliseconds.minute
            + Int64(second) * 1000 + Int64(milli) - Int64(offsetSeconds) * 1000
        return Instants.contains(ms) ? ms : nil
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, H. Hinnant's algorithms)

    /// Days since 1970-01-01 of a civil date.
    public static func days(fromCivil year: Int64, _ month: Int, _ day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date (year, month 1–12, day 1–31) of a count of days since 1970-01-01.
    public static func civil(fromDays days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = Int(doy - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The number of days in a month of a year.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    @inline(__always) static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    @inline(__always) static func digit(_ v: Int) -> UInt8 { UInt8(truncatingIfNeeded: 48 + v) }
}
