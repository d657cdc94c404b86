import Foundation
import Testing
@testable import StepSyncCore

@Suite("HAEDate: Health Auto Export's 24-hour, 12-hour and day forms")
struct HAEDateTests {
    static func utc(_ iso: String) -> Int64 { ISO8601Millis.parse(Substring(iso))! }

    @Test("24-hour and 12-hour forms (space, U+00A0, U+202F before PM) read the same instant and offset",
          arguments: ["2025-06-02 15:04:05 -0400", "2025-06-02 3:04:05 PM -0400", "2025-06-02 3:04:05\u{00A0}PM -0400",
                      "2025-06-02 3:04:05\u{202F}PM -0400", "2025-06-02 03:04:05\u{202F}pm -0400"])
    func sameInstant(_ text: String) throws {
        let instant = try #require(HAEDate.parse(text))
        #expect(instant.ms == Self.utc("2025-06-02T19:04:05.000Z"))
        #expect(instant.offsetSeconds == -14_400)
    }

    @Test("12 AM is midnight and 12 PM is noon; a positive offset is east of UTC")
    func midnightNoon() throws {
        #expect(HAEDate.parse("2025-06-02 12:00:00\u{202F}AM +0200")?.ms == Self.utc("2025-06-01T22:00:00.000Z"))
        #expect(HAEDate.parse("2025-06-02 12:30:00 PM +0000")?.ms == Self.utc("2025-06-02T12:30:00.000Z"))
        #expect(HAEDate.parse("2025-06-02 12:30:00 PM +0530")?.offsetSeconds == 19_800)
    }

    @Test("A day reads as UTC midnight; a date-time is read by parseDay too")
    func day() {
        #expect(HAEDate.parseDay("2024-02-06")?.ms == Self.utc("2024-02-06T00:00:00.000Z"))
        #expect(HAEDate.parseDay("2024-02-06 23:00:00 -0800")?.ms == Self.utc("2024-02-07T07:00:00.000Z"))
    }

    @Test("Unreadable or out-of-range dates are nil, never a trap",
          arguments: ["", "2025-06-02", "2025-06-02T15:04:05Z", "2025-06-02 25:04:05 -0400", "2025-06-02 13:04:05 PM -0400",
                      "2025-06-02 0:04:05 AM -0400", "2025-02-30 10:00:00 +0000", "2025-06-02 15:04:05 -9900",
                      "2025-06-02 15:04:05 +0460", "0000-01-01 00:00:00 +0000", "9999-12-31 23:59:59 -1800",
                      "2025-06-02 15:04:05 -0400 extra", "2025-06-02 15:4:05 -0400", "２０２５-06-02 15:04:05 -0400"])
    func refused(_ text: String) {
        #expect(HAEDate.parse(text) == nil)
    }
}
