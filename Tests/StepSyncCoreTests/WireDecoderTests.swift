import Foundation
import Testing
@testable import StepSyncCore

@Suite("WireDecoder")
struct WireDecoderTests {
    static let good = #"{"uuid":"D67311EE-FACB-41AA-B202-8D266F3EDE18","startDate":"2025-05-11T16:27:22.000Z","endDate":"2025-05-11T16:29:03.000Z","count":6176,"sourceBundleId":"com.apple.health","sourceDeviceName":"iPhone"}"#

    static func body(_ objects: String...) -> Data { Data(#"{"samples":[\#(objects.joined(separator: ","))]}"#.utf8) }

    @Test("decodes the issue's payload, with and without sourceDeviceName")
    func decodesIssuePayload() throws {
        let noDevice = Self.good.replacingOccurrences(of: #","sourceDeviceName":"iPhone""#, with: "")
        let samples = try WireDecoder.decodeRequest(Self.body(Self.good, noDevice.replacingOccurrences(of: "D673", with: "a673")))
        #expect(samples.count == 2)
        #expect(samples[0].uuid == UUID(uuidString: "D67311EE-FACB-41AA-B202-8D266F3EDE18"))
        #expect(samples[0].startMs == ISO8601Millis.parse("2025-05-11T16:27:22.000Z"))
        #expect(samples[0].endMs - samples[0].startMs == 101_000)
        #expect(samples[0].count == 6176)
        #expect(samples[0].sourceBundleId == "com.apple.health")
        #expect(samples[0].sourceDeviceName == "iPhone")
        #expect(samples[1].sourceDeviceName == nil)
        #expect(samples[1].uuid.uuidString.hasPrefix("A673"))
    }

    @Test("rejects each bad input with its kind, field and sample index", arguments: [
        ("not json", "malformed_json", nil, nil),
        (#"{"samples":{}}"#, "wrong_type", nil, "samples"),
        (#"{"other":[]}"#, "missing_field", nil, "samples"),
        ("#2 " + good.replacingOccurrences(of: #""count":6176,"#, with: ""), "missing_field", 1, "count"),
        ("#2 " + good.replacingOccurrences(of: #""count":6176"#, with: #""count":"6176""#), "wrong_type", 1, "count"),
        ("#2 " + good.replacingOccurrences(of: "D67311EE-", with: "X67311EE-"), "invalid_uuid", 1, "uuid"),
        ("#2 " + good.replacingOccurrences(of: "2025-05-11T16:27:22.000Z", with: "yesterday"), "invalid_date", 1, "startDate"),
        ("#2 " + good.replacingOccurrences(of: "2025-05-11T16:29:03.000Z", with: "2025-05-11T16:00:00.000Z"), "end_before_start", 1, "endDate"),
        ("#2 " + good.replacingOccurrences(of: #""count":6176"#, with: #""count":-1"#), "negative_value", 1, "count"),
        ("#2 " + good.replacingOccurrences(of: #""count":6176"#, with: #""count":1000001"#), "value_out_of_range", 1, "count"),
        ("#2 " + good.replacingOccurrences(of: "2025-05-11T16:29:03.000Z", with: "9999-12-31T23:00:00.000-02:00"), "instant_out_of_range", 1, "endDate"),
        ("#2 " + good.replacingOccurrences(of: "2025-05-11T16:27:22.000Z", with: "0000-12-31T23:00:00.000Z"), "instant_out_of_range", 1, "startDate"),
        ("#2 " + good.replacingOccurrences(of: "2025-05-11T16:27:22.000Z", with: "2025-05-11T16"), "invalid_date", 1, "startDate"),
        ("#2 " + good.replacingOccurrences(of: "2025-05-11T16:27:22.000Z", with: "2025-05-11T16:27:22.000+25:00"), "invalid_date", 1, "startDate"),
        ("#2 " + good.replacingOccurrences(of: #""com.apple.health""#, with: "\"" + String(repeating: "b", count: 1025) + "\""), "field_too_long", 1, "sourceBundleId"),
    ] as [(String, String, Int?, String?)])
    func rejects(input: String, kind: String, index: Int?, field: String?) {
        // "#2 <object>" means: the object as the second sample, after a good one.
        let data = input.hasPrefix("#2 ") ? Self.body(Self.good, String(input.dropFirst(3))) : Data(input.utf8)
        #expect {
            _ = try WireDecoder.decodeRequest(data)
        } throws: { error in
            guard let error = error as? WireError else { return false }
            if let index { #expect(error.description.contains("sample \(index)")) }
            if let field { #expect(error.description.contains(field)) }
            return error.kind == kind && error.sampleIndex == index && error.field == field
        }
    }
}

@Suite("WireDecoder: POST /samples")
struct WireSamplesDecoderTests {
    static let heartRate = #"{"uuid":"0b1e0000-0000-4000-8000-000000000001","type":"HKQuantityTypeIdentifierHeartRate","startDate":"2025-05-11T18:27:22+02:00","endDate":"2025-05-11T16:27:22.000Z","value":72,"unit":"count/min","sourceName":"Anna's Apple Watch","sourceBundleId":"com.apple.health.8B0C","sourceDeviceName":"Apple Watch","sourceVersion":"10.1","deviceModel":"Watch6,2","details":{"metadata":{"HKMetadataKeyHeartRateMotionContext":"1"}},"future":[1,{"x":null}]}"#

    @Test("decodes every field of the contract's example; unknown fields are ignored; offsets become UTC")
    func decodesContractExample() throws {
        let samples = try WireDecoder.decodeSamplesRequest(Data(#"{"samples":[\#(Self.heartRate)],"client":"x"}"#.utf8))
        let sample = try #require(samples.first)
        #expect(sample.uuid == UUID(uuidString: "0B1E0000-0000-4000-8000-000000000001"))
        #expect(sample.type == .heartRate)
        #expect(sample.startMs == ISO8601Millis.parse("2025-05-11T16:27:22.000Z") && sample.endMs == sample.startMs)
        #expect(sample.value == 72 && sample.unit == "count/min")
        #expect(sample.sourceName == "Anna's Apple Watch" && sample.sourceBundleId == "com.apple.health.8B0C")
        #expect(sample.deviceName == "Apple Watch" && sample.sourceVersion == "10.1" && sample.deviceModel == "Watch6,2")
        #expect(sample.details == #"{"metadata":{"HKMetadataKeyHeartRateMotionContext":"1"}}"#)
    }

    @Test("the stored object round-trips: appendSampleObject then decodeStoredSample gives the same sample")
    func roundTrip() throws {
        var sample = try #require(try WireDecoder.decodeSamplesRequest(Data(#"{"samples":[\#(Self.heartRate)]}"#.utf8)).first)
        sample.sourceName = "quote \" backslash \\ newline \n é"
        var line: [UInt8] = []
        WireEncoder.appendStoredLine(sample, to: &line)
        #expect(line.last == 0x0A && line.filter { $0 == 0x0A }.count == 1)
        #expect(try WireDecoder.decodeStoredSample(Data(line.dropLast()), type: .heartRate) == sample)
        #expect(throws: WireError.self) { try WireDecoder.decodeStoredSample(Data(line.dropLast()), type: .stepCount) }
    }

    @Test("a step count's stored line is HealthStepsSync's line plus the fields /steps lacks, and round-trips")
    func stepLine() throws {
        let plain = HealthSample(uuid: UUID(uuidString: "D67311EE-FACB-41AA-B202-8D266F3EDE18")!, type: .stepCount,
                                 startMs: ISO8601Millis.parse("2025-05-11T16:27:22.000Z")!,
                                 endMs: ISO8601Millis.parse("2025-05-11T16:29:03.000Z")!, value: 6176, unit: "count",
                                 sourceName: "", sourceBundleId: "com.apple.health", deviceName: "iPhone")
        var line: [UInt8] = []
        WireEncoder.appendStoredLine(plain, to: &line)
        #expect(String(decoding: line, as: UTF8.self) == WireDecoderTests.good + "\n")
        var rich = plain
        rich.sourceName = "Anna's iPhone"
        rich.deviceModel = "iPhone14,5"
        rich.details = #"{"k":[1,2]}"#
        line = []
        WireEncoder.appendStoredLine(rich, to: &line)
        #expect(String(decoding: line, as: UTF8.self).hasPrefix(WireDecoderTests.good.dropLast() + #","sourceName":"Anna's iPhone","deviceModel":"iPhone14,5","details":{"k":[1,2]}}"#))
        #expect(try WireDecoder.decodeStoredSample(Data(line.dropLast()), type: .stepCount) == rich)
        #expect(try WireDecoder.decodeSample(Data(line.dropLast())).count == 6176)
    }

    @Test("refusals name kind, field and index", arguments: [
        (#""type":"HKQuantityTypeIdentifierHeartRate","#, "", "missing_field", "type"),
        (#""value":72"#, #""value":-1"#, "", ""),
        (#""type":"HKQuantityTypeIdentifierHeartRate""#, #""type":"HKQuantityTypeIdentifierDistanceWalkingRunning""#, "", ""),
        (#""details":{"metadata""#, #""details":"text","x":{"metadata""#, "wrong_type", "details"),
        (#""sourceName":"Anna's Apple Watch""#, #""sourceName":null"#, "wrong_type", "sourceName"),
        (#""sourceVersion":"10.1""#, #""sourceVersion":null"#, "", ""),
    ] as [(String, String, String, String)])
    func refusals(original: String, replacement: String, kind: String, field: String) {
        let object = Self.heartRate.replacingOccurrences(of: original, with: replacement)
        let body = Data(#"{"samples":[\#(Self.heartRate),\#(object)]}"#.utf8)
        if kind.isEmpty {
            // Accepted: a negative heart rate is a discrete reading (no sign rule), a null optional is absent.
            #expect(throws: Never.self) { _ = try WireDecoder.decodeSamplesRequest(body) }
            return
        }
        #expect {
            _ = try WireDecoder.decodeSamplesRequest(body)
        } throws: { error in
            guard let error = error as? WireError else { return false }
            return error.kind == kind && error.field == field && error.sampleIndex == 1
        }
    }

    @Test("a cumulative value below zero is refused as negative_value naming value")
    func negativeCumulative() {
        let object = Self.heartRate.replacingOccurrences(of: "HKQuantityTypeIdentifierHeartRate", with: "HKQuantityTypeIdentifierDistanceWalkingRunning")
            .replacingOccurrences(of: #""value":72"#, with: #""value":-0.5"#)
        #expect {
            _ = try WireDecoder.decodeSamplesRequest(Data(#"{"samples":[\#(object)]}"#.utf8))
        } throws: { error in
            (error as? WireError).map { $0.kind == "negative_value" && $0.field == "value" && $0.sampleIndex == 0 } ?? false
        }
    }
}
