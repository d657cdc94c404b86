import Foundation
import StepSyncCore
import StepSyncSink
import Testing
import StepSyncTestSupport

@Suite("Sink validation: instants, sizes, and what errors quote")
struct SinkValidationTests {
    static func stepsBody(start: String, end: String, uuid: UUID = uuid(1)) -> [UInt8] {
        Array(#"{"samples":[{"uuid":"\#(uuid.uuidString)","startDate":"\#(start)","endDate":"\#(end)","count":5,"sourceBundleId":"com.apple.health"}]}"#.utf8)
    }

    @Test("issue 11.1: a POST whose end is in year 10000 through its offset is refused with 400 naming endDate and the range, and nothing is stored",
          arguments: SinkBackend.allCases)
    func yearTenThousand(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                let reply = try await client.send(.POST, "/steps", body: Self.stepsBody(
                    start: "9999-12-31T20:00:00.000Z", end: "9999-12-31T23:00:00.000-02:00"))
                #expect(reply.status == 400)
                #expect(reply.json["error"] as? String == "instant_out_of_range")
                #expect(reply.json["field"] as? String == "endDate")
                #expect(reply.json["index"] as? Int == 0)
                #expect((reply.json["message"] as? String)?.contains("0001-01-01T00:00:00.000Z … 9999-12-31T23:59:59.999Z") == true)
                let before = try await client.send(.POST, "/samples", body: Array(String(decoding: samplesBody(makeHealthSamples(1)), as: UTF8.self)
                    .replacingOccurrences(of: "2025-05-11T00:00:00.000Z\",\"endDate", with: "0000-12-31T23:00:00.000Z\",\"endDate").utf8))
                #expect(before.status == 400)
                #expect(before.json["error"] as? String == "instant_out_of_range")
                #expect(before.json["field"] as? String == "startDate")
                #expect(try await client.send(.GET, "/steps").json["storedCount"] as? Int == 0)
                #expect(try await client.send(.GET, "/samples/types").json["types"] as? [String: Int] == [:])
            }
        }
    }

    @Test("issue 11.1: samples at the edges of the range (0001-01-01, 9999-12-31T23:59:59.999Z) are stored and served back identical after a restart")
    func edgeDatesSurviveRestart() async throws {
        try await withTemporaryDirectory { dir in
            let stepsBody = Self.stepsBody(start: "0001-01-01T00:00:00.000Z", end: "9999-12-31T23:59:59.999Z", uuid: uuid(7))
            let edge = HealthSample(uuid: uuid(8), type: .heartRate, startMs: Instants.max, endMs: Instants.max, value: 60,
                                    unit: "count/min", sourceName: "Watch", sourceBundleId: "com.apple.health")
            let early = HealthSample(uuid: uuid(9), type: .heartRate, startMs: Instants.min, endMs: Instants.min + 1,
                                     value: 61, unit: "count/min", sourceName: "Watch", sourceBundleId: "com.apple.health")
            let served = try await withSink(directory: dir) { client, _ in
                #expect(try await client.send(.POST, "/steps", body: stepsBody).status == 200)
                // The offset form of the last instant is accepted too.
                let offsetForm = Self.stepsBody(start: "9999-12-31T21:59:59.999-02:00", end: "9999-12-31T21:59:59.999-02:00", uuid: uuid(6))
                #expect(try await client.send(.POST, "/steps", body: offsetForm).status == 200)
                #expect(try await client.post(samples: [edge, early]).status == 200)
                return try await client.send(.GET, "/steps").text + (try await client.send(.GET, "/samples?type=HKQuantityTypeIdentifierHeartRate").text)
            }
            #expect(served.contains(#""startDate":"0001-01-01T00:00:00.000Z","endDate":"9999-12-31T23:59:59.999Z""#))
            #expect(served.contains(#""startDate":"9999-12-31T23:59:59.999Z","endDate":"9999-12-31T23:59:59.999Z""#))
            #expect(served.contains(#""startDate":"0001-01-01T00:00:00.000Z","endDate":"0001-01-01T00:00:00.001Z""#))
            try await withSink(directory: dir) { client, path in
                let again = try await client.send(.GET, "/steps").text + (try await client.send(.GET, "/samples?type=HKQuantityTypeIdentifierHeartRate").text)
                #expect(again == served)
                #expect(!FileManager.default.fileExists(atPath: path + ".quarantine"))
            }
        }
    }

    @Test("issue 11.5: a 200 KB sourceBundleId is refused with 400 field_too_long naming the field, quoting none of it",
          arguments: SinkBackend.allCases)
    func oversizedField(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                let huge = String(repeating: "A", count: 200_000)
                let body = String(decoding: WireEncoder.encodeRequest(makeSamples(3)), as: UTF8.self)
                    .replacingOccurrences(of: #""sourceBundleId":"com.apple.health","sourceDeviceName":"iPhone"}]"#,
                                          with: #""sourceBundleId":"\#(huge)","sourceDeviceName":"iPhone"}]"#)
                let reply = try await client.send(.POST, "/steps", body: Array(body.utf8))
                #expect(reply.status == 400)
                #expect(reply.json["error"] as? String == "field_too_long")
                #expect(reply.json["field"] as? String == "sourceBundleId")
                #expect(reply.json["index"] as? Int == 2)
                #expect(reply.body.count < 300)
                #expect(try await client.send(.GET, "/steps").json["storedCount"] as? Int == 0)

                let bigDetails = "{\"x\":\"" + String(repeating: "y", count: 70_000) + "\"}"
                let detailsReply = try await client.post(samples: makeHealthSamples(1, type: .workout, unit: "s", details: bigDetails))
                #expect(detailsReply.status == 400)
                #expect(detailsReply.json["error"] as? String == "field_too_long")
                #expect(detailsReply.json["field"] as? String == "details")
                #expect(detailsReply.body.count < 300)
                var name = makeHealthSamples(1)
                name[0].sourceName = String(repeating: "n", count: 1025)
                let nameReply = try await client.post(samples: name)
                #expect(nameReply.json["field"] as? String == "sourceName" && nameReply.status == 400)
            }
        }
    }

    @Test("a text field holding U+0000 (\\u0000 on the wire) is refused with 400 nul_character naming the field and index, storing nothing of the body; a NUL escaped inside details is kept verbatim",
          arguments: SinkBackend.allCases)
    func nulInTextField(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                let body = String(decoding: WireEncoder.encodeRequest(makeSamples(3)), as: UTF8.self)
                    .replacingOccurrences(of: #""sourceBundleId":"com.apple.health","sourceDeviceName":"iPhone"}]"#,
                                          with: #""sourceBundleId":"com.apple.health","sourceDeviceName":"iPh\u0000one"}]"#)
                let steps = try await client.send(.POST, "/steps", body: Array(body.utf8))
                #expect(steps.status == 400, "\(steps.text)")
                #expect(steps.json["error"] as? String == "nul_character")
                #expect(steps.json["field"] as? String == "sourceDeviceName")
                #expect(steps.json["index"] as? Int == 2)
                #expect(try await client.send(.GET, "/steps").json["storedCount"] as? Int == 0)

                var samples = makeHealthSamples(2)
                samples[1].unit = "count\u{0}/min"
                let other = try await client.post(samples: samples)
                #expect(other.status == 400 && other.json["error"] as? String == "nul_character", "\(other.text)")
                #expect(other.json["field"] as? String == "unit" && other.json["index"] as? Int == 1)
                let path = "/samples?type=HKQuantityTypeIdentifierHeartRate"
                #expect(try await client.send(.GET, path).json["storedCount"] as? Int == 0)

                // In details (JSON) the NUL is an escape, text like any other: stored and given back as sent.
                let details = #"{"note":"a\u0000b"}"#
                let kept = try await client.post(samples: makeHealthSamples(1, first: 50, type: .workout, unit: "s", details: details))
                #expect(kept.status == 200 && kept.json["inserted"] as? Int == 1, "\(kept.text)")
                let page = try await client.send(.GET, "/samples?type=HKWorkoutTypeIdentifier")
                #expect(page.text.contains(#""details":{"note":"a\u0000b"}"#), "\(page.text.prefix(400))")
            }
        }
    }

    @Test("POST /samples refusals name the problem, field and index", arguments: [
        (#""type":"HKQuantityTypeIdentifierHeartRate""#, #""type":"no spaces allowed""#, "invalid_type", "type"),
        (#""value":2"#, #""value":"2""#, "wrong_type", "value"),
        (#""unit":"count/min","#, "", "missing_field", "unit"),
        (#""details":{"a":1}"#, #""details":[1]"#, "wrong_type", "details"),
        (#""value":2"#, #""value":NaN"#, "malformed_json", nil),
    ] as [(String, String, String, String?)])
    func samplesRefusals(original: String, replacement: String, kind: String, field: String?) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir) { client, _ in
                let samples = makeHealthSamples(3, details: #"{"a":1}"#)
                var text = String(decoding: samplesBody(samples), as: UTF8.self)
                // Change the second sample only.
                let objects = text.components(separatedBy: "},{")
                #expect(objects.count == 3)
                let second = objects[1].replacingOccurrences(of: original, with: replacement)
                #expect(second != objects[1])
                text = [objects[0], second, objects[2]].joined(separator: "},{")
                let reply = try await client.send(.POST, "/samples", body: Array(text.utf8))
                #expect(reply.status == 400, "\(reply.text)")
                #expect(reply.json["error"] as? String == kind, "\(reply.text)")
                #expect(reply.json["field"] as? String == field, "\(reply.text)")
                #expect(reply.json["index"] as? Int == 1, "\(reply.text)")
                #expect(try await client.send(.GET, "/samples/types").json["types"] as? [String: Int] == [:])
            }
        }
    }

    @Test("issue 11.5: a /steps/delete error quotes at most 64 characters of the offending value")
    func deleteErrorIsShort() async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir) { client, _ in
                let long = String(repeating: "Z", count: 100_000)
                let reply = try await client.send(.POST, "/steps/delete", body: Array(#"{"uuids":["\#(long)"]}"#.utf8))
                #expect(reply.status == 400)
                #expect(reply.json["field"] as? String == "uuids")
                #expect((reply.json["message"] as? String)?.contains(String(repeating: "Z", count: 64)) == true)
                #expect((reply.json["message"] as? String)?.contains(String(repeating: "Z", count: 65)) == false)
                #expect(reply.body.count < 300)
            }
        }
    }
}
