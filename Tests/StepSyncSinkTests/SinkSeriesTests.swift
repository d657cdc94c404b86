import Foundation
import NIOHTTP1
import StepSyncCore
import StepSyncImport
import StepSyncPostgres
import StepSyncSink
import StepSyncTestSupport
import Testing

/// Routes and ECGs read back from the sink (`Planning/series.md`): their parts posted through `POST /samples` like any
/// sample, then `GET /workouts/{uuid}/route` (GeoJSON, GPX), `GET /electrocardiograms[?from&to]` and
/// `GET /electrocardiograms/{uuid}`, on every storage.
@Suite("the sink's routes and ECGs")
struct SinkSeriesTests {
    // MARK: - Fixtures

    /// A workout sample (the route's source and device come from it).
    static func workout(_ n: Int) -> HealthSample {
        HealthSample(uuid: uuid(0x3000 + n), type: .workout, startMs: 1_748_797_400_000, endMs: 1_748_805_000_000,
                     utcOffsetSeconds: 7200, value: 7600, unit: "s", sourceName: "Anna's Apple Watch",
                     sourceBundleId: "com.apple.health.8B0C", sourceVersion: "10.1", deviceName: "Apple Watch",
                     deviceModel: "Watch6,2")
    }

    /// A run of `count` points a second from 2025-06-01T17:05:00Z: every 97th without elevation or accuracies, every
    /// 50th at a quarter past the second.
    static func points(_ count: Int = 7_200, shift: Double = 0) -> [RoutePoint] {
        (0..<count).map { i in
            let missing = i % 97 == 0
            return RoutePoint(timeMs: 1_748_797_500_000 + Int64(i) * 1000 + (i % 50 == 0 ? 250 : 0),
                              latitude: 52.520008 + Double(i) * 1.3e-5 + shift, longitude: 13.404954 - Double(i) * 7.1e-6,
                              elevation: missing ? nil : 34.5 + Double(i % 40) / 10, speed: 2.87 + Double(i % 13) / 100,
                              course: missing ? nil : Double(i % 360) + 0.25, horizontalAccuracy: missing ? nil : 3.1,
                              verticalAccuracy: missing ? nil : 2.4)
        }
    }

    static let routeFile = "/workout-routes/route_2025-06-01_7.05pm.gpx"

    /// The route parts of `points` for `workout`, as samples.
    static func routeSamples(_ workout: HealthSample, _ points: [RoutePoint]) -> [HealthSample] {
        RoutePart.split(points, workout: workout.uuid, file: routeFile).compactMap { $0.sample(of: workout) }
    }

    /// 30 s at 512 Hz.
    static func voltages(phase: Double = 0) -> [Double] {
        (0..<15_360).map { i in (sin(Double(i) / 40 + phase) * 900 * 1000).rounded() / 1000 - 265.868 }
    }

    static func header(_ recorded: String, classification: String) -> ElectrocardiogramHeader {
        ElectrocardiogramHeader(recordedMs: ISO8601Millis.parse(recorded)!, utcOffsetSeconds: 7200,
                                classification: classification, symptoms: nil, softwareVersion: "1.70",
                                device: "Watch6,2", sampleRateHz: 512, lead: "Lead I", unit: "µV", voltageCount: 15_360)
    }

    /// One recording's parts as samples, with its uuid.
    static func ecg(_ header: ElectrocardiogramHeader, _ voltages: [Double]) -> (uuid: UUID, samples: [HealthSample]) {
        let parts = ElectrocardiogramPart.split(voltages, header: header)
        return (parts[0].recording, parts.map { $0.sample(sourceName: "ECG", sourceBundleId: "com.apple.NanoHeartRhythm") })
    }

    /// Posts `samples` a few at a time (a sync sends ≤ 16 parts a request); each must be 200.
    static func post(_ samples: [HealthSample], _ client: SinkTestClient) async throws {
        var start = 0
        while start < samples.count {
            let end = min(start + 8, samples.count)
            let reply = try await client.post(samples: Array(samples[start..<end]))
            guard reply.status == 200 else { throw TestFailure("POST /samples answered \(reply.status): \(reply.text)") }
            start = end
        }
    }

    // MARK: - Routes

    @Test("""
        a 7,200-point route posted as parts comes back as GeoJSON with every point in order (coordinates, elevations, \
        ISO-8601 UTC times, speeds, courses, accuracies), and as GPX that GPXRoute.parse reads to the same points
        """, arguments: SinkBackend.allCases)
    func routeRoundTrip(backend: SinkBackend) async throws {
        let workout = Self.workout(1)
        let points = Self.points()
        let samples = Self.routeSamples(workout, points)
        #expect(samples.count >= 8)
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                // Another workout's route and some heart rate in between: found by uuid, not by position.
                try await Self.post(Self.routeSamples(Self.workout(2), Self.points(300, shift: 1)), client)
                _ = try await client.post(samples: makeHealthSamples(20))
                try await Self.post(samples.reversed(), client)

                let reply = try await client.send(.GET, "/workouts/\(workout.uuid.uuidString)/route")
                #expect(reply.status == 200, "\(reply.text.prefix(300))")
                #expect(reply.headers["content-type"] == "application/geo+json")
                // JSONDecoder reads the numbers exactly (JSONSerialization on Linux can be an ulp off).
                let feature = try JSONDecoder().decode(RouteFeatureBody.self, from: Data(reply.body))
                #expect(feature.type == "Feature" && feature.geometry.type == "LineString")
                #expect(feature.geometry.coordinates.count == 7_200)
                #expect(feature.geometry.coordinates
                        == points.map { [$0.longitude, $0.latitude] + ($0.elevation.map { [$0] } ?? []) })
                let properties = feature.properties
                #expect(properties.workout == workout.uuid.uuidString && properties.file == Self.routeFile)
                #expect(properties.points == 7_200)
                #expect(properties.times == points.map { ISO8601Millis.format($0.timeMs) })
                #expect(properties.times[0] == "2025-06-01T17:05:00.250Z" && properties.times[1] == "2025-06-01T17:05:01.000Z")
                #expect(properties.speeds == points.map(\.speed) && properties.courses == points.map(\.course))
                #expect(properties.horizontalAccuracies == points.map(\.horizontalAccuracy))
                #expect(properties.verticalAccuracies == points.map(\.verticalAccuracy))
                #expect(properties.complete && properties.missingParts == [])

                let gpx = try await client.send(.GET, "/workouts/\(workout.uuid.uuidString.lowercased())/route?format=gpx")
                #expect(gpx.status == 200)
                #expect(gpx.headers["content-type"] == "application/gpx+xml")
                let parsed = try GPXRoute.parse(gpx.body)
                #expect(parsed.name == "route_2025-06-01_7.05pm")
                #expect(parsed.points.map { RoutePoint(timeMs: $0.timeMs, latitude: $0.latitude, longitude: $0.longitude,
                                                       elevation: $0.elevation, speed: $0.speed, course: $0.course,
                                                       horizontalAccuracy: $0.horizontalAccuracy,
                                                       verticalAccuracy: $0.verticalAccuracy) } == points)
                // Explicit geojson is the default's answer.
                #expect(try await client.send(.GET, "/workouts/\(workout.uuid.uuidString)/route?format=geojson").body
                        == reply.body)
            }
        }
    }

    @Test("a route whose part has not arrived is complete:false with missingParts, and whole once it has",
          arguments: SinkBackend.allCases)
    func routeMissingPart(backend: SinkBackend) async throws {
        let workout = Self.workout(3)
        let samples = Self.routeSamples(workout, Self.points())
        let parts = try samples.map { try RoutePart(details: $0.details!) }
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                let path = "/workouts/\(workout.uuid.uuidString)/route"
                // Only parts 1… (no part 0): no route yet.
                try await Self.post(Array(samples.dropFirst()).filter { $0.uuid != samples[2].uuid }, client)
                let none = try await client.send(.GET, path)
                #expect(none.status == 404 && none.json["error"] as? String == "not_found", "\(none.text)")
                try await Self.post([samples[0]], client)
                let partial = try await client.send(.GET, path).json
                let properties = try #require(partial["properties"] as? [String: Any])
                #expect(properties["complete"] as? Bool == false)
                #expect(properties["missingParts"] as? [Int] == [2])
                #expect(properties["points"] as? Int == 7_200 - parts[2].points.count)
                #expect((properties["times"] as? [String])?.count == 7_200 - parts[2].points.count)
                try await Self.post([samples[2]], client)
                let whole = try #require(try await client.send(.GET, path).json["properties"] as? [String: Any])
                #expect(whole["complete"] as? Bool == true && whole["points"] as? Int == 7_200)
                // Deleting the workout's route (as the sync does when the workout goes) makes it 404 again.
                let uuids = samples.map { "\"\($0.uuid.uuidString)\"" }.joined(separator: ",")
                let deleted = try await client.send(.POST, "/samples/delete", body: Array(
                    #"{"type":"HKWorkoutRouteTypeIdentifier","uuids":[\#(uuids)]}"#.utf8))
                #expect(deleted.json["deleted"] as? Int == samples.count)
                #expect(try await client.send(.GET, path).status == 404)
            }
        }
    }

    @Test("""
        bad requests name their parameter (400), unknown uuids are 404 not_found, other methods 405 with Allow, \
        and without the token 401
        """, arguments: SinkBackend.allCases)
    func refusals(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir, token: "t0ken") { client, _ in
                let workout = Self.workout(4)
                try await Self.post(Self.routeSamples(workout, Self.points(100)), client)
                let route = "/workouts/\(workout.uuid.uuidString)/route"
                for (target, field) in [("/workouts/not-a-uuid/route", "uuid"), ("/electrocardiograms/12345", "uuid"),
                                        (route + "?format=kml", "format"), ("/electrocardiograms?from=yesterday", "from"),
                                        ("/electrocardiograms?from=2025-06-02T00:00:00Z&to=2025-06-01T00:00:00Z", "to")] {
                    let reply = try await client.send(.GET, target)
                    #expect(reply.status == 400, "\(target): \(reply.status)")
                    #expect(reply.json["field"] as? String == field, "\(target): \(reply.text)")
                }
                for target in ["/workouts/\(UUID().uuidString)/route", "/electrocardiograms/\(UUID().uuidString)",
                               // A route part's uuid is no recording; a workout's uuid is no ECG.
                               "/electrocardiograms/\(workout.uuid.uuidString)"] {
                    let reply = try await client.send(.GET, target)
                    #expect(reply.status == 404, "\(target)")
                    #expect(reply.json["error"] as? String == "not_found" && reply.json["message"] is String)
                }
                for target in [route, "/electrocardiograms", "/electrocardiograms/\(UUID().uuidString)"] {
                    for method in [HTTPMethod.POST, .DELETE, .PUT, .HEAD] {
                        let reply = try await client.send(method, target, body: method == .HEAD ? nil : [])
                        #expect(reply.status == 405, "\(method) \(target)")
                        #expect(reply.headers["allow"] == "GET", "\(method) \(target)")
                    }
                    var anonymous = client
                    anonymous.token = backend == .jsonl ? nil : "wrong"
                    #expect(try await anonymous.send(.GET, target).status == 401)
                }
                // Neighbours of the parameterised paths are not endpoints.
                for target in ["/workouts/\(workout.uuid.uuidString)/route/x", "/workouts/\(workout.uuid.uuidString)",
                               "/electrocardiograms/\(UUID().uuidString)/x", "/workouts//route"] {
                    let status = try await client.send(.GET, target).status
                    #expect(status == (target == "/workouts//route" ? 400 : 404), "\(target)")
                }
            }
        }
    }

    // MARK: - ECGs

    @Test("""
        ECGs posted as parts: the list in start order with their metadata, from/to filter it, and one recording \
        answers its 15,360 voltages; a missing part is complete:false
        """, arguments: SinkBackend.allCases)
    func electrocardiograms(backend: SinkBackend) async throws {
        let first = Self.ecg(Self.header("2025-06-05T08:07:00.000Z", classification: "Sinusrhythmus"), Self.voltages())
        let second = Self.ecg(Self.header("2025-06-06T19:30:00.000Z", classification: "Sinus Rhythm"),
                              Self.voltages(phase: 1))
        let third = Self.ecg(Self.header("2025-07-01T06:00:00.000Z", classification: "Vorhofflimmern"),
                             Self.voltages(phase: 2))
        #expect(first.samples.count >= 2)
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                #expect(try await client.send(.GET, "/electrocardiograms").json["electrocardiograms"] as? [Any] != nil)
                // Arrival out of start order; the third recording's part 1 not yet.
                try await Self.post(third.samples.enumerated().filter { $0.offset != 1 }.map(\.element), client)
                try await Self.post(second.samples + first.samples, client)

                let list = try await client.send(.GET, "/electrocardiograms")
                #expect(list.status == 200 && list.headers["content-type"] == "application/json")
                let items = try #require(list.json["electrocardiograms"] as? [[String: Any]])
                #expect(items.map { $0["uuid"] as? String } == [first.uuid, second.uuid, third.uuid].map(\.uuidString))
                #expect(items.map { $0["classification"] as? String } == ["Sinusrhythmus", "Sinus Rhythm", "Vorhofflimmern"])
                #expect(items.map { $0["start"] as? String }
                        == ["2025-06-05T08:07:00.000Z", "2025-06-06T19:30:00.000Z", "2025-07-01T06:00:00.000Z"])
                #expect(items[0]["end"] as? String == "2025-06-05T08:07:30.000Z")
                #expect(items.allSatisfy {
                    $0["samples"] as? Int == 15_360 && $0["sampleRateHz"] as? Double == 512
                        && $0["device"] as? String == "Watch6,2" && $0["lead"] as? String == "Lead I"
                        && $0["unit"] as? String == "µV" && $0["softwareVersion"] as? String == "1.70"
                        && $0["utcOffsetSeconds"] as? Int == 7200 && $0["symptoms"] is NSNull && $0["microvolts"] == nil
                })

                func listed(_ query: String) async throws -> [String] {
                    let reply = try await client.send(.GET, "/electrocardiograms?" + query)
                    return (reply.json["electrocardiograms"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
                }
                #expect(try await listed("from=2025-06-06T00:00:00.000Z") == [second.uuid, third.uuid].map(\.uuidString))
                #expect(try await listed("to=2025-06-06T19:30:00.000Z") == [first.uuid.uuidString])
                #expect(try await listed("from=2025-06-05T08:07:00.001Z&to=2025-07-01T06:00:00.001Z")
                        == [second.uuid, third.uuid].map(\.uuidString))
                #expect(try await listed("from=2026-01-01T00:00:00.000Z") == [])

                let one = try await client.send(.GET, "/electrocardiograms/\(first.uuid.uuidString)")
                #expect(one.status == 200 && one.headers["content-type"] == "application/json")
                #expect(try JSONDecoder().decode(MicrovoltsBody.self, from: Data(one.body)).microvolts == Self.voltages())
                #expect(one.json["complete"] as? Bool == true && one.json["missingParts"] as? [Int] == [])
                #expect(one.json["classification"] as? String == "Sinusrhythmus" && one.json["samples"] as? Int == 15_360)
                #expect(one.json["start"] as? String == "2025-06-05T08:07:00.000Z")

                let partialReply = try await client.send(.GET, "/electrocardiograms/\(third.uuid.uuidString.lowercased())")
                let partial = partialReply.json
                let thirdParts = try third.samples.map { try ElectrocardiogramPart(details: $0.details!) }
                #expect(partial["complete"] as? Bool == false && partial["missingParts"] as? [Int] == [1])
                #expect(try JSONDecoder().decode(MicrovoltsBody.self, from: Data(partialReply.body)).microvolts
                        == thirdParts.enumerated().filter { $0.offset != 1 }.flatMap(\.element.microvolts))
            }
        }
    }

    // MARK: - Tenants and strangers

    @Test("PostgreSQL: another client of the same sink gets 404 for a route and an ECG, and an empty list",
          .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"))
    func otherClientSeesNothing() async throws {
        let workout = Self.workout(5)
        let ecg = Self.ecg(Self.header("2025-06-05T08:07:00.000Z", classification: "Sinus Rhythm"), Self.voltages())
        try await withTemporaryDirectory { dir in
            try await withSink(.postgres, directory: dir) { client, _ in
                try await Self.post(Self.routeSamples(workout, Self.points(500)) + ecg.samples, client)
                #expect(try await client.send(.GET, "/workouts/\(workout.uuid.uuidString)/route").status == 200)
                #expect(try await client.send(.GET, "/electrocardiograms/\(ecg.uuid.uuidString)").status == 200)
                var other = client
                other.token = try await addPostgresClient(directory: dir, name: "ben")
                #expect(try await other.send(.GET, "/workouts/\(workout.uuid.uuidString)/route").status == 404)
                #expect(try await other.send(.GET, "/electrocardiograms/\(ecg.uuid.uuidString)").status == 404)
                let list = try await other.send(.GET, "/electrocardiograms")
                #expect(list.status == 200 && (list.json["electrocardiograms"] as? [Any])?.isEmpty == true)
                // The same parts posted by the other client are its own route.
                try await Self.post(Self.routeSamples(workout, Self.points(40)), other)
                let own = try await other.send(.GET, "/workouts/\(workout.uuid.uuidString)/route").json
                #expect((own["properties"] as? [String: Any])?["points"] as? Int == 40)
                let first = try await client.send(.GET, "/workouts/\(workout.uuid.uuidString)/route").json
                #expect((first["properties"] as? [String: Any])?["points"] as? Int == 500)
            }
        }
    }

    @Test("a stranger's JSON reader (Python's json module) reads the GeoJSON: a Feature of 7,200 positions")
    func strangerReadsGeoJSON() async throws {
        let python = "/usr/bin/python3"
        try #require(FileManager.default.isExecutableFile(atPath: python))
        let workout = Self.workout(6)
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir) { client, _ in
                try await Self.post(Self.routeSamples(workout, Self.points()), client)
                let reply = try await client.send(.GET, "/workouts/\(workout.uuid.uuidString)/route")
                let file = dir + "/route.geojson"
                try Data(reply.body).write(to: URL(fileURLWithPath: file))
                let script = """
                    import json, sys
                    f = json.load(open(sys.argv[1]))
                    c = f["geometry"]["coordinates"]
                    p = f["properties"]
                    assert f["type"] == "Feature" and f["geometry"]["type"] == "LineString"
                    assert all(len(x) in (2, 3) and -180 <= x[0] <= 180 and -90 <= x[1] <= 90 for x in c)
                    assert len(p["times"]) == len(c) == p["points"]
                    print(len(c), c[1][0], c[1][1], c[1][2], p["times"][1], p["speeds"][1], p["complete"])
                    """
                let output = dir + "/python.out"
                let process = try ChildProcess(python, ["-c", script, file], stdout: output)
                while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
                #expect(process.terminationStatus == 0, "\(String(decoding: fileBytes(output), as: UTF8.self))")
                let p = Self.points()[1]
                #expect(String(decoding: fileBytes(output), as: UTF8.self)
                        == "7200 \(p.longitude) \(p.latitude) \(p.elevation!) 2025-06-01T17:05:01.000Z \(p.speed!) True\n")
            }
        }
    }

    // MARK: - Storage contract

    @Test("""
        SampleStorage.samples(_:type:for:): the live samples of the type among the uuids, in the order asked, each once; \
        absent, deleted and other types' uuids left out
        """, arguments: SinkBackend.allCases)
    func lookupByUUID(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withStorageSink(backend, directory: dir) { client, storage, identity in
                let heartRate = makeHealthSamples(30)
                let route = Self.routeSamples(Self.workout(7), Self.points(2_000))
                _ = try await client.post(samples: heartRate)
                try await Self.post(route, client)
                let asked = [heartRate[17].uuid, heartRate[3].uuid, UUID(), heartRate[17].uuid, route[0].uuid,
                             heartRate[29].uuid]
                let found = try await storage.samples(asked, type: .heartRate, for: identity)
                #expect(found == [heartRate[17], heartRate[3], heartRate[29]])
                // As stored: `POST /samples` carries no UTC offset, the rest comes back field for field.
                let sentRoute = route.map { sample -> HealthSample in
                    var sample = sample
                    sample.utcOffsetSeconds = nil
                    return sample
                }
                #expect(try await storage.samples(route.map(\.uuid).reversed(), type: .workoutRoute, for: identity)
                        == sentRoute.reversed())
                #expect(try await storage.samples([], type: .heartRate, for: identity).isEmpty)
                #expect(try await storage.samples([heartRate[0].uuid], type: .stepCount, for: identity).isEmpty)
                #expect(try await storage.samples([heartRate[0].uuid], type: SampleType("HKQuantityTypeIdentifierNone"),
                                                  for: identity).isEmpty)
                _ = try await storage.delete([heartRate[3].uuid], type: .heartRate, for: identity)
                #expect(try await storage.samples(asked, type: .heartRate, for: identity) == [heartRate[17], heartRate[29]])
            }
        }
    }
}
