import Foundation
import StepSyncCore
import Testing
@testable import StepSyncImport

/// Seeded properties over generated values (see `WirePropertyTests` for why): export dates from instants and zones
/// across the whole range, and XML escaping of strings full of awkward scalars.
@Suite("Export dates and attribute escaping over generated values")
struct ImportPropertyTests {
    @Test("20,000 generated export dates (any instant, any zone ±23:59) read back as their instant and offset")
    func exportDates() {
        var rng = SplitMix64(seed: 25)
        for i in 0..<20_000 {
            let ms = (Instants.min + Int64(rng.next() % UInt64(Instants.max - Instants.min + 1))) / 1000 * 1000
            let offsetMinutes = Int64(rng.next() % (2 * 1439 + 1)) - 1439
            let local = ms + offsetMinutes * 60_000
            guard Instants.contains(local) else { continue }
            let iso = ISO8601Millis.format(local)  // 2019-01-01T08:00:00.000Z
            let text = iso.prefix(10) + " " + iso.dropFirst(11).prefix(8) + " " + (offsetMinutes < 0 ? "-" : "+")
                + String(format: "%02d%02d", abs(offsetMinutes) / 60, abs(offsetMinutes) % 60)
            let parsed = Array(text.utf8).withUnsafeBytes { HealthDate.parse($0) }
            #expect(parsed?.ms == ms && parsed?.offsetSeconds == Int32(offsetMinutes * 60), "\(i): \(text)")
        }
    }

    @Test("10,000 generated strings without control characters survive XML escaping and the attribute decoder")
    func escaping() {
        var rng = SplitMix64(seed: 38)
        for i in 0..<10_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<(rng.next() % 30) {
                let value: UInt32
                switch rng.next() % 6 {
                case 0: value = [0x26, 0x3C, 0x3E, 0x22, 0x27, 0x3B, 0x23, 0x7F, 0xFFFD, 0xFEFF][Int(rng.next() % 10)]
                case 1: value = 0x10000 + UInt32(rng.next() % 0x100000)
                case 2: value = 0x80 + UInt32(rng.next() % (0xD800 - 0x80))
                default: value = 0x20 + UInt32(rng.next() % 0x5F)
                }
                scalars.append(Unicode.Scalar(value)!)
            }
            let text = String(scalars)
            let escaped = XMLAttributesOracle.escape(text)
            let decoded = Array(escaped.utf8).withUnsafeBytes { XMLAttributes.decode($0) }
            #expect(decoded.unicodeScalars.elementsEqual(text.unicodeScalars), "\(i): \(escaped)")
        }
    }
}
