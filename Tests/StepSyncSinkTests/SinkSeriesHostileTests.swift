import Foundation
import StepSyncCore
import StepSyncImport
import StepSyncSink
import StepSyncTestSupport
import Testing

/// Issue 31: what a hostile client can put into a series part, on every storage. Refused where it enters (`POST
/// /samples`, 400 `invalid_details` naming the field); written straight into the storage (as a sample stored before
/// the check would be), skipped by the readers as a missing part — never a trap; answers well-formed JSON and XML.
@Suite("the sink's routes and ECGs against hostile parts")
struct SinkSeriesHostileTests {
    static let recorded = "2025-06-05T08:07:00.000Z"

    /// An ECG part whose details are `members` (raw JSON members, so keys can be spelled with escapes).
    static func ecgSample(uuid: UUID, _ members: String, value: Double = 1) -> HealthSample {
        let start = ISO8601Millis.parse(recorded)!
        return HealthSample(uuid: uuid, type: .electrocardiogram, startMs: start, endMs: start + 2, value: value,
                            unit: "count", sourceName: "ECG", sourceBundleId: "com.apple.NanoHeartRhythm",
                            details: "{" + members + "}")
    }

    /// Part 0 of a one-voltage recording whose `first` is `Int64.max` (`first + microvolts.count` overflows), its
    /// voltages under `key` (`"micro\u0076olts"` is the same key to a JSON reader).
    static func overflowingECG(_ recording: UUID, key: String = "microvolts", part: Int = 0, parts: Int = 1) -> HealthSample {
        ecgSample(uuid: ElectrocardiogramPart.uuid(recording: recording, index: part), """
            "recording":"\(recording.uuidString)","part":\(part),"parts":\(parts),"first":9223372036854775807,\
            "recorded":"\(recorded)","utcOffsetSeconds":7200,"sampleRateHz":512,"voltageCount":1,"\(key)":[1.5]
            """)
    }

    /// A route part of `workout` with raw `time`, `lat`, `lon` arrays.
    static func routeSample(_ workout: UUID, part: Int = 0, parts: Int = 1, time: String, lat: String = "[1]",
                            lon: String = "[2]", value: Double = 1) -> HealthSample {
        HealthSample(uuid: RoutePart.uuid(workout: workout, index: part), type: .workoutRoute,
                     startMs: 1_748_797_500_000, endMs: 1_748_797_500_000, value: value, unit: "count",
                     sourceName: "Watch", sourceBundleId: "com.apple.health",
                     details: #"{"workout":"\#(workout.uuidString)","part":\#(part),"parts":\#(parts),"time":\#(time),"lat":\#(lat),"lon":\#(lon)}"#)
    }

    @Test("""
        POST /samples refuses hostile series parts whole with 400 invalid_details naming the field: an ECG's first of \
        Int64.max (also with the key spelled micro\\u0076olts), a route time of Int64.min, points not matching the \
        value, arrays of two lengths, details over 56 KiB
        """, arguments: SinkBackend.allCases)
    func refusedAtTheDoor(backend: SinkBackend) async throws {
        let recording = UUID(uuidString: "0E0E0E0E-0000-4000-8000-000000000001")!
        let workout = UUID(uuidString: "0E0E0E0E-0000-4000-8000-000000000002")!
        // 4,200 points of small integers: ≈ 60 KB of details, under the 64 KiB of any sample, over a part's 56 KiB.
        let many = "[" + (0..<4_200).map { "\($0)" }.joined(separator: ",") + "]"
        let cases: [(HealthSample, String)] = [
            (Self.overflowingECG(recording), "details.first"),
            (Self.overflowingECG(recording, key: #"micro\u0076olts"#), "details.first"),
            (Self.routeSample(workout, time: "[-9223372036854775808]"), "details.time"),
            (Self.routeSample(workout, time: "[1748797500000]", value: 2), "value"),
            (Self.routeSample(workout, time: "[1748797500000,1748797501000]", lat: "[1,2]"), "details.lon"),
            (Self.routeSample(workout, part: 5, parts: 5, time: "[1748797500000]"), "details.part"),
            (Self.routeSample(workout, time: many, lat: many, lon: many, value: 4_200), "details"),
        ]
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                for (sample, field) in cases {
                    let good = makeHealthSamples(2)
                    let reply = try await client.post(samples: [good[0], sample, good[1]])
                    #expect(reply.status == 400, "\(field): \(reply.text.prefix(300))")
                    #expect(reply.json["error"] as? String == "invalid_details", "\(reply.text.prefix(300))")
                    #expect(reply.json["field"] as? String == field, "\(reply.text.prefix(300))")
                    #expect(reply.json["index"] as? Int == 1)
                }
                // Nothing of the refused requests was written.
                #expect(try await client.allPages("/samples?type=HKQuantityTypeIdentifierHeartRate").isEmpty)
                #expect((try await client.send(.GET, "/electrocardiograms").json["electrocardiograms"] as? [Any])?.isEmpty == true)
            }
        }
    }

    @Test("""
        parts written straight into the storage (past the door's check) are skipped, never a crash: a bad part 1 of a \
        route and of an ECG is listed in missingParts, a bad part 0 is 404 and left out of the ECG list, and a route \
        whose only time is Int64.min is 404 in GeoJSON and GPX
        """, arguments: SinkBackend.allCases)
    func storedBadPartsSkipped(backend: SinkBackend) async throws {
        let workout = SinkSeriesTests.workout(31)
        let route = SinkSeriesTests.routeSamples(workout, SinkSeriesTests.points())
        let parts = try route.map { try RoutePart(details: $0.details!) }
        let ecg = SinkSeriesTests.ecg(SinkSeriesTests.header(Self.recorded, classification: "Sinus Rhythm"),
                                      SinkSeriesTests.voltages())
        let ecgParts = try ecg.samples.map { try ElectrocardiogramPart(details: $0.details!) }
        #expect(route.count > 3 && ecg.samples.count > 2)
        let badRecording = UUID(uuidString: "0E0E0E0E-0000-4000-8000-000000000003")!
        let badWorkout = UUID(uuidString: "0E0E0E0E-0000-4000-8000-000000000004")!
        try await withTemporaryDirectory { dir in
            try await withStorageSink(backend, directory: dir) { client, storage, identity in
                var stored = route
                stored[1] = Self.routeSample(workout.uuid, part: 1, parts: parts.count, time: "[-9223372036854775808]")
                var storedECG = ecg.samples
                storedECG[1] = Self.overflowingECG(ecg.uuid, key: #"micro\u0076olts"#, part: 1, parts: ecgParts.count)
                let bad = [Self.overflowingECG(badRecording, key: #"micro\u0076olts"#),
                           Self.routeSample(badWorkout, time: "[-9223372036854775808]")]
                _ = try await storage.insert(SampleBatch(stored + storedECG + bad), for: identity)

                let geo = try await client.send(.GET, "/workouts/\(workout.uuid.uuidString)/route")
                #expect(geo.status == 200, "\(geo.text.prefix(300))")
                let properties = try #require(geo.json["properties"] as? [String: Any], "\(geo.text.suffix(300))")
                #expect(properties["missingParts"] as? [Int] == [1] && properties["complete"] as? Bool == false)
                #expect(properties["points"] as? Int == 7_200 - parts[1].points.count)
                #expect(properties["truncated"] as? Bool == false)
                let gpx = try await client.send(.GET, "/workouts/\(workout.uuid.uuidString)/route?format=gpx")
                #expect(gpx.status == 200)
                #expect(try GPXRoute.parse(gpx.body).points.count == 7_200 - parts[1].points.count)

                let one = try await client.send(.GET, "/electrocardiograms/\(ecg.uuid.uuidString)")
                #expect(one.status == 200, "\(one.text.prefix(300))")
                #expect(one.json["missingParts"] as? [Int] == [1] && one.json["complete"] as? Bool == false)
                #expect((one.json["microvolts"] as? [Double])?.count == 15_360 - ecgParts[1].microvolts.count)

                let list = try await client.send(.GET, "/electrocardiograms")
                #expect(list.status == 200)
                let listed = (list.json["electrocardiograms"] as? [[String: Any]])?.compactMap { $0["uuid"] as? String }
                #expect(listed == [ecg.uuid.uuidString])
                #expect(try await client.send(.GET, "/electrocardiograms/\(badRecording.uuidString)").status == 404)
                for format in ["geojson", "gpx"] {
                    let reply = try await client.send(.GET, "/workouts/\(badWorkout.uuidString)/route?format=\(format)")
                    #expect(reply.status == 404 && reply.json["error"] as? String == "not_found")
                }
                // The sink is still up.
                #expect(try await client.send(.GET, "/health").status == 200)
            }
        }
    }

    @Test("""
        a route file name holding U+FFFF and control characters gives GPX that an XML parser (Python's \
        xml.etree) reads, the name's forbidden characters as U+FFFD
        """, arguments: SinkBackend.allCases)
    func gpxWellFormed(backend: SinkBackend) async throws {
        let workout = SinkSeriesTests.workout(32)
        let points = SinkSeriesTests.points(50)
        let file = "/workout-routes/run\u{FFFF}\u{1}\u{FFFE}&<b>.gpx"
        let samples = RoutePart.split(points, workout: workout.uuid, file: file).compactMap { $0.sample(of: workout) }
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                try await SinkSeriesTests.post(samples, client)
                let gpx = try await client.send(.GET, "/workouts/\(workout.uuid.uuidString)/route?format=gpx")
                #expect(gpx.status == 200)
                let path = dir + "/route.gpx"
                try Data(gpx.body).write(to: URL(fileURLWithPath: path))
                let script = """
                    import sys, xml.etree.ElementTree as ET
                    root = ET.parse(sys.argv[1]).getroot()
                    ns = {"g": "http://www.topografix.com/GPX/1/1"}
                    print(len(root.findall(".//g:trkpt", ns)))
                    print(root.find(".//g:name", ns).text.encode("unicode_escape").decode())
                    """
                let (status, output) = try await TransportHarness.run("/usr/bin/env", ["python3", "-c", script, path])
                #expect(status == 0, "\(output)")
                #expect(output == "50\nrun\\ufffd\\ufffd\\ufffd&<b>\n", "\(output)")
            }
        }
    }

    @Test("a finite 1e306 is a number in GET /workouts and /samples/daily, never inf", arguments: SinkBackend.allCases)
    func hugeFiniteNumbers(backend: SinkBackend) async throws {
        let start = ISO8601Millis.parse("2025-05-11T08:00:00.000Z")!
        let workout = HealthSample(uuid: uuid(0x3131), type: .workout, startMs: start, endMs: start + 3_600_000,
                                   value: 3600, unit: "s", sourceName: "Watch", sourceBundleId: "com.apple.health",
                                   details: #"{"activityType":"Running","totalDistance":1e306,"totalDistanceUnit":"m","totalEnergyBurned":-1e306,"totalEnergyBurnedUnit":"kcal"}"#)
        let heart = HealthSample(uuid: uuid(0x3132), type: .heartRate, startMs: start, endMs: start, value: 1e306,
                                 unit: "count/min", sourceName: "Watch", sourceBundleId: "com.apple.health")
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                #expect(try await client.post(samples: [workout, heart]).status == 200)
                let workouts = try await client.send(.GET, "/workouts?from=2025-05-10&to=2025-05-12")
                #expect(!workouts.text.contains("inf"), "\(workouts.text)")
                let listed = try #require((workouts.json["workouts"] as? [[String: Any]])?.first, "\(workouts.text)")
                #expect(listed["distanceMeters"] as? Double == 1e306)
                #expect(listed["energyKilocalories"] as? Double == -1e306)
                let daily = try await client.send(
                    .GET, "/samples/daily?type=HKQuantityTypeIdentifierHeartRate&from=2025-05-11&to=2025-05-11")
                #expect(!daily.text.contains("inf"), "\(daily.text)")
                let days = try #require(daily.json["days"] as? [[String: Any]], "\(daily.text)")
                #expect(days.first?["max"] as? Double == 1e306, "\(daily.text)")
            }
        }
    }

    @Test("""
        a route of more points than one answer holds (37 parts of dense minimal points, 200,000+) is answered with \
        the first SeriesLimits.maxAnswerPoints and truncated:true, in GeoJSON and GPX
        """, arguments: SinkBackend.allCases)
    func routeTruncated(backend: SinkBackend) async throws {
        let workout = SinkSeriesTests.workout(33)
        let total = SeriesLimits.maxAnswerPoints + 1_000
        let points = (0..<total).map { RoutePoint(timeMs: Int64($0), latitude: 0, longitude: 0) }
        let samples = RoutePart.split(points, workout: workout.uuid, file: nil).compactMap { $0.sample(of: workout) }
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                try await SinkSeriesTests.post(samples, client)
                let geo = try await client.send(.GET, "/workouts/\(workout.uuid.uuidString)/route")
                let feature = try JSONDecoder().decode(TruncatedFeature.self, from: Data(geo.body))
                #expect(feature.properties.truncated && feature.properties.complete)
                #expect(feature.properties.points == SeriesLimits.maxAnswerPoints)
                #expect(feature.geometry.coordinates.count == SeriesLimits.maxAnswerPoints)
                #expect(feature.properties.times.last == ISO8601Millis.format(Int64(SeriesLimits.maxAnswerPoints - 1)))
                let gpx = try await client.send(.GET, "/workouts/\(workout.uuid.uuidString)/route?format=gpx")
                #expect(try GPXRoute.parse(gpx.body).points.count == SeriesLimits.maxAnswerPoints)
            }
        }
    }

    struct TruncatedFeature: Decodable {
        struct Geometry: Decodable { var coordinates: [[Double]] }
        struct Properties: Decodable {
            var points: Int
            var times: [String]
            var complete: Bool
            var truncated: Bool
        }
        var geometry: Geometry
        var properties: Properties
    }
}
