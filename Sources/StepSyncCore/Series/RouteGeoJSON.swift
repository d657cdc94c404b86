/// A workout route as a GeoJSON Feature (RFC 7946; `application/geo+json`), the answer of a sink's
/// `GET /workouts/{uuid}/route`:
///
/// ```json
/// {"type":"Feature",
///  "geometry":{"type":"LineString","coordinates":[[13.404954,52.520008,34.5],[13.404947,52.520021],…]},
///  "properties":{"workout":"UUID","file":"/workout-routes/route_2025-06-01_7.05pm.gpx","points":7200,
///   "times":["2025-06-01T17:05:00.000Z",…],"speeds":[2.87,…],"courses":[0.25,…],
///   "horizontalAccuracies":[3.1,null,…],"verticalAccuracies":[2.4,null,…],"complete":true,"missingParts":[],
///   "truncated":false}}
/// ```
///
/// A position is `[lon, lat, ele]`, or `[lon, lat]` for a point without elevation; the property arrays run
/// parallel to the coordinates (`null` where a point lacks the value). A route of one point is a `Point` geometry
/// (`"coordinates":[lon,lat,ele]`): RFC 7946 §3.1.4 wants two or more positions in a LineString, and GeoJSON
/// readers (GDAL, shapely) refuse one. Numbers are written as
/// ``JSONBytes`` writes them: the shortest text that reads back as the same double. `truncated` is true when the route
/// has more than ``SeriesLimits/maxAnswerPoints`` points: the answer then holds the first ones only.
public enum RouteGeoJSON {
    /// The media type of the answer.
    public static let contentType = "application/geo+json"

    /// The Feature of `route`, as UTF-8 JSON (``RouteGeoJSONStream`` over all its points at once; a sink streams it).
    public static func feature(_ route: AssembledRoute, truncated: Bool = false) -> [UInt8] {
        var stream = RouteGeoJSONStream(workout: route.workout, file: route.file)
        var out: [UInt8] = []
        out.reserveCapacity(256 + route.points.count * 150)
        stream.append(route.points, to: &out)
        stream.finish(missingParts: route.missingParts, truncated: truncated)
        while stream.nextChunk(into: &out, maxBytes: .max) {}
        return out
    }
}
