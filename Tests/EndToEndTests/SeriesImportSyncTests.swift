import AsyncHTTPClient
import Foundation
import StepSyncCore
import StepSyncStore
import StepSyncTestSupport
import Testing
import ZIPFoundation

/// Issue 25, end to end: an export.zip with two routed workouts (one a two-hour run of 7,200 points) and two ECGs goes
/// through the real `stepsync` binary (`import`, `layer`, `serve` on JSONL, `sync`), the sink is killed with `kill -9`
/// during the sync and restarted, and the sink ends holding exactly the store's samples: every route point with the
/// GPX's coordinates and elevations in order, every ECG's 15,360 voltages and header.
@Suite("Import, layer and sync routes and ECGs, end to end", .serialized)
struct SeriesImportSyncTests {
    /// A route point as the GPX holds it (the columns the test checks).
    struct Point: Equatable {
        var time: Int64
        var lat: Double
        var lon: Double
        var ele: Double?
    }

    /// A GPX file as Apple writes it: `points` points a second from `startMs`, six decimals.
    static func gpx(startMs: Int64, points: Int, latitude: Double, longitude: Double) -> (text: String, points: [Point]) {
        func instant(_ ms: Int64) -> String { ISO8601Millis.format(ms).replacingOccurrences(of: ".000Z", with: "Z") }
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
             <metadata>
              <time>\(instant(startMs + Int64(points) * 1000))</time>
             </metadata>
             <trk>
              <name>Route \(instant(startMs))</name>
              <trkseg>

            """
        var expected: [Point] = []
        for k in 0..<points {
            let lat = String(format: "%.6f", latitude + Double(k) * 0.000013)
            let lon = String(format: "%.6f", longitude - Double(k) * 0.000017)
            let ele = String(format: "%.6f", 31.5 + Double(k % 113) * 0.171)
            let ms = startMs + Int64(k) * 1000
            text += "   <trkpt lon=\"\(lon)\" lat=\"\(lat)\"><ele>\(ele)</ele><time>\(instant(ms))</time><extensions><speed>2.731</speed><course>\(k % 360).5</course><hAcc>3.625519</hAcc><vAcc>1.612305</vAcc></extensions></trkpt>\n"
            expected.append(Point(time: ms, lat: Double(lat)!, lon: Double(lon)!, ele: Double(ele)!))
        }
        return (text + "  </trkseg>\n </trk>\n</gpx>\n", expected)
    }

    /// An ECG file: English (`.`, LF) or German (`,`, BOM, CRLF), 15,360 voltages.
    static func ecg(recorded: String, german: Bool) -> (text: String, microvolts: [Double]) {
        let values = (0..<15_360).map { i in (Double((i * 7_919 + (german ? 13 : 0)) % 200_001) - 100_000) / 1000 }
        let header = ["Name,Anna Example", #"Date of Birth,"Jan 15, 1990""#, "Recorded Date,\(recorded)",
                      "Classification,\(german ? "Sinusrhythmus" : "Sinus Rhythm")", "Symptoms,", "Software Version,1.90",
                      #"Device,"Watch6,2""#, "Sample Rate,512 hertz", "", "", "Lead,Lead I", "Unit,µV", ""]
        let voltages = values.map { v in german ? String(format: "%.3f", v).replacingOccurrences(of: ".", with: ",") : String(format: "%.3f", v) }
        let newline = german ? "\r\n" : "\n"
        return ((german ? "\u{FEFF}" : "") + (header + voltages).joined(separator: newline) + newline, values)
    }

    /// The export: 600 step records (so the sync has many intervals to be killed in), the run, the walk, two ECGs.
    static func export() -> (entries: [(String, String)], routes: [String: [Point]], ecgs: [String: [Double]]) {
        let watch = "&lt;&lt;HKDevice: 0x283a1c3c0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:11.1&gt;"
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE HealthData [
            <!-- HealthKit Export Version: 14 -->
            <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
            ]>
            <HealthData locale="en_US">
             <ExportDate value="2024-12-12 09:00:00 +0000"/>

            """
        for i in 0..<600 {
            let start = ISO8601Millis.parse("2024-12-01T06:00:00.000Z")! + Int64(i) * 600_000
            func local(_ ms: Int64) -> String {
                let iso = ISO8601Millis.format(ms)
                return "\(iso.prefix(10)) \(iso.dropFirst(11).prefix(8)) +0000"
            }
            xml += #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Anna’s Apple Watch" sourceVersion="11.1" device="\#(watch)" unit="count" creationDate="\#(local(start + 300_000))" startDate="\#(local(start))" endDate="\#(local(start + 300_000))" value="\#(50 + i % 300)"/>"#
            xml += "\n"
        }
        let runFile = "/workout-routes/route_2024-12-08_3.07pm.gpx", walkFile = "/workout-routes/route_2024-12-09_7.30am.gpx"
        for (activity, start, end, minutes, file) in [
            ("HKWorkoutActivityTypeRunning", "2024-12-08 15:07:56 +0000", "2024-12-08 17:07:56 +0000", 120, runFile),
            ("HKWorkoutActivityTypeWalking", "2024-12-09 07:30:00 +0000", "2024-12-09 07:40:00 +0000", 10, walkFile),
        ] {
            xml += """
                 <Workout workoutActivityType="\(activity)" duration="\(minutes)" durationUnit="min" sourceName="Anna’s Apple Watch" sourceVersion="11.1" device="\(watch)" creationDate="\(end)" startDate="\(start)" endDate="\(end)">
                  <MetadataEntry key="HKIndoorWorkout" value="0"/>
                  <WorkoutRoute sourceName="Anna’s Apple Watch" sourceVersion="11.1" creationDate="\(end)" startDate="\(start)" endDate="\(end)">
                   <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>
                   <FileReference path="\(file)"/>
                  </WorkoutRoute>
                 </Workout>

                """
        }
        xml += "</HealthData>\n"
        let run = gpx(startMs: ISO8601Millis.parse("2024-12-08T15:07:56.000Z")!, points: 7_200, latitude: 40.154135, longitude: -8.865413)
        let walk = gpx(startMs: ISO8601Millis.parse("2024-12-09T07:30:00.000Z")!, points: 600, latitude: 48.8566, longitude: 2.3522)
        let english = ecg(recorded: "2025-06-05 10:07:00 +0200", german: false)
        let german = ecg(recorded: "2025-06-05 18:41:30 +0200", german: true)
        let entries = [("apple_health_export/export.xml", xml),
                       ("apple_health_export" + runFile, run.text), ("apple_health_export" + walkFile, walk.text),
                       ("apple_health_export/electrocardiograms/ecg_2025-06-05.csv", english.text),
                       ("apple_health_export/electrocardiograms/ecg_2025-06-05_1.csv", german.text)]
        return (entries, [runFile: run.points, walkFile: walk.points],
                ["Sinus Rhythm": english.microvolts, "Sinusrhythmus": german.microvolts])
    }

    static func zip(_ entries: [(String, String)], to url: URL) throws {
        let archive = try Archive(url: url, accessMode: .create)
        for (path, text) in entries {
            let data = Data(text.utf8)
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<min(data.count, Int(position) + size))
            }
        }
    }

    // MARK: - Reading the sink

    /// A route part's details as the sink serves them (decoded with `JSONDecoder`: numbers exact).
    struct RouteDetails: Decodable {
        var workout: UUID
        var part: Int
        var parts: Int
        var file: String?
        var time: [Int64]
        var lat: [Double]
        var lon: [Double]
        var ele: [Double?]
    }

    /// An ECG part's details as the sink serves them.
    struct ECGDetails: Decodable {
        var recording: UUID
        var part: Int
        var parts: Int
        var first: Int
        var recorded: String
        var utcOffsetSeconds: Int
        var classification: String?
        var device: String?
        var sampleRateHz: Double
        var lead: String?
        var unit: String?
        var voltageCount: Int
        var microvolts: [Double]
    }

    struct Page<Details: Decodable>: Decodable {
        struct Sample: Decodable {
            var uuid: UUID
            var details: Details
        }
        var samples: [Sample]
        var nextCursor: String?
    }

    /// Every sample of `type` at the sink, page by page through `GET /samples?type=`.
    static func sinkSamples<D: Decodable>(_ type: String, port: Int, as: D.Type) async throws -> [Page<D>.Sample] {
        var samples: [Page<D>.Sample] = []
        var cursor: String?
        repeat {
            var url = "http://127.0.0.1:\(port)/samples?type=\(type)&limit=7"
            if let cursor { url += "&cursor=\(cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? cursor)" }
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 64 << 20)
            #expect(response.status.code == 200)
            let page = try JSONDecoder().decode(Page<D>.self, from: Data(body.readableBytesView))
            samples += page.samples
            cursor = page.nextCursor
        } while cursor != nil
        return samples
    }

    /// The uuids of every type the store holds, and the sink's for the same types.
    static func uuidSets(store: StepStore, port: Int) async throws -> (store: Set<UUID>, sink: Set<UUID>, sinkCount: Int) {
        var stored = Set<UUID>(), atSink = Set<UUID>(), count = 0
        for type in try store.sampleTypes() {
            try store.forEachSamplePage(of: type, in: LayeringEngine.domain, pageSize: 5_000) { page in
                for sample in page { stored.insert(sample.uuid) }
            }
            let sink = try await SinkHarness.storedUUIDs(port: port, type: type.rawValue)
            atSink.formUnion(sink.uuids)
            count += sink.count
        }
        return (stored, atSink, count)
    }

    /// The bytes under `dir` (the JSONL sink's files).
    static func size(_ dir: String) -> Int {
        var total = 0
        for case let name as String in FileManager.default.enumerator(atPath: dir) ?? FileManager.DirectoryEnumerator() {
            total += ((try? FileManager.default.attributesOfItem(atPath: dir + "/" + name))?[.size] as? Int) ?? 0
        }
        return total
    }

    @Test("routes and ECGs reach the sink point for point and voltage for voltage, through a kill -9 of the sink mid-sync")
    func importLayerServeSync() async throws {
        let dir = TemporaryDirectory.uniquePath("stepsync-series-e2e")
        try FileManager.default.createDirectory(atPath: dir + "/sink", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let data = ["--data-dir", dir + "/data"]
        let (entries, routes, ecgs) = Self.export()
        let zipURL = URL(fileURLWithPath: dir).appendingPathComponent("export.zip")
        try Self.zip(entries, to: zipURL)

        let (status, imported) = try await StepSyncProcess.run(["import", zipURL.path, "--json"] + data)
        #expect(status == 0, "\(imported.stderr)")
        let summary = try imported.json()
        #expect(summary["routes"] as? Int == 2 && summary["routePoints"] as? Int == 7_800, "\(summary)")
        #expect(summary["electrocardiograms"] as? Int == 2 && summary["skipped"] as? [String: Int] == [:], "\(summary)")
        let again = try await StepSyncProcess.run(["import", zipURL.path, "--json"] + data)
        #expect(try again.process.json()["routes"] as? Int == 0 && again.process.json()["electrocardiograms"] as? Int == 0)

        // Two samples an interval: many requests, so the sink is killed in the middle of the sync.
        let layer = try await StepSyncProcess.run(["layer", "--max-samples", "2", "--json"] + data)
        #expect(layer.status == 0, "\(layer.process.stderr)")

        var serve = try StepSyncProcess(["serve", "--data", dir + "/sink/steps.jsonl", "--port", "0"])
        let port = try await serve.listeningPort()
        let syncArguments = ["sync", "--server", "http://127.0.0.1:\(port)", "--concurrency", "2", "--request-samples", "0",
                             "--backoff-base", "0.01", "--max-attempts", "6", "--json"] + data
        let sync = try StepSyncProcess(syncArguments)
        // As in ServeProcessTests: the sync is stopped across each kill and restart of the sink.
        kill(sync.pid, SIGSTOP)
        var kills = 0
        for _ in 0..<2 {
            let before = Self.size(dir + "/sink")
            guard await ProcessPacer.continueUntil(sync.process, { Self.size(dir + "/sink") > before }) else { break }
            kills += 1
            kill(serve.pid, SIGKILL)
            _ = try await serve.wait()
            serve = try StepSyncProcess(["serve", "--data", dir + "/sink/steps.jsonl", "--port", "\(port)"])
            _ = try await serve.listeningPort()
        }
        kill(sync.pid, SIGCONT)
        defer { kill(serve.pid, SIGKILL) }
        var syncStatus = try await sync.wait(timeout: .seconds(180))
        var runs = 0
        while syncStatus != 0, runs < 5 {
            syncStatus = try await StepSyncProcess.run(syncArguments + ["--retry-failed"]).status
            runs += 1
        }
        #expect(syncStatus == 0, "\(sync.stderr)")
        #expect(kills >= 1, "the sync ended before the sink could be killed during it")

        // Exactly the store's samples, each once.
        let store = try StepStore(dataDirectory: DataDirectory(path: dir + "/data"))
        let sets = try await Self.uuidSets(store: store, port: port)
        #expect(sets.sink == sets.store && sets.sinkCount == sets.store.count)
        #expect(try store.sampleTypes().contains(.workoutRoute) && store.sampleTypes().contains(.electrocardiogram))

        // Every route point, in order, with the GPX's coordinates and elevations.
        let routeParts = try await Self.sinkSamples("HKWorkoutRouteTypeIdentifier", port: port, as: RouteDetails.self)
        var byFile: [String: [RouteDetails]] = [:]
        for sample in routeParts { byFile[sample.details.file ?? "", default: []].append(sample.details) }
        #expect(Set(byFile.keys) == Set(routes.keys))
        for (file, expected) in routes {
            let parts = (byFile[file] ?? []).sorted { $0.part < $1.part }
            #expect(parts.map(\.part) == Array(0..<(parts.first?.parts ?? 0)) && Set(parts.map(\.workout)).count == 1)
            var points: [Point] = []
            for part in parts {
                for i in part.time.indices { points.append(Point(time: part.time[i], lat: part.lat[i], lon: part.lon[i], ele: part.ele[i])) }
            }
            #expect(points.count == expected.count && points == expected, "\(file)")
        }
        #expect(byFile.values.map(\.count).reduce(0, +) == routeParts.count)

        // Every ECG: its 15,360 voltages in order and its header.
        let ecgParts = try await Self.sinkSamples("HKDataTypeIdentifierElectrocardiogram", port: port, as: ECGDetails.self)
        var byRecording: [UUID: [ECGDetails]] = [:]
        for sample in ecgParts { byRecording[sample.details.recording, default: []].append(sample.details) }
        #expect(byRecording.count == 2)
        for parts in byRecording.values.map({ $0.sorted { $0.part < $1.part } }) {
            let header = try #require(parts.first)
            let expected = try #require(ecgs[header.classification ?? ""])
            #expect(parts.map(\.part) == Array(0..<header.parts))
            #expect(parts.flatMap(\.microvolts) == expected && header.voltageCount == 15_360)
            var offsets: [Int] = []
            var at = 0
            for part in parts {
                offsets.append(at)
                at += part.microvolts.count
            }
            #expect(parts.map(\.first) == offsets)
            #expect(header.sampleRateHz == 512 && header.device == "Watch6,2" && header.lead == "Lead I" && header.unit == "µV")
            #expect(header.utcOffsetSeconds == 7_200)
            #expect(header.recorded == (header.classification == "Sinus Rhythm" ? "2025-06-05T08:07:00.000Z" : "2025-06-05T16:41:30.000Z"))
        }

        // The sink's own answers put them back together: each workout's route as GeoJSON, each recording whole.
        for (file, expected) in routes {
            let workout = try #require(byFile[file]?.first?.workout)
            let route = try await Self.get("/workouts/\(workout.uuidString)/route", port: port, as: RouteFeature.self)
            #expect(route.type == "Feature" && route.geometry.type == "LineString" && route.properties.complete)
            let points = Swift.zip(route.geometry.coordinates, route.properties.times).map { c, t in
                Point(time: ISO8601Millis.parse(t) ?? -1, lat: c[1], lon: c[0], ele: c.count > 2 ? c[2] : nil)
            }
            #expect(points.count == expected.count && points == expected, "GET /workouts/\(workout)/route of \(file)")
        }
        let listed = try await Self.get("/electrocardiograms", port: port, as: ECGList.self)
        #expect(Set(listed.electrocardiograms.map(\.uuid)) == Set(byRecording.keys))
        for (recording, parts) in byRecording {
            let whole = try await Self.get("/electrocardiograms/\(recording.uuidString)", port: port, as: ECGWhole.self)
            let classification = try #require(parts.first?.classification)
            #expect(whole.microvolts == ecgs[classification] && whole.samples == 15_360 && whole.complete)
            #expect(whole.classification == classification && whole.sampleRateHz == 512)
        }
        kill(serve.pid, SIGTERM)
        _ = try await serve.wait()
    }

    struct RouteFeature: Decodable {
        struct Geometry: Decodable { var type: String; var coordinates: [[Double]] }
        struct Properties: Decodable { var complete: Bool; var times: [String] }
        var type: String
        var geometry: Geometry
        var properties: Properties
    }

    struct ECGList: Decodable {
        struct Entry: Decodable { var uuid: UUID }
        var electrocardiograms: [Entry]
    }

    struct ECGWhole: Decodable {
        var classification: String?
        var sampleRateHz: Double
        var samples: Int
        var complete: Bool
        var microvolts: [Double]
    }

    /// `GET path` at the sink, decoded with `JSONDecoder` (numbers exact).
    static func get<T: Decodable>(_ path: String, port: Int, as: T.Type) async throws -> T {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"),
                                                           timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 64 << 20)
        #expect(response.status.code == 200, "\(path): \(String(buffer: body).prefix(200))")
        return try JSONDecoder().decode(T.self, from: Data(body.readableBytesView))
    }
}
