@testable import StepSyncSink
import Testing

/// `GET /stats`'s body (``SinkStatsAnswer``) is byte for byte what `JSONSerialization` with `.sortedKeys` wrote before
/// it existed (copied here as fixed strings): sorted keys, `/` escaped, `null` for what is not known.
@Suite("the /stats body")
struct SinkStatsAnswerTests {
    @Test("a sink with samples, activity and a file")
    func filled() throws {
        let answer = SinkStatsAnswer(
            samples: .init(total: 5003, steps: 5000,
                           types: ["HKQuantityTypeIdentifierStepCount": 5000, "HKQuantityTypeIdentifierHeartRate": 3],
                           firstStepStart: "2025-05-11T16:27:22.000Z", lastStepStart: "2025-05-12T08:00:00.000Z",
                           firstStarts: ["HKQuantityTypeIdentifierStepCount": "2025-05-11T16:27:22.000Z",
                                         "HKQuantityTypeIdentifierHeartRate": "2025-04-01T07:00:00.000Z"],
                           lastStarts: ["HKQuantityTypeIdentifierStepCount": "2025-05-12T08:00:00.000Z",
                                        "HKQuantityTypeIdentifierHeartRate": "2025-05-01T07:00:00.000Z"]),
            activity: .init(startedAt: "2026-11-26T09:00:00.000Z", requests: 7, errors: 1, ingests: 2, inserted: 5003,
                            duplicates: 0, lastIngest: "2026-11-26T09:10:00.000Z",
                            lastRequest: "2026-11-26T09:11:00.000Z"),
            storage: .init(kind: "jsonl", location: "/data/steps.jsonl",
                           files: [.init(name: "/data/steps.jsonl", bytes: 1234)], totalBytes: 1234, status: "ok",
                           reason: nil))
        let legacy = """
            {"activity":{"duplicates":0,"errors":1,"ingests":2,"inserted":5003,"lastIngest":"2026-11-26T09:10:00.000Z",\
            "lastRequest":"2026-11-26T09:11:00.000Z","requests":7,"startedAt":"2026-11-26T09:00:00.000Z"},\
            "samples":{"firstStarts":{"HKQuantityTypeIdentifierHeartRate":"2025-04-01T07:00:00.000Z",\
            "HKQuantityTypeIdentifierStepCount":"2025-05-11T16:27:22.000Z"},"firstStepStart":"2025-05-11T16:27:22.000Z",\
            "lastStarts":{"HKQuantityTypeIdentifierHeartRate":"2025-05-01T07:00:00.000Z",\
            "HKQuantityTypeIdentifierStepCount":"2025-05-12T08:00:00.000Z"},"lastStepStart":"2025-05-12T08:00:00.000Z",\
            "steps":5000,"total":5003,"types":{"HKQuantityTypeIdentifierHeartRate":3,\
            "HKQuantityTypeIdentifierStepCount":5000}},"storage":{"files":[{"bytes":1234,"name":"\\/data\\/steps.jsonl"}],\
            "kind":"jsonl","location":"\\/data\\/steps.jsonl","reason":null,"status":"ok","totalBytes":1234}}
            """
        #expect(String(decoding: try answer.encoded(), as: UTF8.self) == legacy)
    }

    @Test("an empty, degraded sink: nulls, an empty map and list")
    func empty() throws {
        let answer = SinkStatsAnswer(
            samples: .init(total: 0, steps: 0, types: [:], firstStepStart: nil, lastStepStart: nil, firstStarts: [:], lastStarts: [:]),
            activity: .init(startedAt: "2026-11-26T09:00:00.000Z", requests: 0, errors: 0, ingests: 0, inserted: 0,
                            duplicates: 0, lastIngest: nil, lastRequest: nil),
            storage: .init(kind: "postgresql", location: "postgres://db/steps", files: [], totalBytes: 0,
                           status: "degraded", reason: "the database is unreachable"))
        let legacy = """
            {"activity":{"duplicates":0,"errors":0,"ingests":0,"inserted":0,"lastIngest":null,"lastRequest":null,\
            "requests":0,"startedAt":"2026-11-26T09:00:00.000Z"},"samples":{"firstStarts":{},"firstStepStart":null,"lastStarts":{},\
            "lastStepStart":null,"steps":0,"total":0,"types":{}},"storage":{"files":[],"kind":"postgresql",\
            "location":"postgres:\\/\\/db\\/steps","reason":"the database is unreachable","status":"degraded",\
            "totalBytes":0}}
            """
        #expect(String(decoding: try answer.encoded(), as: UTF8.self) == legacy)
    }
}
