import Foundation
import StepSyncCore
import Testing

@Suite("ISO-8601 milliseconds")
struct ISO8601MillisTests {
    @Test("formats known instants", arguments: [
        (0 as Int64, "1970-01-01T00:00:00.000Z"),
        (1_746_980_842_000, "2025-05-11T16:27:22.000Z"),
        (951_782_400_123, "2000-02-29T00:00:00.123Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (4_102_444_799_999, "2099-12-31T23:59:59.999Z"),
    ])
    func formats(ms: Int64, text: String) {
        #expect(ISO8601Millis.format(ms) == text)
        #expect(ISO8601Millis.parse(text) == ms)
    }

    @Test("agrees with Foundation's ISO8601DateFormatter on random instants")
    func agreesWithFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        var state: UInt64 = 12345
        for _ in 0..<2_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let ms = Int64(state >> 23) % 4_000_000_000_000
            let ours = ISO8601Millis.format(ms)
            #expect(ours == formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000)))
            #expect(ISO8601Millis.parse(ours) == ms)
        }
    }

    @Test("parses offsets, fractions and bare dates", arguments: [
        ("2025-05-11T18:27:22+02:00", 1_746_980_842_000 as Int64?),
        ("2025-05-11T18:27:22.5+0200", 1_746_980_842_500),
        ("2025-05-11T16:27:22.123456Z", 1_746_980_842_123),
        ("2025-05-11T16:27Z", 1_746_980_820_000),
        ("2025-05-11", 1_746_921_600_000),
        ("2025-13-11T16:27:22Z", nil),
        ("2025-02-29T00:00:00Z", nil),
        ("2025-05-11T24:00:00Z", nil),
        ("2025-05-11T16:27:22", nil),
        ("2025-05-11T16:27:22.Z", nil),
        ("yesterday", nil),
        ("2025-05-11T16:27:22.000Zjunk", nil),
    ])
    func parses(text: String, ms: Int64?) {
        #expect(ISO8601Millis.parse(text) == ms)
    }
}
