import Foundation
import Testing
@testable import StepSyncCore

/// The sink copies a sample's bytes instead of encoding it when ``DecodedSamples/storedLines`` says they are its
/// stored line. These tests hold the decoder to that: whenever it gives a range, the bytes there are exactly
/// ``WireEncoder/appendStoredLine(_:to:)`` of the decoded sample (without the newline); and every way a client can
/// write the same sample differently gets no range.
@Suite("WireDecoder: stored lines")
struct WireStoredLineTests {
    static let steps = WireDecoderTests.good
    static let good = WireDecoderTests.good
    static let heartRate = #"{"uuid":"0B1E0000-0000-4000-8000-000000000001","type":"HKQuantityTypeIdentifierHeartRate","startDate":"2025-05-11T16:27:22.000Z","endDate":"2025-05-11T16:27:22.000Z","value":72,"unit":"count/min","sourceName":"Anna's Apple Watch","sourceBundleId":"com.apple.health.8B0C","sourceDeviceName":"Apple Watch","sourceVersion":"10.1","deviceModel":"Watch6,2","details":{"metadata":{"HKMetadataKeyHeartRateMotionContext":"1"}}}"#

    /// Decodes `{"samples":[objects]}` and checks every range against the encoder; returns which samples got one.
    static func storedFlags(_ objects: [String], steps: Bool) throws -> [Bool] {
        let body = Array(#"{"samples":[\#(objects.joined(separator: ", "))]}"#.utf8)
        let decoded = steps ? try WireDecoder.decodeStepsBody(body) : try WireDecoder.decodeSamplesBody(body)
        #expect(decoded.storedLines.count == decoded.samples.count)
        for (sample, range) in zip(decoded.samples, decoded.storedLines) {
            guard let range else { continue }
            var line: [UInt8] = []
            WireEncoder.appendStoredLine(sample, to: &line)
            #expect(Array(body[range]) + [0x0A] == line, "\(String(decoding: body[range], as: UTF8.self))")
        }
        return decoded.storedLines.map { $0 != nil }
    }

    @Test("what stepsync's encoder writes is stored as it came: /steps with and without a device, /samples with every optional field")
    func encoderOutputIsStoredAsItCame() throws {
        let noDevice = Self.steps.replacingOccurrences(of: #","sourceDeviceName":"iPhone""#, with: "")
        #expect(try Self.storedFlags([Self.steps, noDevice], steps: true) == [true, true])
        let bare = Self.heartRate.replacingOccurrences(
            of: #","sourceDeviceName":"Apple Watch","sourceVersion":"10.1","deviceModel":"Watch6,2","details":{"metadata":{"HKMetadataKeyHeartRateMotionContext":"1"}}"#,
            with: "")
        #expect(try Self.storedFlags([Self.heartRate, bare], steps: false) == [true, true])
        // The encoder's own bytes for random samples, both shapes.
        var generator = SplitMix64(seed: 14)
        var stepObjects: [String] = [], heartObjects: [String] = []
        for k in 0..<200 {
            let start = Int64(generator.next() % 300_000_000_000_000) - 62_000_000_000_000
            let uuid = withUnsafeBytes(of: (generator.next(), generator.next())) { UUID(uuid: $0.load(as: uuid_t.self)) }
            let sample = HealthSample(uuid: uuid, type: .stepCount, startMs: start, endMs: start + Int64(generator.next() % 600_000),
                                      value: Double(generator.next() % 1_000_001), unit: "count", sourceName: "",
                                      sourceBundleId: "com.apple.health.\(k % 7)", deviceName: k % 3 == 0 ? nil : "iPhone \(k)")
            var bytes: [UInt8] = []
            WireEncoder.appendObject(WireSample(sample), to: &bytes)
            stepObjects.append(String(decoding: bytes, as: UTF8.self))
            var heart = sample
            heart.type = .heartRate
            heart.unit = "count/min"
            heart.sourceName = "Watch \(k)"
            heart.deviceModel = k % 2 == 0 ? "Watch6,2" : nil
            bytes = []
            WireEncoder.appendSampleObject(heart, to: &bytes)
            heartObjects.append(String(decoding: bytes, as: UTF8.self))
        }
        #expect(try Self.storedFlags(stepObjects, steps: true).allSatisfy { $0 })
        #expect(try Self.storedFlags(heartObjects, steps: false).allSatisfy { $0 })
    }

    /// The same /steps object written other ways (each line typed on its own: one literal of them all is too slow to type-check).
    static let otherForms: [String] = {
        var forms: [String] = []
        forms.append(good.replacingOccurrences(of: #""count":6176"#, with: #""count": 6176"#)) // whitespace
        forms.append(good.replacingOccurrences(of: #"{"uuid""#, with: #"{ "uuid""#))
        forms.append(good.replacingOccurrences(of: #""iPhone"}"#, with: #""iPhone" }"#))
        forms.append(good.replacingOccurrences(of: "D67311EE-FACB", with: "d67311ee-facb")) // lower-case uuid
        forms.append(good.replacingOccurrences(of: "2025-05-11T16:27:22.000Z", with: "2025-05-11T18:27:22.000+02:00")) // offset
        forms.append(good.replacingOccurrences(of: "2025-05-11T16:27:22.000Z", with: "2025-05-11T16:27:22Z")) // no millis
        forms.append(good.replacingOccurrences(of: "2025-05-11T16:27:22.000Z", with: "2025-05-11 16:27:22.000Z"))
        forms.append(good.replacingOccurrences(of: #""count":6176"#, with: #""count":6176.0"#)) // number forms
        forms.append(good.replacingOccurrences(of: #""count":6176"#, with: #""count":6.176e3"#))
        forms.append(good.replacingOccurrences(of: #""count":6176"#, with: #""count":6176.00"#))
        forms.append(good.replacingOccurrences(of: #""com.apple.health""#, with: #""com.apple\/health""#)) // escapes
        forms.append(good.replacingOccurrences(of: #""iPhone""#, with: #""\u0069Phone""#))
        forms.append(good.replacingOccurrences(of: #""iPhone""#, with: #""Änna's iPhone""#)) // non-ASCII
        forms.append(good.replacingOccurrences(of: #""iPhone""#, with: "null")) // null
        forms.append(good.replacingOccurrences(of: #","sourceDeviceName":"iPhone""#, with: #","sourceDeviceName":"iPhone","extra":1"#)) // unknown key
        forms.append(good.replacingOccurrences(of: #""count":6176,"#, with: "").replacingOccurrences(of: #""iPhone"}"#, with: #""iPhone","count":6176}"#)) // order
        forms.append(good.replacingOccurrences(of: #""iPhone"}"#, with: #""iPhone","sourceName":"Anna"}"#)) // a field /steps lines lack
        forms.append(good.replacingOccurrences(of: #""iPhone"}"#, with: #""iPhone","count":6176}"#)) // a repeated key
        // Where the parser predicts the next key: whitespace before its colon, an unknown key that starts with it.
        forms.append(good.replacingOccurrences(of: #""startDate":"#, with: #""startDate" :"#))
        forms.append(good.replacingOccurrences(of: #""endDate":"#, with: #""endDateLocal":"x","endDate":"#))
        forms.append(good.replacingOccurrences(of: #""count":"#, with: #""coun\u0074":"#))
        return forms
    }()

    @Test("a /steps object written any other way is encoded again (no stored range), and decodes the same", arguments: otherForms)
    func otherFormsAreEncoded(object: String) throws {
        #expect(try Self.storedFlags([Self.steps, object, Self.steps.replacingOccurrences(of: "D673", with: "E673")], steps: true)
                == [true, false, true])
        let canonical = try WireDecoder.decodeStepsRequest(Array(#"{"samples":[\#(Self.steps)]}"#.utf8))[0]
        var other = try WireDecoder.decodeStepsRequest(Array(#"{"samples":[\#(object)]}"#.utf8))[0]
        other.sourceName = canonical.sourceName
        #expect(other.uuid == canonical.uuid && other.startMs == canonical.startMs && other.endMs == canonical.endMs)
    }

    @Test("a /samples object is stored as it came only in the encoder's layout; a step count through /samples never is", arguments: [
        (heartRate, true),
        (heartRate.replacingOccurrences(of: #""value":72"#, with: #""value":72.5"#), false),
        (heartRate.replacingOccurrences(of: #"{"metadata":{"#, with: #"{ "metadata":{"#), false),
        (heartRate.replacingOccurrences(of: #","sourceVersion":"10.1""#, with: "")
            .replacingOccurrences(of: #""deviceModel":"Watch6,2""#, with: #""deviceModel":"Watch6,2","sourceVersion":"10.1""#), false),
        (heartRate.replacingOccurrences(of: #""1"}}"#, with: #""Ä"}}"#), false),
        (heartRate.replacingOccurrences(of: "HKQuantityTypeIdentifierHeartRate", with: "HKQuantityTypeIdentifierStepCount")
            .replacingOccurrences(of: "count/min", with: "count"), false),
    ] as [(String, Bool)])
    func samplesLayout(object: String, stored: Bool) throws {
        #expect(try Self.storedFlags([object], steps: false) == [stored])
    }

    @Test("a second samples key replaces the first's ranges (one range per sample)")
    func repeatedSamplesKey() throws {
        let body = Array(#"{"samples":[\#(Self.steps),\#(Self.steps)],"samples":[\#(Self.steps)]}"#.utf8)
        let decoded = try WireDecoder.decodeStepsBody(body)
        #expect(decoded.samples.count == 1 && decoded.storedLines.count == 1)
    }
}
