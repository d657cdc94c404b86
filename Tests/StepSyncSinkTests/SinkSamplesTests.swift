import Foundation
import StepSyncCore
import StepSyncSink
import Testing
import StepSyncTestSupport

@Suite("Sink: every sample type through /samples")
struct SinkSamplesTests {
    static let workoutDetails = #"{"activityType":"HKWorkoutActivityTypeRunning","duration":1834.5,"totalDistance":{"value":5.2,"unit":"km"},"events":[{"type":"pause","date":"2025-05-11T07:10:00.000Z"}],"note":"a \"quoted\" line\nbreak"}"#

    static func samples() -> [HealthSample] {
        makeHealthSamples(5, first: 0, type: .heartRate)
            + makeHealthSamples(3, first: 100, type: .distanceWalkingRunning, unit: "km")
            + makeHealthSamples(2, first: 200, type: .sleepAnalysis, unit: "")
            + makeHealthSamples(1, first: 300, type: .workout, unit: "s", details: workoutDetails)
    }

    @Test("POST /samples stores each type once; GET /samples serves them field for field; types are counted",
          arguments: SinkBackend.allCases)
    func storesEveryType(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            let samples = Self.samples()
            try await withSink(backend, directory: dir) { client, _ in
                let reply = try await client.post(samples: samples)
                #expect(reply.status == 200, "\(reply.text)")
                #expect(reply.json["saved"] as? Int == 11 && reply.json["inserted"] as? Int == 11)
                #expect(reply.json["duplicates"] as? Int == 0 && reply.json["message"] as? String == "Success")
                let again = try await client.post(samples: Array(samples[3...]) + makeHealthSamples(1, first: 400))
                #expect(again.json["inserted"] as? Int == 1 && again.json["duplicates"] as? Int == 8)

                let types = try await client.send(.GET, "/samples/types")
                #expect(types.json["types"] as? [String: Int] == [
                    SampleType.heartRate.rawValue: 6, SampleType.distanceWalkingRunning.rawValue: 3,
                    SampleType.sleepAnalysis.rawValue: 2, SampleType.workout.rawValue: 1,
                ])
                let workout = try await client.send(.GET, "/samples?type=HKWorkoutTypeIdentifier")
                #expect(workout.json["storedCount"] as? Int == 1)
                let object = try #require(workout.samples.first)
                #expect(object["uuid"] as? String == uuid(300).uuidString)
                #expect(object["type"] as? String == "HKWorkoutTypeIdentifier")
                #expect(object["startDate"] as? String == "2025-05-13T02:00:00.000Z")
                #expect(object["endDate"] as? String == "2025-05-13T02:01:00.000Z")
                #expect(object["value"] as? Double == 301 && object["unit"] as? String == "s")
                #expect(object["sourceName"] as? String == "Anna's Apple Watch")
                #expect(object["sourceBundleId"] as? String == "com.apple.health.8B0C")
                #expect(object["sourceDeviceName"] as? String == "Apple Watch")
                #expect(object["sourceVersion"] as? String == "10.1" && object["deviceModel"] as? String == "Watch6,2")
                // details: the same JSON value, served as its text.
                #expect(workout.text.contains(#""details":\#(Self.workoutDetails)"#))
                let details = try #require(object["details"] as? [String: Any])
                #expect(details["note"] as? String == "a \"quoted\" line\nbreak")
                #expect((details["totalDistance"] as? [String: Any])?["unit"] as? String == "km")

                let heart = try await client.allPages("/samples?type=HKQuantityTypeIdentifierHeartRate", limit: 4)
                #expect(heart.compactMap { $0["uuid"] as? String } == (makeHealthSamples(5) + makeHealthSamples(1, first: 400)).map(\.uuid.uuidString))
                #expect(heart.compactMap { $0["value"] as? Double } == [1, 2, 3, 4, 5, 401])
                let none = try await client.send(.GET, "/samples?type=HKQuantityTypeIdentifierBodyMass")
                #expect(none.status == 200 && none.json["storedCount"] as? Int == 0 && none.samples.isEmpty)
            }
        }
    }

    @Test("details with whitespace and newlines between tokens are stored as one line and served as the same value")
    func detailsWhitespace() async throws {
        try await withTemporaryDirectory { dir in
            let pretty = "{\n  \"activityType\" : \"Running\",\r\n\t\"laps\" : [ 1 , 2 ],\n  \"text\" : \"keeps  its  spaces\"\n}"
            let body = String(decoding: samplesBody(makeHealthSamples(1, type: .workout, unit: "s")), as: UTF8.self)
                .replacingOccurrences(of: #""}]}"#, with: #"","details":\#(pretty)}]}"#)
            try await withSink(directory: dir) { client, path in
                let reply = try await client.send(.POST, "/samples", body: Array(body.utf8))
                #expect(reply.status == 200, "\(reply.text)")
                let file = dir + "/sink/samples/HKWorkoutTypeIdentifier.jsonl"
                let lines = String(decoding: fileBytes(file), as: UTF8.self).split(separator: "\n")
                #expect(lines.count == 1)
                #expect(lines.first?.hasSuffix(#""details":{"activityType":"Running","laps":[1,2],"text":"keeps  its  spaces"}}"#) == true)
            }
        }
    }

    @Test("a step count through /samples is served by /steps and de-duplicated against /steps, and back",
          arguments: SinkBackend.allCases)
    func stepsThroughBothDoors(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                #expect(try await client.post(makeSamples(3)).json["inserted"] as? Int == 3)
                // The same 3 uuids and 2 new ones, as step counts through /samples.
                let viaSamples = makeHealthSamples(5, type: .stepCount, unit: "count")
                let reply = try await client.post(samples: viaSamples)
                #expect(reply.json["inserted"] as? Int == 2 && reply.json["duplicates"] as? Int == 3)
                let steps = try await client.send(.GET, "/steps")
                #expect(steps.json["storedCount"] as? Int == 5)
                #expect(steps.uuids == (0..<5).map { uuid($0).uuidString })
                #expect(steps.samples.map { $0["count"] as? Double } == [1, 2, 3, 4, 5])
                // /steps objects stay HealthStepsSync objects.
                #expect(steps.samples.allSatisfy { Set($0.keys).isSubset(of: ["uuid", "startDate", "endDate", "count", "sourceBundleId", "sourceDeviceName"]) })
                let typed = try await client.send(.GET, "/samples?type=HKQuantityTypeIdentifierStepCount")
                #expect(typed.json["storedCount"] as? Int == 5)
                #expect(typed.samples.first?["unit"] as? String == "count")
                #expect(typed.samples.first?["sourceName"] as? String == "")
                #expect(typed.samples.last?["sourceName"] as? String == "Anna's Apple Watch")
                #expect(typed.samples.last?["deviceModel"] as? String == "Watch6,2")
                #expect(try await client.send(.GET, "/samples/types").json["types"] as? [String: Int]
                    == [SampleType.stepCount.rawValue: 5])
                #expect(try await client.post(makeSamples(5)).json["duplicates"] as? Int == 5)
            }
        }
    }

    @Test("POST /samples/delete deletes only uuids of its type; DELETE /samples?type= clears one type, DELETE /samples all",
          arguments: SinkBackend.allCases)
    func deletions(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                _ = try await client.post(samples: Self.samples())
                _ = try await client.post(makeSamples(4, first: 500))
                let body = #"{"type":"HKQuantityTypeIdentifierHeartRate","uuids":["\#(uuid(1).uuidString.lowercased())","\#(uuid(3).uuidString)","\#(uuid(100).uuidString)","\#(uuid(999).uuidString)"]}"#
                let reply = try await client.send(.POST, "/samples/delete", body: Array(body.utf8))
                #expect(reply.status == 200, "\(reply.text)")
                #expect(reply.text == #"{"deleted":2,"missing":2}"#)
                let heart = try await client.send(.GET, "/samples?type=HKQuantityTypeIdentifierHeartRate")
                #expect(heart.uuids == [0, 2, 4].map { uuid($0).uuidString })
                #expect(try await client.send(.GET, "/samples?type=HKQuantityTypeIdentifierDistanceWalkingRunning")
                    .json["storedCount"] as? Int == 3)
                // A deleted uuid can be stored again.
                #expect(try await client.post(samples: makeHealthSamples(2, first: 1)).json["inserted"] as? Int == 1)

                let cleared = try await client.send(.DELETE, "/samples?type=HKCategoryTypeIdentifierSleepAnalysis")
                #expect(cleared.text == #"{"message":"Deleted 2 samples","deleted":2}"#)
                #expect(try await client.send(.GET, "/samples/types").text == """
                    {"types":{"HKQuantityTypeIdentifierDistanceWalkingRunning":3,"HKQuantityTypeIdentifierHeartRate":4,\
                    "HKQuantityTypeIdentifierStepCount":4,"HKWorkoutTypeIdentifier":1}}
                    """)
                let all = try await client.send(.DELETE, "/samples")
                #expect(all.json["deleted"] as? Int == 12)
                #expect(try await client.send(.GET, "/samples/types").text == #"{"types":{}}"#)
                #expect(try await client.send(.GET, "/steps").json["storedCount"] as? Int == 0)
                #expect(try await client.post(samples: Self.samples()).json["inserted"] as? Int == 11)
            }
        }
    }

    @Test("every type survives a restart: the same objects are served again and nothing is stored twice")
    func restart() async throws {
        try await withTemporaryDirectory { dir in
            let before = try await withSink(directory: dir) { client, _ in
                _ = try await client.post(samples: Self.samples())
                _ = try await client.send(.POST, "/samples/delete",
                                          body: Array(#"{"type":"HKQuantityTypeIdentifierHeartRate","uuids":["\#(uuid(2).uuidString)"]}"#.utf8))
                return try await client.send(.GET, "/samples?type=HKQuantityTypeIdentifierHeartRate").text
                    + (try await client.send(.GET, "/samples?type=HKWorkoutTypeIdentifier").text)
            }
            try await withSink(directory: dir) { client, _ in
                let after = try await client.send(.GET, "/samples?type=HKQuantityTypeIdentifierHeartRate").text
                    + (try await client.send(.GET, "/samples?type=HKWorkoutTypeIdentifier").text)
                #expect(after == before)
                let reply = try await client.post(samples: Self.samples())
                #expect(reply.json["inserted"] as? Int == 1 && reply.json["duplicates"] as? Int == 10)
            }
        }
    }

    @Test("GET pages are capped in bytes as well as in samples, and the cursor still visits every sample once",
          arguments: SinkBackend.allCases)
    func pagesCappedInBytes(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            let big = "{\"blob\":\"" + String(repeating: "x", count: 3000) + "\"}"
            try await withSink(backend, directory: dir, configure: { $0.maxPageBytes = 11_000 }) { client, _ in
                _ = try await client.post(samples: makeHealthSamples(20, type: .workout, unit: "s", details: big))
                let first = try await client.send(.GET, "/samples?type=HKWorkoutTypeIdentifier&limit=1000")
                #expect(first.samples.count == 3)
                #expect(first.body.count < 11_000 + 1_000)
                let all = try await client.allPages("/samples?type=HKWorkoutTypeIdentifier")
                #expect(all.compactMap { $0["uuid"] as? String } == (0..<20).map { uuid($0).uuidString })
            }
        }
    }

    @Test("GET /samples without a valid type, or with a bad cursor, limit or date, is refused with 400 naming it",
          arguments: [
              ("/samples", "type"), ("/samples?type=no%20spaces", "type"),
              ("/samples?type=HKWorkoutTypeIdentifier&cursor=abc", "cursor"),
              ("/samples?type=HKWorkoutTypeIdentifier&limit=0", "limit"),
              ("/samples?type=HKWorkoutTypeIdentifier&from=2025-05-11T16", "from"),
              ("/steps?to=10000-01-01T00:00:00.000Z", "to"),
          ])
    func badQueries(path: String, field: String) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir) { client, _ in
                let reply = try await client.send(.GET, path)
                #expect(reply.status == 400, "\(reply.text)")
                #expect(reply.json["field"] as? String == field, "\(reply.text)")
            }
        }
    }
}
