/// A workout route as a GeoJSON Feature (RFC 7946; `application/geo+json`), the answer of a sink's
/// `GET /workouts/{uuid}/route`:
///
/// ```json
/// {"type":"Feature",
///  "geometry":{"type":"LineString","coordinates":[[13.404954,52.520008,34.5],[13.404947,52.520021],…]},
///  "properties":{"workout":"UUID","file":"/workout-routes/route_2025-06-01_7.05pm.gpx","points":7200,
///   "times":["2025-06-01T17:05:00.000Z",…],"speeds":[2.87,…],"courses":[0.25,…],
///   "horizontalAccuracies":[3.1,null,…],"verticalAccuracies":[2.4,null,…],"complete":true,"missingParts":[]}}
/// ```
///
/// A position is `[lon, lat, ele]`, or `[lon, lat]` for a point without elevation; the property arrays run
/// parallel to the coordinates (`null` where a point lacks the value). A route of one point is a `Point` geometry
/// (`"coordinates":[lon,lat,ele]`): RFC 7946 §3.1.4 wants two or more positions in a LineString, and GeoJSON
/// readers (GDAL, shapely) refuse one. Numbers are written as
/// ``JSONBytes`` writes them: the shortest text that reads back as the same double.
public enum RouteGeoJSON {
    /// The media type of the answer.
    public static let contentType = "application/geo+json"

    /// The Feature of `route`, as UTF-8 JSON.
    public static func feature(_ route: AssembledRoute) -> [UInt8] {
        let points = route.points
        var out: [UInt8] = []
        out.reserveCapacity(256 + points.count * 150)
        func position(_ p: RoutePoint) {
            out.append(UInt8(ascii: "["))
            JSONBytes.appendNumber(p.longitude, to: &out)
            out.append(UInt8(ascii: ","))
            JSONBytes.appendNumber(p.latitude, to: &out)
            if let elevation = p.elevation {
                out.append(UInt8(ascii: ","))
                JSONBytes.appendNumber(elevation, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        if points.count == 1 {
            out.append(contentsOf: #"{"type":"Feature","geometry":{"type":"Point","coordinates":"#.utf8)
            position(points[0])
        } else {
            out.append(contentsOf: #"{"type":"Feature","geometry":{"type":"LineString","coordinates":["#.utf8)
            for (i, p) in points.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                position(p)
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(contentsOf: #"},"properties":{"#.utf8)
        JSONBytes.member("workout", string: route.workout.uuidString, to: &out)
        JSONBytes.separator(&out)
        JSONBytes.key("file", to: &out)
        if let file = route.file { JSONBytes.appendString(file, to: &out) } else { out.append(contentsOf: "null".utf8) }
        JSONBytes.separator(&out)
        JSONBytes.key("points", to: &out)
        JSONBytes.appendInteger(Int64(points.count), to: &out)
        JSONBytes.separator(&out)
        JSONBytes.key("times", to: &out)
        out.append(UInt8(ascii: "["))
        for (i, p) in points.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: ISO8601Millis.format(p.timeMs).utf8)
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "]"))
        SeriesDetails.numbers("speeds", points.lazy.map(\.speed), to: &out)
        SeriesDetails.numbers("courses", points.lazy.map(\.course), to: &out)
        SeriesDetails.numbers("horizontalAccuracies", points.lazy.map(\.horizontalAccuracy), to: &out)
        SeriesDetails.numbers("verticalAccuracies", points.lazy.map(\.verticalAccuracy), to: &out)
        JSONBytes.separator(&out)
        JSONBytes.key("complete", to: &out)
        out.append(contentsOf: (route.complete ? "true" : "false").utf8)
        JSONBytes.separator(&out)
        JSONBytes.key("missingParts", to: &out)
        out.append(UInt8(ascii: "["))
        for (i, index) in route.missingParts.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONBytes.appendInteger(Int64(index), to: &out)
        }
        out.append(contentsOf: "]}}".utf8)
        return out
    }
}
