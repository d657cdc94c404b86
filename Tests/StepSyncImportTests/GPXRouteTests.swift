import Foundation
import StepSyncCore
import Testing
@testable import StepSyncImport

/// Workout routes as the Health app exports them (GPX 1.1 with Apple's extensions) and as older exports did.
@Suite("GPX route reader")
struct GPXRouteTests {
    /// A route shaped like Apple's (``SeriesExportFixture/route(startMs:points:extensions:latitude:longitude:)``):
    /// declaration, namespaces, metadata, one track, a point a second (with extensions unless `extensions` is false).
    static func appleRoute(points: Int, extensions: Bool = true) -> (bytes: [UInt8], expected: [GPXRoute.Point]) {
        let route = SeriesExportFixture.route(startMs: ISO8601Millis.parse("2024-12-08T15:07:56.000Z")!, points: points,
                                              extensions: extensions)
        return (Array(route.text.utf8), route.points)
    }

    @Test("a two-hour run: 7,200 points with Apple's extensions, every coordinate and elevation in order")
    func twoHourRun() throws {
        let (bytes, expected) = Self.appleRoute(points: 7_200)
        let route = try GPXRoute.parse(bytes)
        #expect(route.name == "Route 2024-12-08T15:07:56Z")
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
