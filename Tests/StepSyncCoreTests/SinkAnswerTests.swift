import Foundation
import StepSyncCore
import Testing

/// The sink's answers, one definition for both sides of the wire (issue 24): each type writes exactly the bytes the
/// sink sent before it existed (string interpolation and `JSONSerialization` with `.sortedKeys`, copied here as fixed
/// strings), reads them back, and reads what older and newer sinks send.
@Suite("Sink answers: the bodies the sink writes and the sync reads")
struct SinkAnswerTests {
    // MARK: - Legacy bytes

    @Test("the acknowledgements write the bytes the sink interpolated before, and read them back", arguments: [
        (SinkIngestAnswer(saved: 2, inserted: 2, duplicates: 0),
         #"{"saved":2,"message":"Success","inserted":2,"duplicates":0}"#),
        (SinkIngestAnswer(saved: 5000, inserted: 4321, duplicates: 679),
         #"{"saved":5000,"message":"Success","inserted":4321,"duplicates":679}"#),
        (SinkIngestAnswer(saved: 0, inserted: 0, duplicates: 0),
         #"{"saved":0,"message":"Success","inserted":0,"duplicates":0}"#),
    ])
    func ingest(answer: SinkIngestAnswer, legacy: String) throws {
        #expect(String(decoding: answer.encoded(), as: UTF8.self) == legacy)
        #expect(try SinkIngestAnswer(bytes: Array(legacy.utf8)) == answer)
        #expect(try SinkIngestAnswer(bytes: Array(legacy.utf8)).acknowledgement
            == SinkAcknowledgement(saved: answer.saved, inserted: answer.inserted, duplicates: answer.duplicates))
    }

    @Test("the deletion and DELETE acknowledgements write the bytes the sink interpolated before", arguments: [
        (0, 0, #"{"deleted":0,"missing":0}"#, #"{"message":"Deleted 0 samples","deleted":0}"#),
        (2, 2, #"{"deleted":2,"missing":2}"#, #"{"message":"Deleted 2 samples","deleted":2}"#),
        (12, 1_000_000, #"{"deleted":12,"missing":1000000}"#, #"{"message":"Deleted 12 samples","deleted":12}"#),
    ])
    func deletions(deleted: Int, missing: Int, legacy: String, legacyClear: String) throws {
        let answer = SinkDeletionAnswer(deleted: deleted, missing: missing)
        #expect(String(decoding: answer.encoded(), as: UTF8.self) == legacy)
        #expect(try SinkDeletionAnswer(bytes: Array(legacy.utf8)) == answer)
        #expect(answer.acknowledgement
            == SinkAcknowledgement(saved: deleted + missing, inserted: 0, duplicates: 0, deleted: deleted))
        let clear = SinkClearAnswer(deleted: deleted)
        #expect(String(decoding: clear.encoded(), as: UTF8.self) == legacyClear)
        #expect(try SinkClearAnswer(bytes: Array(legacyClear.utf8)) == clear)
    }

    @Test("GET /samples/types writes the interpolated listing, types ascending")
    func types() throws {
        let counts: [SampleType: Int] = [.stepCount: 5000, .heartRate: 120, .workout: 1, .distanceWalkingRunning: 3]
        let legacy = """
            {"types":{"HKQuantityTypeIdentifierDistanceWalkingRunning":3,"HKQuantityTypeIdentifierHeartRate":120,\
            "HKQuantityTypeIdentifierStepCount":5000,"HKWorkoutTypeIdentifier":1}}
            """
        let answer = SinkTypesAnswer(counts: counts)
        #expect(String(decoding: answer.encoded(), as: UTF8.self) == legacy)
        #expect(try SinkTypesAnswer(bytes: Array(legacy.utf8)) == answer)
        #expect(try SinkTypesAnswer(bytes: Array(legacy.utf8)).counts == counts)
        #expect(String(decoding: SinkTypesAnswer(counts: [:]).encoded(), as: UTF8.self) == #"{"types":{}}"#)
        #expect(try SinkTypesAnswer(bytes: Array(#"{"types":{}}"#.utf8)).counts.isEmpty)
    }

    /// Error bodies as `JSONSerialization` with `.sortedKeys` wrote them: keys sorted, `/` escaped as `\/`,
    /// control characters as `\u00XX`, other characters as they are.
    @Test("error bodies write the bytes JSONSerialization wrote, and read them back", arguments: [
        (SinkErrorAnswer(error: "unauthorized", message: "this sink needs Authorization: Bearer <token>"),
         #"{"error":"unauthorized","message":"this sink needs Authorization: Bearer <token>"}"#),
        (SinkErrorAnswer(error: "not_found", message: "no endpoint /nope; try /steps"),
         #"{"error":"not_found","message":"no endpoint \/nope; try \/steps"}"#),
        (SinkErrorAnswer(error: "negative_value", message: #"sample 3: field "value": -2 is negative"#, index: 3,
                         field: "value"),
         #"{"error":"negative_value","field":"value","index":3,"message":"sample 3: field \"value\": -2 is negative"}"#),
        (SinkErrorAnswer(error: "bad_request", message: "limit \"x\" is not a positive integer", field: "limit"),
         #"{"error":"bad_request","field":"limit","message":"limit \"x\" is not a positive integer"}"#),
        (SinkErrorAnswer(error: "malformed_json", message: "tab\there \u{1} back\\slash é 手 😀\nline", index: 0),
         #"{"error":"malformed_json","index":0,"message":"tab\there \u0001 back\\slash é 手 😀\nline"}"#),
    ])
    func errors(answer: SinkErrorAnswer, legacy: String) throws {
        #expect(String(decoding: answer.encoded(), as: UTF8.self) == legacy)
        #expect(try SinkErrorAnswer(bytes: Array(legacy.utf8)) == answer)
        #expect(SinkErrorAnswer.message(in: Array(legacy.utf8)) == answer.message)
    }

    @Test("/health writes the bytes the sink wrote before: interpolated when ok, JSONSerialization when degraded")
    func health() throws {
        let ok = #"{"api":1,"service":"stepsync","status":"ok"}"#
        #expect(String(decoding: SinkHealthBody.ok.encoded(), as: UTF8.self) == ok)
        #expect(try SinkHealthBody(bytes: Array(ok.utf8)) == .ok)
        let cases: [(Double, String)] = [(1_764_147_528.5, "1764147528.5"), (1_764_147_528, "1764147528"), (0, "0")]
        for (since, text) in cases {
            let legacy = #"{"api":1,"reason":"disk full: \/data","service":"stepsync","since":\#(text),"status":"degraded"}"#
            let degraded = SinkHealthBody.degraded(reason: "disk full: /data", since: since)
            #expect(String(decoding: degraded.encoded(), as: UTF8.self) == legacy)
            #expect(try SinkHealthBody(bytes: Array(legacy.utf8)) == degraded)
            #expect(SinkHealthAnswer.isSink(Array(legacy.utf8)))
            #expect(SinkErrorAnswer.message(in: Array(legacy.utf8)) == "disk full: /data")
        }
    }

    @Test("JSONEncoder's view of each answer holds the same keys and values as its hand-written bytes")
    func codableAgreesWithHandWritten() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        func text(_ value: some Encodable) throws -> String {
            String(decoding: try encoder.encode(value), as: UTF8.self)
        }
        #expect(try text(SinkIngestAnswer(saved: 3, inserted: 2, duplicates: 1))
            == #"{"duplicates":1,"inserted":2,"message":"Success","saved":3}"#)
        #expect(try text(SinkDeletionAnswer(deleted: 4, missing: 1)) == #"{"deleted":4,"missing":1}"#)
        #expect(try text(SinkClearAnswer(deleted: 7)) == #"{"deleted":7,"message":"Deleted 7 samples"}"#)
        // And JSONDecoder reads what JSONEncoder wrote: the coding keys and the hand-written bytes agree.
        let ingest = SinkIngestAnswer(saved: 3, inserted: 2, duplicates: 1)
        #expect(try SinkIngestAnswer(bytes: encoder.encode(ingest)) == ingest)
        #expect(try SinkClearAnswer(bytes: encoder.encode(SinkClearAnswer(deleted: 7))) == SinkClearAnswer(deleted: 7))
    }

    // MARK: - Older and newer sinks

    @Test("the sync's reading ignores keys it does not know (a newer sink's additions)")
    func unknownKeys() throws {
        let extra = #""receivedAt":"2026-11-26T09:00:00.000Z","extra":{"nested":[1,null,true]},"version":2.5"#
        let ingest = #"{"saved":3,"message":"Success",\#(extra),"inserted":1,"duplicates":2}"#
        #expect(try SinkIngestAnswer(bytes: Array(ingest.utf8))
            == SinkIngestAnswer(saved: 3, inserted: 1, duplicates: 2))
        #expect(try SinkDeletionAnswer(bytes: Array(#"{\#(extra),"deleted":1,"missing":0}"#.utf8))
            == SinkDeletionAnswer(deleted: 1, missing: 0))
        #expect(try SinkClearAnswer(bytes: Array(#"{"message":"Gone","deleted":9,\#(extra)}"#.utf8))
            == SinkClearAnswer(deleted: 9))
        #expect(try SinkTypesAnswer(bytes: Array(#"{"types":{"T":1},\#(extra)}"#.utf8)).types == ["T": 1])
        let error = #"{"error":"x","message":"m","index":1,"hint":"y",\#(extra)}"#
        #expect(try SinkErrorAnswer(bytes: Array(error.utf8)) == SinkErrorAnswer(error: "x", message: "m", index: 1))
        let health = #"{"status":"ok","service":"stepsync","api":2,\#(extra)}"#
        #expect(try SinkHealthBody(bytes: Array(health.utf8)).api == 2)
        #expect(SinkHealthAnswer.isSink(Array(health.utf8)))
    }

    @Test("an acknowledgement without inserted and duplicates (sinks before them) counts every sample as inserted")
    func olderSinks() throws {
        let old = try SinkIngestAnswer(bytes: Array(#"{"saved":3,"message":"Success"}"#.utf8))
        #expect(old == SinkIngestAnswer(saved: 3, inserted: 3, duplicates: 0))
        #expect(try SinkIngestAnswer(bytes: Array(#"{"saved":3,"inserted":1}"#.utf8)).duplicates == 2)
        let health = try SinkHealthBody(bytes: Array(#"{"status":"degraded","reason":"disk full","since":1}"#.utf8))
        #expect(health.service == nil && health.api == nil && health.isStepSyncSink)
        #expect(try !SinkHealthBody(bytes: Array(#"{"status":"ok","service":"other"}"#.utf8)).isStepSyncSink)
        #expect(try !SinkHealthBody(bytes: Array(#"{"status":"UP"}"#.utf8)).isStepSyncSink)
    }

    // MARK: - Not an answer

    @Test("a body that is not the answer is refused naming what is wrong and quoting its start", arguments: [
        ("<html><title>502 Bad Gateway</title></html>", "not JSON", #""502 Bad Gateway""#),
        ("", "not JSON", "(empty body)"),
        ("[1,2]", "not a JSON object", "\"[1,2]\""),
        (#"{"message":"Success"}"#, #"the field "saved" is missing"#, #""{"message":"Success"}""#),
        (#"{"saved":"2"}"#, #"the field "saved" is not an integer"#, #""{"saved":"2"}""#),
        (#"{"saved":null}"#, #"the field "saved" is not an integer"#, #""{"saved":null}""#),
    ])
    func notAnAnswer(body: String, problem: String, excerpt: String) {
        #expect {
            try SinkIngestAnswer(bytes: Array(body.utf8))
        } throws: { error in
            guard let error = error as? SinkAnswerError else { return false }
            return error.problem == problem && error.excerpt == excerpt
                && error.description == "the answer is not an acknowledgement (\(problem)): \(excerpt)"
        }
    }

    @Test("a nested field at fault is named by its path")
    func nestedField() {
        #expect {
            try SinkTypesAnswer(bytes: Array(#"{"types":{"T":"many"}}"#.utf8))
        } throws: { error in
            (error as? SinkAnswerError)?.problem == #"the field "types.T" is not an integer"#
        }
    }

    // MARK: - What the sync makes of error bodies

    @Test("the message of an error body: the sink's, Hummingbird's, a proxy's JSON; nil for anything else", arguments: [
        (#"{"error":"busy","message":"the sink holds its budget"}"#, "the sink holds its budget"),
        (#"{"error":{"message":"Payload Too Large"}}"#, "Payload Too Large"),
        (#"{"message":"only a message"}"#, "only a message"),
        (#"{"error":"only an error"}"#, "only an error"),
        (#"{"status":"degraded","reason":"disk full"}"#, "disk full"),
        (#"{"error":5,"message":"a number as error"}"#, "a number as error"),
        (#"{"error":{"code":5},"message":"nested without message"}"#, "nested without message"),
        (#"{"detail":"FastAPI style"}"#, nil),
        ("<html>502</html>", nil),
        ("", nil),
    ] as [(String, String?)])
    func message(body: String, expected: String?) {
        #expect(SinkErrorAnswer.message(in: Array(body.utf8)) == expected)
    }

    @Test("a 4xx naming a sample inside the request is its refusal; reason and field cut to 64, message to 300")
    func sampleRefusal() throws {
        let body = #"{"error":"negative_value","field":"value","index":3,"message":"sample 3: -2 is negative"}"#
        let answer = try SinkErrorAnswer(bytes: Array(body.utf8))
        #expect(answer.sampleRefusal(status: 400, itemCount: 4)
            == SampleRefusal(status: 400, index: 3, reason: "negative_value", field: "value",
                             message: "sample 3: -2 is negative"))
        #expect(answer.sampleRefusal(status: 400, itemCount: 3) == nil)
        #expect(SinkErrorAnswer(error: "x", message: "m", index: -1).sampleRefusal(status: 400, itemCount: 3) == nil)
        #expect(SinkErrorAnswer(error: "x", message: "m").sampleRefusal(status: 400, itemCount: 3) == nil)
        let long = SinkErrorAnswer(error: String(repeating: "e", count: 100),
                                   message: String(repeating: "m", count: 400),
                                   index: 0, field: String(repeating: "f", count: 100))
        let refusal = try #require(long.sampleRefusal(status: 422, itemCount: 1))
        #expect(refusal.reason.count == 64 && refusal.field?.count == 64 && refusal.message.count == 300)
    }
}
