import Foundation
import StepSyncCore
import Testing
@testable import StepSyncImport

/// Workout routes as the Health app exports them (GPX 1.1 with Apple's extensions) and as older exports did.
@Suite("GPX route reader")
struct GPXRouteTests {
    /// A route shaped like Apple's: declaration, namespaces, metadata, one track, a point a second with extensions.
    static func appleRoute(points: Int, extensions: Bool = true) -> (bytes: [UInt8], expected: [GPXRoute.Point]) {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
             <metadata>
              <time>2024-12-08T16:00:00Z</time>
             </metadata>
             <trk>
              <name>Route 2024-12-08 3:07pm</name>
              <trkseg>

            """
        let start = ISO8601Millis.parse("2024-12-08T15:07:56.000Z")!
        var expected: [GPXRoute.Point] = []
        for k in 0..<points {
            let lat = 40.154135 + Double(k) * 0.00001, lon = -8.865413 - Double(k) * 0.00002
            let ele = 22.0 + Double(k % 7), speed = 1.52 + Double(k % 5) / 10, course = Double(k % 360) + 0.5
            let ms = start + Int64(k) * 1000
            let time = ISO8601Millis.format(ms).replacingOccurrences(of: ".000Z", with: "Z")
            text += "   <trkpt lon=\"\(lon)\" lat=\"\(lat)\"><ele>\(ele)</ele><time>\(time)</time>"
            if extensions {
                text += "<extensions><speed>\(speed)</speed><course>\(course)</course><hAcc>3.6</hAcc><vAcc>1.6</vAcc></extensions>"
            }
            text += "</trkpt>\n"
            expected.append(GPXRoute.Point(timeMs: ms, latitude: lat, longitude: lon, elevation: ele,
                                           speed: extensions ? speed : nil, course: extensions ? course : nil,
                                           horizontalAccuracy: extensions ? 3.6 : nil,
                                           verticalAccuracy: extensions ? 1.6 : nil))
        }
        text += "  </trkseg>\n </trk>\n</gpx>\n"
        return (Array(text.utf8), expected)
    }

    @Test("a two-hour run: 7,200 points with Apple's extensions, every coordinate and elevation in order")
    func twoHourRun() throws {
        let (bytes, expected) = Self.appleRoute(points: 7_200)
        let route = try GPXRoute.parse(bytes)
        #expect(route.name == "Route 2024-12-08 3:07pm")
        #expect(route.points.count == 7_200)
        #expect(route.points == expected)
    }

    @Test("an older export without extensions; several segments; comments, CDATA and unknown elements ignored")
    func shapes() throws {
        let (bytes, expected) = Self.appleRoute(points: 3, extensions: false)
        #expect(try GPXRoute.parse(bytes).points == expected)
        let text = """
            <gpx><!-- a comment --><trk><name><![CDATA[Morning & run]]></name><trkseg>
            <trkpt lat="1" lon="2"><time>2020-01-01T07:30:00.5Z</time><hdop>3</hdop></trkpt></trkseg>
            <trkseg><trkpt lat='1.5' lon='2.5'><time>2020-01-01T08:30:00+01:00</time><ele>-3.25</ele></trkpt>
            </trkseg></trk></gpx>
            """
        let route = try GPXRoute.parse(Array(text.utf8))
        #expect(route.name == "Morning & run")
        #expect(route.points.map(\.timeMs) == [ISO8601Millis.parse("2020-01-01T07:30:00.500Z")!,
                                               ISO8601Millis.parse("2020-01-01T07:30:00.000Z")!])
        #expect(route.points.map(\.latitude) == [1, 1.5] && route.points[1].elevation == -3.25)
    }

    @Test("a damaged route is refused naming the line", arguments: [
        ("<gpx><trk><trkseg>\n<trkpt lat=\"91\" lon=\"0\"><time>2020-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>", "line 2 has a <trkpt> without a latitude"),
        ("<gpx>\n<trkpt lat=\"1\" lon=\"x\"><time>2020-01-01T00:00:00Z</time></trkpt></gpx>", "longitude"),
        ("<gpx>\n\n<trkpt lat=\"1\" lon=\"1\"><ele>1</ele></trkpt></gpx>", "line 3 has a <trkpt> without a <time>"),
        ("<gpx><trkpt lat=\"1\" lon=\"1\"><time>yesterday</time></trkpt></gpx>", "not an ISO-8601 instant"),
        ("<gpx><trkpt lat=\"1\" lon=\"1\"><time>2020-02-30T00:00:00Z</time></trkpt></gpx>", "not an ISO-8601 instant"),
        ("<gpx><trkpt lat=\"1\" lon=\"1\"><ele>high</ele><time>2020-01-01T00:00:00Z</time></trkpt></gpx>", "not a number"),
        ("<gpx><trkpt lat=\"1\" lon=\"1\"><time>2020-01-01T00:00:00Z</time>", "ends inside a <trkpt>"),
        ("<gpx><trkpt lat=\"1\" lon=\"1\"", "never ends"),
        ("<html><body>not a route</body></html>", "not GPX"),
    ])
    func damaged(text: String, expected: String) {
        #expect {
            try GPXRoute.parse(Array(text.utf8))
        } throws: { error in
            "\(error)".contains(expected)
        }
    }
}
