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
        ("#2 " + good.replacingOccurrences(of: #""count":6176"#, with: #""count":-1"#), "invalid_count", 1, "count"),
        ("#2 " + good.replacingOccurrences(of: #""count":6176"#, with: #""count":1000001"#), "invalid_count", 1, "count"),
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
