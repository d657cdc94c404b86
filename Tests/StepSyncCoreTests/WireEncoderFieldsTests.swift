import Foundation
import StepSyncCore
import Testing

/// The sync writes request bodies from borrowed row fields (``WireEncoder/SampleFields``); these must be the very
/// bytes the ``HealthSample`` encoders write, whatever the sample holds.
@Suite("WireEncoder: objects written from borrowed fields equal those written from HealthSample")
struct WireEncoderFieldsTests {
    static let start = ISO8601Millis.parse("2025-05-11T16:27:22.123Z")!

    /// Samples of every type and shape: escapes in every text field, non-ASCII text, nil and present optionals,
    /// empty strings, whole, fractional, negative, huge and non-finite values, details verbatim.
    static var samples: [HealthSample] {
        let types: [SampleType] = [.stepCount, .heartRate, .distanceWalkingRunning, .activeEnergyBurned, .sleepAnalysis,
                                   SampleType("HKWorkoutTypeIdentifier"), SampleType("HKQuantityTypeIdentifierBodyMass")]
        let texts = ["count", "", "Anna’s iPhone ⌚️", "quote \" backslash \\ tab \t newline \n cr \r bell \u{07} end",
                     "com.apple.health.8B0C", "\u{1F}\u{08}\u{0C}"]
        let values: [Double] = [6176, 0, 12.75, -3, 1e17, 9_007_199_254_740_991, 0.1, .nan, .infinity, 72]
        let details: [String?] = [nil, #"{"metadata":{"k":"v \"q\""},"beats":[{"t":0.5,"bpm":71.25}]}"#, "{}"]
        var out: [HealthSample] = []
        var i = 0
        for type in types {
            for value in values {
                for (j, text) in texts.enumerated() {
                    i += 1
                    var uuid = UUID().uuid
                    uuid.0 = UInt8(truncatingIfNeeded: i)
                    out.append(HealthSample(
                        uuid: UUID(uuid: uuid), type: type, startMs: start + Int64(i) * 1_000,
                        endMs: start + Int64(i) * 1_000 + Int64(j) * 61_000, utcOffsetSeconds: j % 2 == 0 ? nil : 3600,
                        value: value, unit: texts[(j + 1) % texts.count], sourceName: text,
                        sourceBundleId: texts[(j + 2) % texts.count],
                        sourceVersion: j % 3 == 0 ? nil : texts[(j + 3) % texts.count],
                        deviceName: j % 2 == 0 ? nil : texts[(j + 4) % texts.count],
                        deviceModel: j % 4 == 1 ? nil : "Watch6,2",
                        details: details[i % details.count]))
                }
            }
        }
        return out
    }

    /// Calls `body` with the borrowed fields of `sample` (copies of its UTF-8, freed afterwards).
    static func withFields<R>(_ sample: HealthSample, _ body: (WireEncoder.SampleFields) -> R) -> R {
        var buffers: [UnsafeMutableBufferPointer<UInt8>] = []
        defer { for buffer in buffers { buffer.deallocate() } }
        func copy(_ text: String?) -> UnsafeBufferPointer<UInt8>? {
            guard let text else { return nil }
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, text.utf8.count))
            _ = buffer.initialize(from: text.utf8)
            buffers.append(buffer)
            return UnsafeBufferPointer(start: buffer.baseAddress, count: text.utf8.count)
        }
        return body(WireEncoder.SampleFields(
            uuid: sample.uuid, startMs: sample.startMs, endMs: sample.endMs, value: sample.value,
            unit: copy(sample.unit)!, sourceName: copy(sample.sourceName)!, sourceBundleId: copy(sample.sourceBundleId)!,
            sourceVersion: copy(sample.sourceVersion), deviceName: copy(sample.deviceName),
            deviceModel: copy(sample.deviceModel), details: copy(sample.details)))
    }

    @Test("the POST /steps object from fields is byte for byte the HealthSample one, for every sample shape")
    func stepsObjects() {
        let samples = Self.samples
        #expect(samples.count == 7 * 10 * 6)
        var escaped = 0
        for sample in samples {
            var expected: [UInt8] = []
            WireEncoder.appendObject(sample, to: &expected)
            var actual: [UInt8] = []
            Self.withFields(sample) { WireEncoder.appendObject($0, to: &actual) }
            #expect(actual == expected, "\(String(decoding: expected, as: UTF8.self))")
            if expected.contains(UInt8(ascii: "\\")) { escaped += 1 }
        }
        #expect(escaped > 100, "the escaping path was taken")
    }

    @Test("the POST /samples object from fields is byte for byte the HealthSample one, details verbatim")
    func samplesObjects() throws {
        var withDetails = 0
        for sample in Self.samples {
            var expected: [UInt8] = []
            WireEncoder.appendSampleObject(sample, to: &expected)
            var actual: [UInt8] = []
            Self.withFields(sample) { WireEncoder.appendSampleObject($0, type: sample.type, to: &actual) }
            #expect(actual == expected, "\(String(decoding: expected, as: UTF8.self))")
            if sample.details != nil { withDetails += 1 }
        }
        #expect(withDetails == 280)
        // One object read back: the fields' values, escapes undone.
        let sample = Self.samples[9]
        var bytes: [UInt8] = []
        Self.withFields(sample) { WireEncoder.appendSampleObject($0, type: sample.type, to: &bytes) }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["sourceName"] as? String == sample.sourceName)
        #expect(object["unit"] as? String == sample.unit)
        #expect(object["sourceBundleId"] as? String == sample.sourceBundleId)
        #expect(object["uuid"] as? String == sample.uuid.uuidString)
    }
}
