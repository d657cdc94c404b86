import Foundation
import StepSyncCore
import Testing

@Suite("WireEncoder: the POST /samples body and the deletion bodies")
struct WireEncoderSamplesTests {
    static let uuid = UUID(uuidString: "0b1e6d2a-3c4f-4a5b-8c9d-0e1f2a3b4c5d")!
    static let details = #"{"metadata":{"HKMetadataKeyHeartRateMotionContext":"1"},"beats":[{"t":0.5,"bpm":71.25}]}"#

    static func heartRate(details: String? = details, device: String? = "Apple Watch", version: String? = "10.1",
                          model: String? = "Watch6,2") -> HealthSample {
        HealthSample(
            uuid: uuid, type: .heartRate, startMs: ISO8601Millis.parse("2025-05-11T16:27:22.000Z")!,
            endMs: ISO8601Millis.parse("2025-05-11T16:27:22.000Z")!, utcOffsetSeconds: 7200, value: 72,
            unit: "count/min", sourceName: "Anna's Apple Watch", sourceBundleId: "com.apple.health.8B0C",
            sourceVersion: version, deviceName: device, deviceModel: model, details: details)
    }

    static func object(_ bytes: [UInt8]) throws -> [[String: Any]] {
        let top = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(top.keys.sorted() == ["samples"])
        return try #require(top["samples"] as? [[String: Any]])
    }

    @Test("writes exactly the contract's object, fields in order, details verbatim")
    func exactBody() {
        let text = String(decoding: WireEncoder.encodeSamplesRequest([Self.heartRate()]), as: UTF8.self)
        #expect(text == #"{"samples":[{"uuid":"0B1E6D2A-3C4F-4A5B-8C9D-0E1F2A3B4C5D","type":"HKQuantityTypeIdentifierHeartRate","startDate":"2025-05-11T16:27:22.000Z","endDate":"2025-05-11T16:27:22.000Z","value":72,"unit":"count/min","sourceName":"Anna's Apple Watch","sourceBundleId":"com.apple.health.8B0C","sourceDeviceName":"Apple Watch","sourceVersion":"10.1","deviceModel":"Watch6,2","details":\#(Self.details)}]}"#)
    }

    @Test("round-trips through JSONSerialization with every field's exact value")
    func roundTrip() throws {
        let samples = try Self.object(WireEncoder.encodeSamplesRequest([Self.heartRate()]))
        #expect(samples.count == 1)
        let s = samples[0]
        #expect(s["uuid"] as? String == "0B1E6D2A-3C4F-4A5B-8C9D-0E1F2A3B4C5D")
        #expect(s["type"] as? String == "HKQuantityTypeIdentifierHeartRate")
        #expect(s["startDate"] as? String == "2025-05-11T16:27:22.000Z")
        #expect(s["endDate"] as? String == "2025-05-11T16:27:22.000Z")
        #expect((s["value"] as? NSNumber)?.doubleValue == 72)
        #expect(s["unit"] as? String == "count/min")
        #expect(s["sourceName"] as? String == "Anna's Apple Watch")
        #expect(s["sourceBundleId"] as? String == "com.apple.health.8B0C")
        #expect(s["sourceDeviceName"] as? String == "Apple Watch")
        #expect(s["sourceVersion"] as? String == "10.1")
        #expect(s["deviceModel"] as? String == "Watch6,2")
        let details = try #require(s["details"] as? [String: Any])
        #expect((details["metadata"] as? [String: String]) == ["HKMetadataKeyHeartRateMotionContext": "1"])
        let beats = try #require(details["beats"] as? [[String: Any]])
        #expect((beats.first?["bpm"] as? NSNumber)?.doubleValue == 71.25)
        #expect(s.keys.count == 12)
    }

    @Test("optional fields are absent when nil; a category sample keeps unit \"\" and its code")
    func optionalFields() throws {
        let sleep = HealthSample(
            uuid: Self.uuid, type: .sleepAnalysis, startMs: 0, endMs: 1_800_000, value: 3, unit: "",
            sourceName: "Watch", sourceBundleId: "com.apple.health")
        let samples = try Self.object(WireEncoder.encodeSamplesRequest(
            [Self.heartRate(details: nil, device: nil, version: nil, model: nil), sleep]))
        #expect(samples.count == 2)
        #expect(Set(samples[0].keys) == ["uuid", "type", "startDate", "endDate", "value", "unit", "sourceName", "sourceBundleId"])
        #expect(samples[1]["unit"] as? String == "" && (samples[1]["value"] as? NSNumber)?.intValue == 3)
        #expect(samples[1]["type"] as? String == "HKCategoryTypeIdentifierSleepAnalysis")
        #expect(samples[1]["endDate"] as? String == "1970-01-01T00:30:00.000Z")
    }

    @Test("strings are escaped so that they read back exactly; fractional values keep their digits")
    func escapesAndNumbers() throws {
        let nasty = "a\"b\\c\nd\te\u{01}f/é😀"
        var sample = Self.heartRate()
        sample.sourceName = nasty
        sample.unit = nasty
        sample.deviceModel = nasty
        sample.value = 0.1 + 0.2
        let bytes = WireEncoder.encodeSamplesRequest([sample])
        let s = try #require(try Self.object(bytes).first)
        #expect(s["sourceName"] as? String == nasty && s["unit"] as? String == nasty && s["deviceModel"] as? String == nasty)
        // Swift's shortest round-trip form (Linux Foundation's parser rounds the last digit, so read the text).
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""value":0.30000000000000004,"#))
        #expect(Double("0.30000000000000004") == 0.1 + 0.2)
    }

    @Test("the deletion bodies: uuids only for /steps/delete, with the type for /samples/delete")
    func deletions() throws {
        let a = UUID(uuidString: "d67311ee-facb-41aa-b202-8d266f3ede18")!
        let b = Self.uuid
        #expect(String(decoding: WireEncoder.encodeDeletions([a, b], type: nil), as: UTF8.self)
            == #"{"uuids":["D67311EE-FACB-41AA-B202-8D266F3EDE18","0B1E6D2A-3C4F-4A5B-8C9D-0E1F2A3B4C5D"]}"#)
        #expect(String(decoding: WireEncoder.encodeDeletions([a], type: .heartRate), as: UTF8.self)
            == #"{"type":"HKQuantityTypeIdentifierHeartRate","uuids":["D67311EE-FACB-41AA-B202-8D266F3EDE18"]}"#)
        #expect(String(decoding: WireEncoder.encodeDeletions([], type: .heartRate), as: UTF8.self)
            == #"{"type":"HKQuantityTypeIdentifierHeartRate","uuids":[]}"#)
    }
}
