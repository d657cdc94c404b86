import Foundation
import StepSyncCore
import Testing

/// Seeded properties over *values* rather than bytes: libFuzzer mutates bytes and rarely builds a whole valid sample
/// with a far-off instant and an awkward string, so these generate them directly (with Core's `SplitMix64`; a
/// failure names its seed and index, which is all a shrinker would add here).
@Suite("Wire and ISO-8601 round trips over generated values")
struct WirePropertyTests {
    @Test("2,000 generated samples encode and decode back to themselves, as a body and as stored lines")
    func samplesRoundTrip() throws {
        var rng = SplitMix64(seed: 20261123)
        let samples = (0..<2_000).map { _ in Self.sample(&rng) }
        for start in stride(from: 0, to: samples.count, by: 100) {
            let batch = Array(samples[start..<(start + 100)])
            let decoded = try WireDecoder.decodeRequest(WireEncoder.encodeRequest(batch))
            #expect(decoded == batch, "batch at \(start)")
        }
        for (i, sample) in samples.enumerated() {
            var line: [UInt8] = []
            WireEncoder.appendLine(sample, to: &line)
            #expect(line.firstIndex(of: 0x0A) == line.count - 1, "sample \(i)")
            #expect(try WireDecoder.decodeSample(line.dropLast()) == sample, "sample \(i)")
        }
    }

    @Test("20,000 generated instants over the whole range format and parse back, also written with an offset")
    func instantsRoundTrip() {
        var rng = SplitMix64(seed: 8601)
        for i in 0..<20_000 {
            let ms = Instants.min + Int64(rng.next() % UInt64(Instants.max - Instants.min + 1))
            let text = ISO8601Millis.format(ms)
            #expect(ISO8601Millis.parse(text) == ms, "\(i): \(text)")
            // The same instant in a zone up to ±23:59 away: the local time's text with that offset.
            let offsetMinutes = Int64(rng.next() % (2 * 1439 + 1)) - 1439
            let local = ms + offsetMinutes * 60_000
            guard Instants.contains(local) else { continue }
            let sign = offsetMinutes < 0 ? "-" : "+"
            let hhmm = String(format: "%02d:%02d", abs(offsetMinutes) / 60, abs(offsetMinutes) % 60)
            let zoned = ISO8601Millis.format(local).dropLast() + sign + hhmm
            #expect(ISO8601Millis.parse(zoned) == ms, "\(i): \(zoned)")
        }
    }

    // MARK: - Generators

    static func sample(_ rng: inout SplitMix64) -> WireSample {
        var bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let uuid = bytes.withUnsafeMutableBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
        bytes.removeAll()
        let start = Instants.min + Int64(rng.next() % UInt64(Instants.max - Instants.min + 1))
        let span = rng.next() % 4 == 0 ? Instants.max - start : min(Instants.max - start, 86_400_000)
        let end = start + Int64(rng.next() % UInt64(span + 1))
        let counts: [Double] = [0, -0.0, 1, 1_000_000, 0.1, .leastNonzeroMagnitude, 1e-300, 999_999.999_999_999_9, 6176]
        let count = rng.next() % 3 == 0 ? counts[Int(rng.next() % UInt64(counts.count))]
            : Double(rng.next() % 1_000_000_000) / 1_000 + (rng.next() % 2 == 0 ? 0 : Double(rng.next() % 1000) / 7e6)
        return WireSample(uuid: uuid, startMs: start, endMs: end, count: min(count, 1_000_000),
                          sourceBundleId: text(&rng), sourceDeviceName: rng.next() % 3 == 0 ? nil : text(&rng))
    }

    /// A string of 0–40 scalars drawn from the awkward ones: controls, quotes, backslashes, line separators, BOMs,
    /// combining marks, astral scalars, noncharacters, and plain ASCII. Not U+0000: validation refuses it in every
    /// text field (`nul_character`, `SampleValidationTests`).
    static func text(_ rng: inout SplitMix64) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<(rng.next() % 41) {
            let value: UInt32
            switch rng.next() % 8 {
            case 0: value = 1 + UInt32(rng.next() % 0x1F)
            case 1: value = [0x22, 0x5C, 0x2F, 0x7F, 0x2028, 0x2029, 0xFEFF, 0xFFFD, 0xFFFF][Int(rng.next() % 9)]
            case 2: value = 0x300 + UInt32(rng.next() % 0x70)
            case 3: value = 0x10000 + UInt32(rng.next() % 0x100000)
            case 4: value = 0x80 + UInt32(rng.next() % (0xD800 - 0x80))
            default: value = 0x20 + UInt32(rng.next() % 0x5F)
            }
            scalars.append(Unicode.Scalar(value)!)
        }
        return String(scalars)
    }
}
