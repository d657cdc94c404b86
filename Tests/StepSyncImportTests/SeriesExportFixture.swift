import Foundation
import StepSyncCore
@testable import StepSyncImport

/// Exports with workout routes and ECGs, in the Health app's layout (`Planning/import.md`): `export.xml` whose
/// workouts name `/workout-routes/route_….gpx`, the GPX files (Apple's format: `creator="Apple Health Export"`,
/// metadata time, a named track, a point a second with elevation, time and the speed/course/hAcc/vAcc extensions)
/// and `electrocardiograms/ecg_….csv` files. Large files are generated here rather than committed.
enum SeriesExportFixture {
    /// A route file of `points` points a second from `startMs`, as Apple writes it, and the points it holds.
    static func route(startMs: Int64, points: Int, extensions: Bool = true, latitude: Double = 40.154135,
                      longitude: Double = -8.865413) -> (text: String, points: [RoutePoint]) {
        func instant(_ ms: Int64) -> String { ISO8601Millis.format(ms).replacingOccurrences(of: ".000Z", with: "Z") }
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
             <metadata>
              <time>\(instant(startMs + Int64(points) * 1000 + 60_000))</time>
             </metadata>
             <trk>
              <name>Route \(instant(startMs))</name>
              <trkseg>

            """
        var expected: [RoutePoint] = []
        expected.reserveCapacity(points)
        for k in 0..<points {
            // Six decimals as Apple writes them; the parsed Double of the text is what must come back.
            let lat = Double(String(format: "%.6f", latitude + Double(k) * 0.000011))!
            let lon = Double(String(format: "%.6f", longitude - Double(k) * 0.000019))!
            let ele = Double(String(format: "%.6f", 22.107849 + Double(k % 97) * 0.113))!
            let speed = Double(String(format: "%.6f", 2.5 + Double(k % 11) / 10))!
            let course = Double(String(format: "%.6f", Double(k % 360) + 0.5))!
            let ms = startMs + Int64(k) * 1000
            text += "   <trkpt lon=\"\(String(format: "%.6f", lon))\" lat=\"\(String(format: "%.6f", lat))\"><ele>\(String(format: "%.6f", ele))</ele><time>\(instant(ms))</time>"
            if extensions {
                text += "<extensions><speed>\(String(format: "%.6f", speed))</speed><course>\(String(format: "%.6f", course))</course><hAcc>3.625519</hAcc><vAcc>1.612305</vAcc></extensions>"
            }
            text += "</trkpt>\n"
            expected.append(RoutePoint(timeMs: ms, latitude: lat, longitude: lon, elevation: ele,
                                       speed: extensions ? speed : nil, course: extensions ? course : nil,
                                       horizontalAccuracy: extensions ? 3.625519 : nil,
                                       verticalAccuracy: extensions ? 1.612305 : nil))
        }
        text += "  </trkseg>\n </trk>\n</gpx>\n"
        return (text, expected)
    }

    /// A `<Workout>` of `minutes` from `start` (`2024-12-08 15:07:56 +0000`) that names `route`.
    static func workout(activity: String, start: String, end: String, minutes: Int, route: String?) -> String {
        var text = """
             <Workout workoutActivityType="\(activity)" duration="\(minutes)" durationUnit="min" sourceName="Apple Watch de Anna" sourceVersion="18.1" device="\(HealthExportFixture.watch)" creationDate="\(end)" startDate="\(start)" endDate="\(end)">
              <MetadataEntry key="HKIndoorWorkout" value="0"/>

            """
        if let route {
            text += """
                  <WorkoutRoute sourceName="Apple Watch de Anna" sourceVersion="18.1" creationDate="\(end)" startDate="\(start)" endDate="\(end)">
                   <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>
                   <FileReference path="\(route)"/>
                  </WorkoutRoute>

                """
        }
        return text + " </Workout>\n"
    }

    /// 15,360 voltages (30 s at 512 Hz) in an ECG file: English (`.`, LF) or German (`,`, `Sinusrhythmus`, BOM, CRLF).
    static func electrocardiogram(recorded: String, german: Bool) -> (text: String, microvolts: [Double]) {
        let (lines, values) = ElectrocardiogramCSVTests.thirtySeconds(decimalComma: german)
        let bytes = ElectrocardiogramCSVTests.file(recorded: recorded, classification: german ? "Sinusrhythmus" : "Sinus Rhythm",
                                                   voltages: lines, newline: german ? "\r\n" : "\n", bom: german)
        return (String(decoding: bytes, as: UTF8.self), values)
    }

    /// The run (two hours: 7,200 points), the walk (10 minutes, no extensions, an older export's), two ECGs.
    struct Export {
        var xml: String
        var files: [(String, String)]
        var run: [RoutePoint]
        var walk: [RoutePoint]
        var english: [Double]
        var german: [Double]

        static let runFile = "/workout-routes/route_2024-12-08_3.07pm.gpx"
        static let walkFile = "/workout-routes/route_2024-12-09_7.30am.gpx"
        static let englishFile = "/electrocardiograms/ecg_2025-06-05.csv"
        static let germanFile = "/electrocardiograms/ecg_2025-06-05_1.csv"

        /// The export's entries under `apple_health_export/`.
        var entries: [(String, String)] {
            [("apple_health_export/export.xml", xml)] + files.map { ("apple_health_export" + $0.0, $0.1) }
        }
    }

    static func export(extraBody: String = "") -> Export {
        let runStart = ISO8601Millis.parse("2024-12-08T15:07:56.000Z")!
        let walkStart = ISO8601Millis.parse("2024-12-09T07:30:00.000Z")!
        let run = route(startMs: runStart, points: 7_200)
        let walk = route(startMs: walkStart, points: 600, extensions: false, latitude: 48.8566, longitude: 2.3522)
        let english = electrocardiogram(recorded: "2025-06-05 10:07:00 +0200", german: false)
        let german = electrocardiogram(recorded: "2025-06-05 18:41:30 +0200", german: true)
        let body = HealthExportFixture.record("HKQuantityTypeIdentifierStepCount", value: "812",
                                              start: "2024-12-08 15:10:00 +0000", end: "2024-12-08 15:20:00 +0000")
            + workout(activity: "HKWorkoutActivityTypeRunning", start: "2024-12-08 15:07:56 +0000",
                      end: "2024-12-08 17:07:56 +0000", minutes: 120, route: Export.runFile)
            + workout(activity: "HKWorkoutActivityTypeWalking", start: "2024-12-09 07:30:00 +0000",
                      end: "2024-12-09 07:40:00 +0000", minutes: 10, route: Export.walkFile)
            + extraBody
        return Export(xml: HealthExportFixture.document(.v14, body: body),
                      files: [(Export.runFile, run.text), (Export.walkFile, walk.text),
                              (Export.englishFile, english.text), (Export.germanFile, german.text)],
                      run: run.points, walk: walk.points, english: english.microvolts, german: german.microvolts)
    }

    /// Writes `entries` (paths relative to `folder`) as files, the way an unzipped export lies on disk.
    static func writeFolder(_ entries: [(String, String)], in folder: URL) throws {
        for (path, text) in entries {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
    }
}
