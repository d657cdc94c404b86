import Foundation
import StepSyncCore
import StepSyncImport
import StepSyncStore
import StepSyncTestSupport
import Testing
import ZIPFoundation

/// Issue 32.6 and 32.7: a workout whose route is 12 files (named out of time order, one named twice) and a route file
/// no workout names, imported from an export.zip through `HealthImporter`, posted to a sink on every storage: the
/// workout's route is every file in time order (GeoJSON `segments`, one GPX `<trkseg>` a file), `GET /routes` lists
/// both routes, the orphan is served by its own uuid, and deleting the workout deletes every part.
@Suite("a workout's route is every file it names; orphan routes are listed")
struct SinkRouteFilesTests {
    /// 2024-12-08T15:00:00Z.
    static let t0: Int64 = 1_733_670_000_000
    /// File k (time order) starts at t0 + k × 5 min and has 30 + 7k points a second.
    static let fileCount = 12
    static func pointCount(_ k: Int) -> Int { 30 + 7 * k }
    static func startMs(_ k: Int) -> Int64 { t0 + Int64(k) * 300_000 }
    /// Names not in time order: file k is called `route_…_<(5k + 3) mod 12>.gpx`.
    static func name(_ k: Int) -> String { "/workout-routes/route_2024-12-08_3.00pm_\(String(format: "%02d", (5 * k + 3) % 12)).gpx" }
    static let orphanFile = "/workout-routes/route_2024-12-07_9.00am.gpx"
    static let orphanStart: Int64 = 1_733_562_000_000  // 2024-12-07T09:00:00Z
    static let orphanPoints = 45

    static func gpx(startMs: Int64, points: Int, latitude: Double) -> String {
        func instant(_ ms: Int64) -> String { ISO8601Millis.format(ms).replacingOccurrences(of: ".000Z", with: "Z") }
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1">
             <trk>
              <name>Route \(instant(startMs))</name>
              <trkseg>

            """
        for i in 0..<points {
            let lat = String(format: "%.6f", latitude + Double(i) * 0.000013)
            text += "   <trkpt lon=\"-8.865413\" lat=\"\(lat)\"><ele>31.5</ele><time>\(instant(startMs + Int64(i) * 1000))</time><extensions><speed>2.731</speed><course>1.5</course><hAcc>3.6</hAcc><vAcc>1.6</vAcc></extensions></trkpt>\n"
        }
        return text + "  </trkseg>\n </trk>\n</gpx>\n"
    }

    /// The export.zip: one run naming the 12 files in reverse time order, file 3 twice; the orphan file beside them.
    static func writeExport(to url: URL) throws {
        let watch = "&lt;&lt;HKDevice: 0x283a1c3c0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:11.1&gt;"
        var routes = ""
        for k in [3] + Array((0..<fileCount).reversed()) {
            routes += """
                  <WorkoutRoute sourceName="Apple Watch" sourceVersion="11.1" creationDate="2024-12-08 16:00:00 +0000" startDate="2024-12-08 15:00:00 +0000" endDate="2024-12-08 16:00:00 +0000">
                   <FileReference path="\(name(k))"/>
                  </WorkoutRoute>

                """
        }
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE HealthData [
            <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
            ]>
            <HealthData locale="en_US">
             <ExportDate value="2024-12-12 09:00:00 +0000"/>
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="60" durationUnit="min" sourceName="Apple Watch" sourceVersion="11.1" device="\(watch)" creationDate="2024-12-08 16:00:00 +0000" startDate="2024-12-08 15:00:00 +0000" endDate="2024-12-08 16:00:00 +0000">
            \(routes) </Workout>
            </HealthData>

            """
        var entries = [("apple_health_export/export.xml", xml)]
        for k in 0..<fileCount {
            entries.append(("apple_health_export" + name(k), gpx(startMs: startMs(k), points: pointCount(k), latitude: 40 + Double(k))))
        }
        entries.append(("apple_health_export" + orphanFile, gpx(startMs: orphanStart, points: orphanPoints, latitude: 48.8)))
        let archive = try Archive(url: url, accessMode: .create)
        for (path, text) in entries {
            let data = Data(text.utf8)
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<min(data.count, Int(position) + size))
            }
        }
    }

    @Test("""
        a run naming 12 route files (one twice) is one route of every point in time order: GeoJSON segments a file, \
        GPX a trkseg a file, import counts agree; GET /routes lists it and the orphan file, which its uuid serves
        """, arguments: SinkBackend.allCases)
    func routeOfEveryFile(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            let zip = URL(fileURLWithPath: dir + "/export.zip")
            try Self.writeExport(to: zip)
            let store = try StepStore(path: dir + "/store.sqlite")
            let summary = try HealthImporter(store: store, time: .system).importExport(at: zip.path)
            let total = (0..<Self.fileCount).map(Self.pointCount).reduce(0, +)
            #expect(total == 822)
            #expect(summary.routes == 2 && summary.orphanRoutes == 1)
            #expect(summary.routePoints == total + Self.orphanPoints)
            // A re-import derives the same uuids: nothing new.
            let again = try HealthImporter(store: store, time: .system).importExport(at: zip.path)
            #expect(again.inserted == 0 && again.routes == 0 && again.orphanRoutes == 0)
            var workouts: [HealthSample] = [], stored: [HealthSample] = []
            try store.forEachSamplePage(of: .workout, in: LayeringEngine.domain, pageSize: 100) { workouts += $0 }
            try store.forEachSamplePage(of: .workoutRoute, in: LayeringEngine.domain, pageSize: 100) { stored += $0 }
            let parts = stored
            let workout = try #require(workouts.first).uuid
            #expect(workouts.count == 1 && parts.count == Self.fileCount + 1)
            let orphan = RoutePart.orphanOwner(file: Self.orphanFile)
            let expectedTimes = (0..<Self.fileCount).flatMap { k in
                (0..<Self.pointCount(k)).map { ISO8601Millis.format(Self.startMs(k) + Int64($0) * 1000) }
            }

            try await withSink(backend, directory: dir) { client, _ in
                try await SinkSeriesTests.post(parts.reversed(), client)
                let reply = try await client.send(.GET, "/workouts/\(workout.uuidString)/route")
                #expect(reply.status == 200, "\(reply.text.prefix(300))")
                let geometry = try #require(reply.json["geometry"] as? [String: Any])
                let properties = try #require(reply.json["properties"] as? [String: Any])
                #expect((geometry["coordinates"] as? [Any])?.count == total)
                #expect(properties["points"] as? Int == total)
                #expect(properties["times"] as? [String] == expectedTimes)
                #expect(properties["complete"] as? Bool == true)
                let segments = try #require(properties["segments"] as? [[String: Any]])
                #expect(segments.map { $0["file"] as? String } == (0..<Self.fileCount).map(Self.name))
                #expect(segments.map { $0["points"] as? Int } == (0..<Self.fileCount).map(Self.pointCount))
                #expect(segments.map { $0["start"] as? String } == (0..<Self.fileCount).map { ISO8601Millis.format(Self.startMs($0)) })
                #expect(segments.map { $0["end"] as? String } == (0..<Self.fileCount).map {
                    ISO8601Millis.format(Self.startMs($0) + Int64(Self.pointCount($0) - 1) * 1000)
                })

                let gpx = try await client.send(.GET, "/workouts/\(workout.uuidString)/route?format=gpx")
                #expect(gpx.status == 200)
                #expect(gpx.text.components(separatedBy: "<trkseg>").count - 1 == Self.fileCount)
                #expect(gpx.text.components(separatedBy: "</trkseg>").count - 1 == Self.fileCount)
                let parsed = try GPXRoute.parse(gpx.body)
                #expect(parsed.points.map { ISO8601Millis.format($0.timeMs) } == expectedTimes)

                let list = try await client.send(.GET, "/routes")
                #expect(list.status == 200, "\(list.text.prefix(300))")
                let routes = try #require(list.json["routes"] as? [[String: Any]])
                #expect(routes.map { $0["uuid"] as? String } == [orphan.uuidString, workout.uuidString])
                #expect(routes.map { $0["workout"] is NSNull } == [true, false])
                #expect(routes.last?["workout"] as? String == workout.uuidString)
                #expect(routes.map { $0["file"] as? String } == [Self.orphanFile, Self.name(0)])
                #expect(routes.map { $0["points"] as? Int } == [Self.orphanPoints, total])
                #expect(routes.map { $0["parts"] as? Int } == [1, Self.fileCount])
                #expect(routes.map { $0["start"] as? String } == [ISO8601Millis.format(Self.orphanStart), expectedTimes.first])
                #expect(routes.map { $0["end"] as? String }
                        == [ISO8601Millis.format(Self.orphanStart + Int64(Self.orphanPoints - 1) * 1000), expectedTimes.last])
                let later = try await client.send(.GET, "/routes?from=2024-12-08T00:00:00Z")
                #expect((later.json["routes"] as? [[String: Any]])?.map { $0["uuid"] as? String } == [workout.uuidString])
                #expect(try await client.send(.GET, "/routes?to=nonsense").status == 400)
                #expect(try await client.send(.POST, "/routes", body: []).status == 405)

                let orphanRoute = try await client.send(.GET, "/workouts/\(orphan.uuidString)/route")
                #expect(orphanRoute.status == 200)
                #expect((orphanRoute.json["properties"] as? [String: Any])?["points"] as? Int == Self.orphanPoints)
            }

            // Deleting the workout deletes every part of its route (all 12 files), not the orphan's.
            _ = try store.deleteSamples(uuids: [workout])
            var left: [HealthSample] = []
            try store.forEachSamplePage(of: .workoutRoute, in: LayeringEngine.domain, pageSize: 100) { left += $0 }
            #expect(left.map(\.uuid) == [RoutePart.uuid(workout: orphan, index: 0)])
        }
    }
}
