import Foundation
import StepSyncCore
import StepSyncTestSupport
import Testing

/// `POST /ingest/health-auto-export` on every storage: real-shaped pushes of the iOS app, then what the sink answers
/// about them (`/samples/types`, `/steps/daily` in both priority orders, `/samples/daily`, `/sleep/nights`,
/// `/workouts`).
@Suite("Sink: Health Auto Export ingest")
struct SinkHealthAutoExportTests {
    static let path = "/ingest/health-auto-export"
    static let minutes = [("automation-aggregation", "minutes"), ("automation-name", "stepsync"),
                          ("session-id", "A1B2")]

    /// Minute buckets on 2025-06-02 (Berlin, +0200): the Watch and the iPhone both counted 08:00 (120 and 100
    /// steps), the iPhone alone 08:05 (50); heart rate in two minutes; summarized sleep; a v2 workout; a bad point.
    static func body(watchSteps: Int = 120) -> [UInt8] {
        Array("""
            {"data":{"metrics":[
              {"name":"step_count","units":"count","data":[
                {"date":"2025-06-02 08:00:00 +0200","qty":\(watchSteps),"source":"Anna\u{2019}s\u{00A0}Apple Watch"},
                {"date":"2025-06-02 8:00:00\u{202F}AM +0200","qty":100,"source":"Anna\u{2019}s iPhone"},
                {"date":"2025-06-02 8:05:00\u{202F}AM +0200","qty":50,"source":"Anna\u{2019}s iPhone"},
                {"date":"2025-06-02 08:06:00 +0200","qty":-4,"source":"Anna\u{2019}s iPhone"}]},
              {"name":"heart_rate","units":"bpm","data":[
                {"date":"2025-06-02 08:00:00 +0200","Min":58,"Avg":64,"Max":71,"source":"Anna\u{2019}s Apple Watch"},
                {"date":"2025-06-02 21:00:00 +0200","Min":49,"Avg":55,"Max":60,"source":"Anna\u{2019}s Apple Watch"}]},
              {"name":"sleep_analysis","units":"hr","data":[
                {"date":"2025-06-02","sleepStart":"2025-06-01 23:10:00 +0200","sleepEnd":"2025-06-02 06:10:00 +0200",
                 "inBedStart":"2025-06-01 23:00:00 +0200","inBedEnd":"2025-06-02 06:30:00 +0200",
                 "core":3.5,"deep":1.25,"rem":1.5,"awake":0.25,"asleep":6.25,"inBed":7}]}],
             "workouts":[{"id":"0D9D4A3E-2C4B-4F51-9C3A-6A1B2C3D4E5F","name":"Outdoor Run",
               "start":"2025-06-02 07:00:00 +0200","end":"2025-06-02 07:30:00 +0200","duration":1800,
               "distance":{"qty":5,"units":"km"},"activeEnergyBurned":{"qty":310,"units":"kcal"}}],
             "stateOfMind":[{}],"medications":[{},{}]}}
            """.utf8)
    }

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    static func post(_ body: [UInt8], port: Int, token: String?,
                     headers: [(String, String)] = minutes) async throws -> (status: Int, json: [String: Any]) {
        let reply = try await SinkHarness.request("POST", path, port: port, token: token, body: body, headers: headers)
        return (reply.status, (try? JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any]) ?? [:])
    }

    static func get(_ path: String, port: Int, token: String?) async throws -> [String: Any] {
        let reply = try await SinkHarness.request("GET", path, port: port, token: token)
        #expect(reply.status == 200, "\(path): \(String(decoding: reply.body, as: UTF8.self))")
        return try object(reply.body)
    }

    /// Samples per type (`GET /samples/types`).
    static func typeCounts(port: Int, token: String?) async throws -> [String: Int] {
        try await get("/samples/types", port: port, token: token)["types"] as? [String: Int] ?? [:]
    }

    /// The uuids of `type`'s samples, one page (`GET /samples?type=`), in order; repeats kept.
    static func uuids(_ type: String, port: Int, token: String?) async throws -> [String] {
        let page = try await get("/samples?type=\(type)&limit=10000", port: port, token: token)
        return (page["samples"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
    }

    /// Runs `body` with a sink of `backend` in a temporary directory: its port and the client's token.
    static func withHAESink(_ backend: SinkBackend, _ body: @Sendable (_ port: Int, _ token: String?) async throws -> Void)
        async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in try await body(client.port, client.token) }
        }
    }

    static func dailySteps(port: Int, token: String?, priority: String) async throws -> [Int] {
        let answer = try await get("/steps/daily?from=2025-06-02&to=2025-06-02&tz=Europe/Berlin&priority=\(priority)",
                                   port: port, token: token)
        return (answer["days"] as? [[String: Any]] ?? []).compactMap { $0["steps"] as? Int }
    }

    @Test("A push is stored under HealthKit types; the answer counts types, skipped points and arrays not stored",
          arguments: SinkBackend.allCases)
    func stored(backend: SinkBackend) async throws {
        try await Self.withHAESink(backend) { port, token in
            let first = try await Self.post(Self.body(), port: port, token: token)
            #expect(first.status == 200, "\(first.json)")
            #expect(first.json["inserted"] as? Int == 15)
            #expect(first.json["replaced"] as? Int == 0)
            #expect(first.json["duplicates"] as? Int == 0)
            #expect(first.json["skipped"] as? [String: Int] == ["negativeValue": 1])
            #expect(first.json["notStored"] as? [String: Int] == ["stateOfMind": 1, "medications": 2])
            #expect(first.json["types"] as? [String: Int] == [
                "HKQuantityTypeIdentifierStepCount": 3, "HKQuantityTypeIdentifierHeartRate": 6,
                "HKCategoryTypeIdentifierSleepAnalysis": 5, "HKWorkoutTypeIdentifier": 1])
            let skipped = first.json["skippedPoints"] as? [[String: Any]] ?? []
            #expect(skipped.map { $0["metric"] as? String } == ["step_count"])
            #expect(skipped.map { $0["index"] as? Int } == [3])
            #expect(try await Self.typeCounts(port: port, token: token).values.reduce(0, +) == 15)

            // An iPhone's and a Watch's minute count once, the first device in the priority winning.
            #expect(try await Self.dailySteps(port: port, token: token, priority: "Apple%20Watch,iPhone") == [170])
            #expect(try await Self.dailySteps(port: port, token: token, priority: "iPhone,Apple%20Watch") == [150])

            let band = try await Self.get(
                "/samples/daily?type=HKQuantityTypeIdentifierHeartRate&from=2025-06-02&to=2025-06-02&tz=Europe/Berlin",
                port: port, token: token)
            let day = try #require((band["days"] as? [[String: Any]])?.first)
            #expect((day["min"] as? NSNumber)?.doubleValue == 49)
            #expect((day["max"] as? NSNumber)?.doubleValue == 71)

            let nights = try await Self.get("/sleep/nights?from=2025-06-01&to=2025-06-01&tz=Europe/Berlin",
                                            port: port, token: token)
            let night = try #require((nights["nights"] as? [[String: Any]])?.first)
            let seconds = ["asleepCore", "asleepDeep", "asleepREM", "awake", "inBed"].map {
                (night[$0] as? NSNumber)?.doubleValue
            }
            #expect(seconds == [12_600, 4_500, 5_400, 900, 25_200])

            let workouts = try await Self.get("/workouts?from=2025-06-02&to=2025-06-02&tz=Europe/Berlin",
                                              port: port, token: token)
            let workout = try #require((workouts["workouts"] as? [[String: Any]])?.first)
            #expect(workout["uuid"] as? String == "0D9D4A3E-2C4B-4F51-9C3A-6A1B2C3D4E5F")
            #expect((workout["distanceMeters"] as? NSNumber)?.doubleValue == 5000)
            #expect(workout["activity"] as? String == "HKWorkoutActivityTypeOutdoorRun")
        }
    }

    @Test("The same push twice inserts nothing; a grown bucket replaces its sample, never a second one",
          arguments: SinkBackend.allCases)
    func exactlyOnce(backend: SinkBackend) async throws {
        try await Self.withHAESink(backend) { port, token in
            #expect(try await Self.post(Self.body(), port: port, token: token).status == 200)
            let again = try await Self.post(Self.body(), port: port, token: token)
            #expect(again.json["inserted"] as? Int == 0)
            #expect(again.json["replaced"] as? Int == 0)
            #expect(again.json["duplicates"] as? Int == 15)
            let grown = try await Self.post(Self.body(watchSteps: 180), port: port, token: token)
            #expect(grown.json["inserted"] as? Int == 0)
            #expect(grown.json["replaced"] as? Int == 1)
            #expect(grown.json["duplicates"] as? Int == 14)
            let stored = try await Self.uuids("HKQuantityTypeIdentifierStepCount", port: port, token: token)
            #expect(stored.count == 3)
            #expect(Set(stored).count == 3)
            #expect(try await Self.dailySteps(port: port, token: token, priority: "Apple%20Watch,iPhone") == [230])
            #expect(try await Self.typeCounts(port: port, token: token).values.reduce(0, +) == 15)
        }
    }

    @Test("""
        A crash between a replace's two durable steps (the grown sample deleted, not yet inserted) leaves it absent, \
        and the app's retry after the restart ends exact: one sample, the new sum
        """, arguments: SinkBackend.allCases)
    func retryAfterCrashEndsExact(backend: SinkBackend) async throws {
        let watchMinute = HAEPointIdentity.uuid(
            type: .stepCount, source: "Anna\u{2019}s\u{00A0}Apple Watch",
            startMs: ISO8601Millis.parse(Substring("2025-06-02T06:00:00.000Z"))!, lengthMs: 60_000)
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                #expect(try await Self.post(Self.body(), port: client.port, token: client.token).status == 200)
                // The state the first step of a replace leaves on disk when the sink dies right after it.
                let delete = Array(#"{"type":"HKQuantityTypeIdentifierStepCount","uuids":["\#(watchMinute.uuidString)"]}"#.utf8)
                let deleted = try await SinkHarness.request("POST", "/samples/delete", port: client.port,
                                                            token: client.token, body: delete)
                #expect(deleted.status == 200)
                #expect(try Self.object(deleted.body)["deleted"] as? Int == 1)
            }
            // The sink restarted on the same data; the app retries the grown push.
            try await withSink(backend, directory: dir) { client, _ in
                let (port, token) = (client.port, client.token)
                let retry = try await Self.post(Self.body(watchSteps: 180), port: port, token: token)
                #expect(retry.json["inserted"] as? Int == 1)
                #expect(retry.json["replaced"] as? Int == 0)
                #expect(retry.json["duplicates"] as? Int == 14)
                let stored = try await Self.uuids("HKQuantityTypeIdentifierStepCount", port: port, token: token)
                #expect(stored.count == 3)
                #expect(stored.filter { $0 == watchMinute.uuidString }.count == 1)
                #expect(try await Self.dailySteps(port: port, token: token, priority: "Apple%20Watch,iPhone") == [230])
            }
        }
    }

    @Test("A body not JSON or not the app's shape is 400 naming the field, nothing stored; a bad header too",
          arguments: SinkBackend.allCases)
    func refused(backend: SinkBackend) async throws {
        try await Self.withHAESink(backend) { port, token in
            for (body, field) in [("{\"data\":{\"metrics\":[", "body"), ("{\"metrics\":[]}", "data"),
                                  ("{\"data\":{\"metrics\":[{\"name\":\"step_count\",\"data\":[{\"date\":\"2025-06-02 08:00:00 +0200\",\"qty\":1}]},{\"units\":\"count\",\"data\":[]}]}}",
                                   "data.metrics[1].name")] {
                let reply = try await Self.post(Array(body.utf8), port: port, token: token)
                #expect(reply.status == 400)
                #expect(reply.json["field"] as? String == field, "\(reply.json)")
            }
            let header = try await Self.post(Self.body(), port: port, token: token,
                                             headers: [("automation-aggregation", "fortnights")])
            #expect(header.status == 400)
            #expect(header.json["field"] as? String == "automation-aggregation")
            #expect(try await Self.typeCounts(port: port, token: token).isEmpty)
        }
    }

    /// A v2 workout with `id` and a `latitude`/`longitude` route, and a v1 workout (no `id`) with a `lat`/`lon`
    /// route with one bad point.
    static let routes = Array("""
        {"data":{"workouts":[
          {"id":"5B2E9C1A-7D34-4E8F-A1B2-C3D4E5F60718","name":"Outdoor Cycle","start":"2025-06-03 07:00:00 +0200",
           "end":"2025-06-03 07:02:00 +0200","duration":120,"distance":{"qty":0.5,"units":"mi"},
           "route":[{"latitude":52.52,"longitude":13.40,"altitude":34.5,"course":90,"speed":7.5,"horizontalAccuracy":3,
                     "verticalAccuracy":2,"timestamp":"2025-06-03 07:00:00 +0200"},
                    {"latitude":52.521,"longitude":13.401,"altitude":35,"course":91,"speed":7.4,
                     "timestamp":"2025-06-03 07:01:00 +0200"},
                    {"latitude":52.522,"longitude":13.402,"timestamp":"2025-06-03 7:02:00\u{202F}AM +0200"}]},
          {"name":"Walking","start":"2025-06-03 6:00:00\u{202F}PM +0200","end":"2025-06-03 6:30:00\u{202F}PM +0200",
           "route":[{"lat":48.1,"lon":11.5,"altitude":520,"timestamp":"2025-06-03 6:00:00\u{202F}PM +0200"},
                    {"lat":95,"lon":11.5,"timestamp":"2025-06-03 6:01:00\u{202F}PM +0200"},
                    {"lat":48.2,"lon":11.6,"altitude":521,"timestamp":"2025-06-03 6:02:00\u{202F}PM +0200"}]}]}}
        """.utf8)

    @Test("Workouts v2 (id) and v1 (derived) with routes: /workouts lists both, /workouts/{uuid}/route serves each",
          arguments: SinkBackend.allCases)
    func workoutRoutes(backend: SinkBackend) async throws {
        try await Self.withHAESink(backend) { port, token in
            let reply = try await Self.post(Self.routes, port: port, token: token)
            #expect(reply.status == 200, "\(reply.json)")
            #expect(reply.json["types"] as? [String: Int] == ["HKWorkoutTypeIdentifier": 2,
                                                              "HKWorkoutRouteTypeIdentifier": 2])
            #expect(reply.json["skipped"] as? [String: Int] == ["badRoutePoint": 1])
            let list = try await Self.get("/workouts?from=2025-06-03&to=2025-06-03&tz=Europe/Berlin",
                                          port: port, token: token)
            let workouts = list["workouts"] as? [[String: Any]] ?? []
            #expect(workouts.map { $0["hasRoute"] as? Bool } == [true, true])
            #expect(workouts.first?["uuid"] as? String == "5B2E9C1A-7D34-4E8F-A1B2-C3D4E5F60718")
            #expect(workouts.map { $0["activity"] as? String } == ["HKWorkoutActivityTypeOutdoorCycle",
                                                                  "HKWorkoutActivityTypeWalking"])
            for (workout, expected) in zip(workouts, [[[13.40, 52.52, 34.5], [13.401, 52.521, 35], [13.402, 52.522]],
                                                      [[11.5, 48.1, 520], [11.6, 48.2, 521]]]) {
                let uuid = try #require(workout["uuid"] as? String)
                let route = try await Self.get("/workouts/\(uuid)/route", port: port, token: token)
                let geometry = try #require(route["geometry"] as? [String: Any])
                let coordinates = (geometry["coordinates"] as? [[NSNumber]])?.map { $0.map(\.doubleValue) }
                #expect(coordinates == expected)
            }
        }
    }

    @Test("Another client sees nothing of a push, and its own push of the same body is its own (PostgreSQL)",
          arguments: SinkBackend.allCases.filter { $0 == .postgres })
    func otherClient(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                let (port, anna) = (client.port, client.token)
                let ben = try await addPostgresClient(directory: dir, name: "ben")
                #expect(try await Self.post(Self.body(), port: port, token: anna).json["inserted"] as? Int == 15)
                #expect(try await Self.typeCounts(port: port, token: ben).isEmpty)
                #expect(try await Self.dailySteps(port: port, token: ben, priority: "Apple%20Watch,iPhone") == [0])
                let workouts = try await Self.get("/workouts?from=2025-06-02&to=2025-06-02", port: port, token: ben)
                #expect((workouts["workouts"] as? [Any])?.isEmpty == true)
                let own = try await Self.post(Self.body(watchSteps: 10), port: port, token: ben)
                #expect(own.json["inserted"] as? Int == 15)
                #expect(own.json["replaced"] as? Int == 0)
                #expect(try await Self.dailySteps(port: port, token: anna, priority: "Apple%20Watch,iPhone") == [170])
                #expect(try await Self.dailySteps(port: port, token: ben, priority: "Apple%20Watch,iPhone") == [60])
            }
        }
    }

    @Test("A body over maxHAEBytes (serve --max-hae-bytes) is 413 and nothing is stored; other routes keep their limit",
          arguments: SinkBackend.allCases)
    func tooLarge(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir, configure: { $0.maxHAEBytes = 1_000 }) { client, _ in
                let body = Self.body()
                #expect(body.count > 1_000)
                let reply = try await Self.post(body, port: client.port, token: client.token)
                #expect(reply.status == 413)
                #expect(try await Self.typeCounts(port: client.port, token: client.token).isEmpty)
            }
        }
    }

    @Test("""
        A push of more samples than the sink reads at once is stored whole, in batches; again, it is all duplicates; \
        a fault at its very end stores nothing of it
        """, arguments: SinkBackend.allCases)
    func batches(backend: SinkBackend) async throws {
        try await Self.withHAESink(backend) { port, token in
            let faulty = HAETestBodies.heartRateMinutes(10_000, tail: ",{\"units\":\"count\",\"data\":[]}")
            let refused = try await Self.post(faulty, port: port, token: token)
            #expect(refused.status == 400)
            #expect(refused.json["field"] as? String == "data.metrics[1].name", "\(refused.json)")
            #expect(try await Self.typeCounts(port: port, token: token).isEmpty)

            let body = HAETestBodies.heartRateMinutes(10_000)
            let first = try await Self.post(body, port: port, token: token)
            #expect(first.status == 200, "\(first.json)")
            #expect(first.json["inserted"] as? Int == 30_000)
            #expect(first.json["types"] as? [String: Int] == ["HKQuantityTypeIdentifierHeartRate": 30_000])
            #expect(try await Self.typeCounts(port: port, token: token) == ["HKQuantityTypeIdentifierHeartRate": 30_000])
            let again = try await Self.post(body, port: port, token: token)
            #expect(again.json["inserted"] as? Int == 0)
            #expect(again.json["duplicates"] as? Int == 30_000)
            let daily = try await Self.get("/samples/daily?type=HKQuantityTypeIdentifierHeartRate&from=2025-06-02&to=2025-06-08&tz=UTC",
                                           port: port, token: token)
            let days = daily["days"] as? [[String: Any]] ?? []
            #expect(days.compactMap { ($0["min"] as? NSNumber)?.doubleValue } == [50, 50, 50, 50, 50, 50, 50])
            #expect(days.compactMap { ($0["max"] as? NSNumber)?.doubleValue } == [102, 102, 102, 102, 102, 102, 102])
        }
    }

    @Test("A body of more sample types than the sink's --max-types is refused whole before any batch is stored",
          arguments: SinkBackend.allCases)
    func tooManyTypes(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir, configure: { $0.maxTypes = 3 }) { client, _ in
                func body(_ names: [String]) -> [UInt8] {
                    let metrics = names.map {
                        "{\"name\":\"\($0)\",\"units\":\"count\",\"data\":[{\"date\":\"2025-06-02 08:00:00 +0200\",\"qty\":1}]}"
                    }
                    return Array("{\"data\":{\"metrics\":[\(metrics.joined(separator: ","))]}}".utf8)
                }
                let four = try await Self.post(body(["step_count", "one", "two", "three"]), port: client.port,
                                               token: client.token)
                #expect(four.status == 400)
                #expect(four.json["field"] as? String == "data.metrics")
                #expect((four.json["message"] as? String)?.contains("4 sample types") == true, "\(four.json)")
                #expect(try await Self.typeCounts(port: client.port, token: client.token).isEmpty)
                let three = try await Self.post(body(["step_count", "one", "two"]), port: client.port, token: client.token)
                #expect(three.status == 200, "\(three.json)")
                #expect(three.json["inserted"] as? Int == 3)
            }
        }
    }

    @Test("Without the token the push is 401 and nothing is stored", arguments: SinkBackend.allCases)
    func unauthorized(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir, token: "secret-token") { client, _ in
                let reply = try await Self.post(Self.body(), port: client.port, token: nil)
                #expect(reply.status == 401)
                let wrong = try await Self.post(Self.body(), port: client.port, token: "wrong")
                #expect(wrong.status == 401)
                #expect(try await Self.typeCounts(port: client.port, token: client.token).isEmpty)
            }
        }
    }
}
