import StepSyncCore

/// The dates of an Apple Health export: `2019-01-01 08:00:00 +0100` (local time and its UTC offset).
enum HealthDate {
    /// The UTC milliseconds and UTC offset (seconds) of an export date, or `nil` if `b` is not one.
    ///
    /// The export's own format is parsed by hand (it is 3 of the 9 attributes of every record); ISO 8601 forms
    /// (`2019-01-01T07:00:00Z`) are accepted too, with no offset.
    static func parse(_ b: UnsafeRawBufferPointer) -> (ms: Int64, offsetSeconds: Int32?)? {
        guard b.count == 25 else {
            return ISO8601Millis.parse(utf8: b).map { ($0, nil) }
        }
        @inline(__always) func num(_ at: Int, _ len: Int) -> Int? { ISO8601Millis.digits(b, at: at, count: len) }
        guard let year = num(0, 4), b[4] == UInt8(ascii: "-"), let month = num(5, 2), b[7] == UInt8(ascii: "-"),
              let day = num(8, 2), b[10] == UInt8(ascii: " "),
              let hour = num(11, 2), b[13] == UInt8(ascii: ":"), let minute = num(14, 2), b[16] == UInt8(ascii: ":"),
              let second = num(17, 2), b[19] == UInt8(ascii: " "),
              b[20] == UInt8(ascii: "+") || b[20] == UInt8(ascii: "-"), let oh = num(21, 2), let om = num(23, 2),
              (1...12).contains(month), day >= 1, day <= ISO8601Millis.daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 61, oh < 24, om < 60
        else { return nil }
        let offset = (b[20] == UInt8(ascii: "-") ? -1 : 1) * (oh * 3600 + om * 60)
        let days = ISO8601Millis.days(fromCivil: Int64(year), month, day)
        let local = days * Milliseconds.day + Int64(hour * 3_600_000 + minute * 60_000 + min(second, 59) * 1000)
        return (local - Int64(offset) * 1000, Int32(offset))
    }
}
