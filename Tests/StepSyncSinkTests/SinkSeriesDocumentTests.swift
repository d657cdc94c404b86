import Foundation
import NIOHTTP1
import StepSyncCore
import StepSyncImport
import StepSyncPostgres
import StepSyncSink
import StepSyncTestSupport
import Testing

/// The series endpoints held to the OpenAPI document (`OpenAPIDocumentTests` checks only `application/json`
/// examples; the route's is `application/geo+json`).
@Suite("the series endpoints as documented")
struct SinkSeriesDocumentTests {
    static let endpoints: [(path: String, mediaType: String)] = [
        ("/workouts/{uuid}/route", "application/geo+json"), ("/electrocardiograms", "application/json"),
        ("/electrocardiograms/{uuid}", "application/json"),
    ]

    /// The `content` entry of `path`'s GET answer with `status`, for `mediaType`.
    static func media(_ document: [String: Any], _ path: String, _ status: String, _ mediaType: String) throws
        -> [String: Any]
    {
        let check = SchemaCheck(document: document)
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let operation = try #require(paths[path]?["get"] as? [String: Any])
        let response = check.dereferenced(try #require((operation["responses"] as? [String: Any])?[status] as? [String: Any]))
        return try #require((response["content"] as? [String: Any])?[mediaType] as? [String: Any])
    }

    @Test("the uuids of the document's ECG examples are the ones their recordings are named by (schemathesis asks them)")
    func exampleUUIDs() throws {
        let document = try OpenAPIDocumentTests.document()
        let parameters = try #require((document["components"] as? [String: Any])?["parameters"] as? [String: [String: Any]])
        #expect(parameters["recordingUUID"]?["example"] as? String
                == ElectrocardiogramPart.recordingUUID(recordedMs: 1_749_110_820_000, sampleRateHz: 512,
                                                       voltageCount: 15_360).uuidString)
        let one = try #require(try Self.media(document, "/electrocardiograms/{uuid}", "200", "application/json")["example"]
                               as? [String: Any])
        #expect(one["uuid"] as? String
                == ElectrocardiogramPart.recordingUUID(recordedMs: 1_749_110_820_000, sampleRateHz: 512,
                                                       voltageCount: 4).uuidString)
        #expect((one["microvolts"] as? [Double])?.count == one["samples"] as? Int)
    }

    @Test("the document's examples conform to their schemas, and the real answers (route, ECG list, one ECG, 400, 404) too",
          arguments: SinkBackend.allCases)
    func answersAsDocumented(backend: SinkBackend) async throws {
        let document = try OpenAPIDocumentTests.document()
        let check = SchemaCheck(document: document)
        for (path, mediaType) in Self.endpoints {
            let media = try Self.media(document, path, "200", mediaType)
            let schema = try #require(media["schema"] as? [String: Any])
            #expect(check.problems(try #require(media["example"]), schema).isEmpty, "\(path)")
        }
        let workout = SinkSeriesTests.workout(8)
        let ecg = SinkSeriesTests.ecg(SinkSeriesTests.header("2025-06-05T08:07:00.000Z", classification: "Sinus Rhythm"),
                                      SinkSeriesTests.voltages())
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                let document = try OpenAPIDocumentTests.document()
                let check = SchemaCheck(document: document)
                try await SinkSeriesTests.post(SinkSeriesTests.routeSamples(workout, SinkSeriesTests.points(1_000))
                                               + ecg.samples, client)
                let answers: [(String, String, String, Int, String)] = [
                    ("/workouts/\(workout.uuid.uuidString)/route", "/workouts/{uuid}/route", "application/geo+json", 200, "200"),
                    ("/electrocardiograms", "/electrocardiograms", "application/json", 200, "200"),
                    ("/electrocardiograms/\(ecg.uuid.uuidString)", "/electrocardiograms/{uuid}", "application/json", 200, "200"),
                    ("/workouts/\(UUID().uuidString)/route", "/workouts/{uuid}/route", "application/json", 404, "404"),
                    ("/electrocardiograms/nope", "/electrocardiograms/{uuid}", "application/json", 400, "400"),
                    ("/electrocardiograms?to=x", "/electrocardiograms", "application/json", 400, "400"),
                ]
                for (target, path, mediaType, status, documented) in answers {
                    let reply = try await client.send(.GET, target)
                    #expect(reply.status == status, "\(target)")
                    #expect(reply.headers["content-type"] == mediaType, "\(target)")
                    let schema = try #require(try Self.media(document, path, documented, mediaType)["schema"] as? [String: Any])
                    let problems = check.problems(try JSONSerialization.jsonObject(with: Data(reply.body)), schema)
                    #expect(problems.isEmpty, "\(target): \(problems.prefix(5))")
                }
            }
        }
    }
}
