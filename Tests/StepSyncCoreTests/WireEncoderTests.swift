import Foundation
import Testing
@testable import StepSyncCore

@Suite("WireEncoder")
struct WireEncoderTests {
    static let issueBody = #"{"samples":[{"uuid":"D67311EE-FACB-41AA-B202-8D266F3EDE18","startDate":"2025-05-11T16:27:22.000Z","endDate":"2025-05-11T16:29:03.000Z","count":6176,"sourceBundleId":"com.apple.health","sourceDeviceName":"iPhone"}]}"#

    static func sample(device: String? = "iPhone", value: Double = 6176, bundle: String = "com.apple.health") -> HealthSample {
        HealthSample(uuid: UUID(uuidString: "d67311ee-facb-41aa-b202-8d266f3ede18")!, type: .stepCount,
                     startMs: ISO8601Millis.parse("2025-05-11T16:27:22.000Z")!,
                     endMs: ISO8601Millis.parse("2025-05-11T16:29:03.000Z")!,
                     value: value, unit: "count", sourceName: "Anna's iPhone", sourceBundleId: bundle, deviceName: device)
    }

    @Test("writes exactly the issue's request body")
    func exactBody() {
        let bytes = WireEncoder.encodeRequest([Self.sample()])
        #expect(String(decoding: bytes, as: UTF8.self) == Self.issueBody)
    }

    @Test("omits sourceDeviceName when nil and separates objects with commas")
    func omitsDevice() {
        let bytes = WireEncoder.encodeRequest([Self.sample(device: nil), Self.sample(device: nil)])
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("sourceDeviceName"))
        #expect(text.hasSuffix(#""sourceBundleId":"com.apple.health"}]}"#))
        #expect(text.components(separatedBy: "},{").count == 2)
    }

    @Test("writes whole counts as integers and others as decimals", arguments: [
        (6176.0, "6176"), (0.0, "0"), (12.5, "12.5"), (0.25, "0.25"), (1_000_000.0, "1000000"),
    ])
    func counts(value: Double, expected: String) {
        let text = String(decoding: WireEncoder.encodeRequest([Self.sample(value: value)]), as: UTF8.self)
        #expect(text.contains(#""count":\#(expected),"#))
    }

    @Test("escapes strings so that JSONSerialization reads them back")
    func escapes() throws {
        let nasty = "a\"b\\c\nd\te\u{01}f/é😀"
        let bytes = WireEncoder.encodeRequest([Self.sample(device: nasty, bundle: nasty)])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let first = try #require((object["samples"] as? [[String: Any]])?.first)
        #expect(first["sourceDeviceName"] as? String == nasty)
        #expect(first["sourceBundleId"] as? String == nasty)
    }

    @Test("a line is the object and a newline, and round-trips through the decoder")
    func lineRoundTrip() throws {
        var out: [UInt8] = []
        let wire = WireSample(Self.sample(value: 12.75))
        WireEncoder.appendLine(wire, to: &out)
        #expect(out.last == UInt8(ascii: "\n"))
        #expect(out.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        let decoded = try WireDecoder.decodeSample(Data(out.dropLast()))
        #expect(decoded == wire)
    }

    @Test("a HealthSample's object is its WireSample's, byte for byte, on the fast path and every fallback")
    func healthSampleObjectMatchesWireSample() {
        var generator = SplitMix64(seed: 14)
        let values: [Double] = [0, 1, 9, 10, 6176, 999_999, 1_000_000, 9_007_199_254_740_991, -3, 12.5, 0.1,
                                9_007_199_254_740_992, .infinity, .nan, -0.0]
        let strings = ["", "iPhone", "com.apple.health", "com.apple.health.D67311EE-FACB-41AA-B202-8D266F3EDE18",
                       "Anna's \"Watch\"", "back\\slash", "tab\tnew\nline", "Ünïcødé ⌚️", String(repeating: "x", count: 1_024)]
        for k in 0..<400 {
            let startMs = k == 0 ? Instants.min : k == 1 ? Instants.max
                : Instants.min + Int64(bitPattern: generator.next() % UInt64(Instants.max - Instants.min))
            let endMs = min(Instants.max, startMs + Int64(generator.next() % 86_400_000))
            let device: String? = k % 5 == 0 ? nil : strings[Int(generator.next() % UInt64(strings.count))]
            var bytes: [UInt8] = []
            for _ in 0..<16 { bytes.append(UInt8(truncatingIfNeeded: generator.next())) }
            let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                   bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
            let sample = HealthSample(uuid: uuid, type: .stepCount, startMs: startMs, endMs: endMs,
                                      value: values[k % values.count], unit: "count", sourceName: "",
                                      sourceBundleId: strings[Int(generator.next() % UInt64(strings.count))],
                                      deviceName: device)
            var fast: [UInt8] = [UInt8(ascii: "[")]
            WireEncoder.appendObject(sample, to: &fast)
            var general: [UInt8] = [UInt8(ascii: "[")]
            WireEncoder.appendObject(WireSample(sample), to: &general)
            #expect(fast == general, "sample \(k): \(String(decoding: fast, as: UTF8.self))")
        }
    }
}
