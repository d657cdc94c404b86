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

@Suite("The representable range of instants")
struct InstantsTests {
    @Test("the bounds are year 1 and the last millisecond of year 9999, and format back exactly")
    func bounds() {
        #expect(ISO8601Millis.format(Instants.min) == "0001-01-01T00:00:00.000Z")
        #expect(ISO8601Millis.format(Instants.max) == "9999-12-31T23:59:59.999Z")
        #expect(ISO8601Millis.parse("0001-01-01T00:00:00.000Z") == Instants.min)
        #expect(ISO8601Millis.parse("9999-12-31T23:59:59.999Z") == Instants.max)
        #expect(Instants.contains(Instants.min) && Instants.contains(Instants.max))
        #expect(!Instants.contains(Instants.min - 1) && !Instants.contains(Instants.max + 1))
    }

    @Test("instants that fall outside the range through their offset are refused, not clamped", arguments: [
        "9999-12-31T23:00:00.000-02:00",  // 10000-01-01T01:00Z: the sink once stored it as 9999-01-01
        "0001-01-01T00:30:00+01:00",      // 0000-12-31T23:30Z
        "0000-06-01T00:00:00Z",
        "0000-06-01",
    ])
    func outsideRefused(text: String) {
        #expect(ISO8601Millis.parse(text) == nil)
    }

    @Test("every prefix and every one-byte extension of valid dates is parsed without reading past the input")
    func everyLength() {
        // With bounds checks every input length is safe; a debug build traps on an out-of-bounds read.
        for text in ["2025-05-11T16:27:22.123+02:00", "2025-05-11T16:27:22.123Z", "2025-05-11 16:27:22+01:00",
                     "9999-12-31T23:59:59.999Z"] {
            let bytes = Array(text.utf8)
            for n in 0...bytes.count {
                let prefix = Array(bytes[0..<n])
                let parsed = prefix.withUnsafeBytes { ISO8601Millis.parse(utf8: $0) }
                // Complete forms only: the full text, a bare date, and HH:MM with a zone never arise from a cut.
                if n == bytes.count { #expect(parsed != nil, "\(text)") }
                if n == 10 { #expect(parsed != nil) } else if n > 10 && n < 16 { #expect(parsed == nil, "\(n) bytes") }
                for extra: UInt8 in [0, 0x2D, 0x3A, 0x5A, 0xFF] {
                    let longer = prefix + [extra]
                    _ = longer.withUnsafeBytes { ISO8601Millis.parse(utf8: $0) }
                }
            }
        }
        #expect(ISO8601Millis.parse("2025-05-11T16") == nil)
    }
}
