import Foundation
import StepSyncCore
@testable import StepSyncSink
import Testing
import StepSyncTestSupport

/// The dashboard's panel endpoints (`GET /samples/daily`, `/sleep/nights`, `/workouts`) on every storage, with
/// known values.
@Suite("Sink panel data")
struct SinkPanelsTests {
    static func sample(_ type: SampleType, _ start: String, _ end: String? = nil, _ value: Double, unit: String,
                       details: String? = nil, index: Int) -> HealthSample {
        HealthSample(uuid: uuid(index), type: type, startMs: ISO8601Millis.parse(start)!,
                     endMs: ISO8601Millis.parse(end ?? start)!, value: value, unit: unit, sourceName: "Anna's Apple Watch",
                     sourceBundleId: "com.apple.health.8B0C", deviceName: "Apple Watch", deviceModel: "Watch6,2",
                     details: details)
    }

    /// The problems of `reply`'s body against the documented 200 answer of `GET path` (`SchemaCheck`).
    static func undocumented(_ reply: SinkTestClient.Reply, path: String) throws -> [String] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.bytes)) as? [String: Any])
        let check = SchemaCheck(document: document)
        let operation = try #require(((document["paths"] as? [String: Any])?[path] as? [String: Any])?["get"] as? [String: Any])
        let ok = check.dereferenced(try #require((operation["responses"] as? [String: Any])?["200"] as? [String: Any]))
        let schema = try #require(((ok["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"] as? [String: Any])
        return check.problems(try JSONSerialization.jsonObject(with: Data(reply.body)), schema)
    }

    /// Heart-rate readings on 2025-05-10 and 2025-05-11 (Berlin), one outside.
    static let heartRates: [HealthSample] = [
        ("2025-05-09T21:59:59.000Z", 190.0), // 23:59:59 on the 9th in Berlin
        ("2025-05-09T22:00:00.000Z", 52), ("2025-05-10T10:00:00.000Z", 75), ("2025-05-10T21:59:59.000Z", 57),
        ("2025-05-11T05:00:00.000Z", 48), ("2025-05-11T06:00:00.000Z", 51),
    ].enumerated().map { sample(.heartRate, $1.0, nil, $1.1, unit: "count/min", index: 100 + $0) }

    @Test("GET /samples/daily: per Berlin day samples, min, average, max, sum; empty days, defaults and 400s",
          arguments: SinkBackend.allCases)
    func samplesDaily(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                let empty = try await client.send(.GET, "/samples/daily?type=HKQuantityTypeIdentifierHeartRate")
                #expect(empty.text == #"{"type":"HKQuantityTypeIdentifierHeartRate","kind":"discrete","unit":null,"tz":"UTC","from":null,"to":null,"days":[]}"#)
                #expect(try await client.post(samples: Self.heartRates).status == 200)
                let reply = try await client.send(.GET,
                    "/samples/daily?type=HKQuantityTypeIdentifierHeartRate&from=2025-05-10&to=2025-05-12&tz=Europe/Berlin")
                #expect(reply.status == 200, "\(reply.text)")
                #expect(try Self.undocumented(reply, path: "/samples/daily") == [])
                #expect(try Self.undocumented(empty, path: "/samples/daily") == [])
                #expect(reply.text == #"{"type":"HKQuantityTypeIdentifierHeartRate","kind":"discrete","unit":"count/min","tz":"Europe/Berlin","from":"2025-05-10","to":"2025-05-12","days":[{"date":"2025-05-10","samples":3,"min":52,"average":61.333,"max":75,"sum":184},{"date":"2025-05-11","samples":2,"min":48,"average":49.5,"max":51,"sum":99},{"date":"2025-05-12","samples":0,"min":null,"average":null,"max":null,"sum":0}]}"#)
                // Without dates: the stored days in UTC (the first reading is on the 9th there).
                let all = try await client.send(.GET, "/samples/daily?type=HKQuantityTypeIdentifierHeartRate")
                #expect(all.json["from"] as? String == "2025-05-09")
                #expect(all.json["to"] as? String == "2025-05-11")
                #expect((all.json["days"] as? [[String: Any]])?.map { $0["samples"] as? Int } == [2, 2, 2])
                for (query, field) in [("from=2025-05-10&to=2025-05-11", "type"),
                                       ("type=HKCategoryTypeIdentifierSleepAnalysis", "type"),
                                       ("type=HKQuantityTypeIdentifierHeartRate&from=2025-05-10", "to"),
                                       ("type=HKQuantityTypeIdentifierHeartRate&from=2000-01-01&to=2025-05-10", "to"),
                                       ("type=HKQuantityTypeIdentifierHeartRate&from=2025-05-10&to=2025-05-11&tz=Mars", "tz")] {
                    let bad = try await client.send(.GET, "/samples/daily?" + query)
                    #expect(bad.status == 400, "\(query)")
                    #expect(bad.json["field"] as? String == field, "\(query): \(bad.text)")
                }
            }
        }
    }

    @Test("GET /sleep/nights: seconds per stage of the night from noon to noon", arguments: SinkBackend.allCases)
    func sleepNights(backend: SinkBackend) async throws {
        let stages: [(String, String, SleepStage)] = [
            ("2025-05-10T21:00:00.000Z", "2025-05-11T05:00:00.000Z", .inBed),
            ("2025-05-10T21:15:00.000Z", "2025-05-10T23:15:00.000Z", .asleepCore),
            ("2025-05-10T23:15:00.000Z", "2025-05-11T00:00:00.000Z", .asleepDeep),
            ("2025-05-11T00:00:00.000Z", "2025-05-11T00:05:30.000Z", .awake),
            ("2025-05-11T00:05:30.000Z", "2025-05-11T01:35:30.000Z", .asleepREM),
            ("2025-05-11T10:30:00.000Z", "2025-05-11T11:00:00.000Z", .asleepCore), // 12:30 Berlin: the 11th's night
        ]
        let samples = stages.enumerated().map {
            Self.sample(.sleepAnalysis, $1.0, $1.1, Double($1.2.rawValue), unit: "", index: 200 + $0)
        }
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                #expect(try await client.send(.GET, "/sleep/nights").text == #"{"tz":"UTC","from":null,"to":null,"nights":[]}"#)
                #expect(try await client.post(samples: samples).status == 200)
                let reply = try await client.send(.GET, "/sleep/nights?from=2025-05-10&to=2025-05-11&tz=Europe/Berlin")
                #expect(reply.status == 200, "\(reply.text)")
                #expect(try Self.undocumented(reply, path: "/sleep/nights") == [])
                #expect(reply.text == #"{"tz":"Europe/Berlin","from":"2025-05-10","to":"2025-05-11","nights":[{"date":"2025-05-10","samples":5,"inBed":28800,"asleepUnspecified":0,"awake":330,"asleepCore":7200,"asleepDeep":2700,"asleepREM":5400,"asleep":15300},{"date":"2025-05-11","samples":1,"inBed":0,"asleepUnspecified":0,"awake":0,"asleepCore":1800,"asleepDeep":0,"asleepREM":0,"asleep":1800}]}"#)
                let all = try await client.send(.GET, "/sleep/nights?tz=Europe/Berlin")
                #expect(all.json["from"] as? String == "2025-05-10")
                #expect(all.json["to"] as? String == "2025-05-11")
                let bad = try await client.send(.GET, "/sleep/nights?to=2025-05-11")
                #expect(bad.status == 400)
                #expect(bad.json["field"] as? String == "from")
            }
        }
    }

    @Test("GET /workouts: the local days' workouts in start order, metres and kcal, route or not", arguments: SinkBackend.allCases)
    func workouts(backend: SinkBackend) async throws {
        let run = Self.sample(.workout, "2025-05-11T06:00:00.000Z", "2025-05-11T06:30:00.000Z", 1800, unit: "s",
            details: #"{"activityType":"HKWorkoutActivityTypeRunning","duration":1800,"totalDistance":5.2,"totalDistanceUnit":"km","totalEnergyBurned":410.5,"totalEnergyBurnedUnit":"kcal","route":"/workout-routes/route_2025-05-11_8.00am.gpx"}"#,
            index: 301)
        let yoga = Self.sample(.workout, "2025-05-10T17:00:00.000Z", "2025-05-10T17:40:00.000Z", 2400, unit: "s",
            details: #"{"activityType":"HKWorkoutActivityTypeYoga","duration":2400,"totalEnergyBurned":120,"totalEnergyBurnedUnit":"kcal"}"#,
            index: 302)
        let outside = Self.sample(.workout, "2025-05-12T22:30:00.000Z", "2025-05-12T23:00:00.000Z", 1800, unit: "s",
            details: #"{"activityType":"HKWorkoutActivityTypeWalking","duration":1800}"#, index: 303)
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                #expect(try await client.post(samples: [run, outside, yoga]).status == 200)
                // 2025-05-12T22:30Z is the 13th in Berlin: outside 10…12.
                let reply = try await client.send(.GET, "/workouts?from=2025-05-10&to=2025-05-12&tz=Europe/Berlin")
                #expect(reply.status == 200, "\(reply.text)")
                #expect(try Self.undocumented(reply, path: "/workouts") == [])
                #expect(reply.text == #"{"tz":"Europe/Berlin","from":"2025-05-10","to":"2025-05-12","workouts":[{"uuid":"00000000-0000-4000-8000-00000000012E","start":"2025-05-10T17:00:00.000Z","end":"2025-05-10T17:40:00.000Z","activity":"HKWorkoutActivityTypeYoga","durationSeconds":2400,"distanceMeters":null,"energyKilocalories":120,"hasRoute":false,"sourceName":"Anna's Apple Watch"},{"uuid":"00000000-0000-4000-8000-00000000012D","start":"2025-05-11T06:00:00.000Z","end":"2025-05-11T06:30:00.000Z","activity":"HKWorkoutActivityTypeRunning","durationSeconds":1800,"distanceMeters":5200,"energyKilocalories":410.5,"hasRoute":true,"sourceName":"Anna's Apple Watch"}]}"#)
                let all = try await client.send(.GET, "/workouts")
                #expect((all.json["workouts"] as? [[String: Any]])?.map { $0["uuid"] as? String }
                    == [yoga, run, outside].map { $0.uuid.uuidString })
                #expect(try await client.send(.POST, "/workouts", body: []).status == 405)
            }
        }
    }
}
