import Foundation

/// A run of a workout route's points: the unit in which routes are stored, layered, synced and de-duplicated.
///
/// A route (one GPX file, thousands of points) is cut into parts whose `details` stay under
/// ``SeriesLimits/maxPartDetailsBytes``; each part is one ``HealthSample`` of ``SampleType/workoutRoute``: uuid
/// ``uuid(workout:index:)``, start and end its first and last point's instants, value its point count (unit
/// `count`), source and device the workout's, and `details` (columnar, `null` where a point lacks a value):
///
/// ```json
/// {"workout":"UUID","part":0,"parts":3,"file":"/workout-routes/route_2025-06-01_7.05pm.gpx",
///  "time":[1748797500000,…],"lat":[…],"lon":[…],"ele":[…],"speed":[…],"course":[…],"hAcc":[…],"vAcc":[…]}
/// ```
///
/// The route of a workout is its parts `0..<parts` in order; their uuids follow from the workout's, so a sink finds
/// them by uuid and a re-import names them the same.
public struct RoutePart: Hashable, Sendable {
    /// The workout the route belongs to.
    public var workout: UUID
    /// The part's index (0-based).
    public var index: Int
    /// How many parts the route has.
    public var count: Int
    /// The route's file in the export (`/workout-routes/….gpx`), when known.
    public var file: String?
    /// The part's points, in the route's order.
    public var points: [RoutePoint]

    /// Creates a part.
    public init(workout: UUID, index: Int, count: Int, file: String?, points: [RoutePoint]) {
        self.workout = workout
        self.index = index
        self.count = count
        self.file = file
        self.points = points
    }

    /// The uuid of part `index` of `workout`'s route.
    public static func uuid(workout: UUID, index: Int) -> UUID {
        NameBasedUUID.v5(namespace: SeriesLimits.namespace, name: "route|\(workout.uuidString)|\(index)")
    }

    /// This part's uuid.
    public var uuid: UUID { Self.uuid(workout: workout, index: index) }

    /// The owner uuid of a route file no workout names (an export trimmed of its workouts): v5 of `route-file|<file>`
    /// in ``SeriesLimits/namespace`` (`file` as `/workout-routes/route_….gpx`), so a re-import names it the same and
    /// `GET /routes` tells such a route (its `workout` is `null`) from a workout's.
    public static func orphanOwner(file: String) -> UUID {
        NameBasedUUID.v5(namespace: SeriesLimits.namespace, name: "route-file|\(file)")
    }

    /// Whether this part belongs to a route no workout names (its owner is ``orphanOwner(file:)`` of its file).
    public var isOrphan: Bool { file.map { Self.orphanOwner(file: $0) == workout } ?? false }

    /// Cuts the route files one workout names into parts of **one** index space: the files (empty ones dropped) in
    /// time order — by their first point's instant, then by name, so a re-import derives the same order and uuids —
    /// each cut as ``split(_:workout:file:maxDetailsBytes:)`` does, then numbered `0..<total` with `count` the total.
    /// Every part keeps its `file`, so a reader starts a new segment where the file changes. One file gives exactly
    /// the parts ``split(_:workout:file:maxDetailsBytes:)`` gives (routes stored before read the same).
    public static func split(files: [(file: String?, points: [RoutePoint])], workout: UUID,
                             maxDetailsBytes: Int = SeriesLimits.maxPartDetailsBytes) -> [RoutePart] {
        let ordered = files.filter { !$0.points.isEmpty }.sorted { a, b in
            let (ta, tb) = (a.points[0].timeMs, b.points[0].timeMs)
            return ta != tb ? ta < tb : (a.file ?? "") < (b.file ?? "")
        }
        var parts = ordered.flatMap { split($0.points, workout: workout, file: $0.file, maxDetailsBytes: maxDetailsBytes) }
        for i in parts.indices {
            parts[i].index = i
            parts[i].count = parts.count
        }
        return parts
    }

    /// Cuts `points` (a whole route, in order) into parts whose details stay under `maxDetailsBytes`. An empty
    /// route has no parts.
    public static func split(_ points: [RoutePoint], workout: UUID, file: String?,
                             maxDetailsBytes: Int = SeriesLimits.maxPartDetailsBytes) -> [RoutePart] {
        // The fixed members: keys, uuid, indices (≤ 10 digits each) and the escaped file name (≤ 6 bytes a byte).
        let overhead = 200 + (file?.utf8.count ?? 0) * 6
        var parts: [[RoutePoint]] = []
        var current: [RoutePoint] = []
        var bytes = overhead
        var scratch: [UInt8] = []
        scratch.reserveCapacity(32)
        for point in points {
            let cost = Self.width(of: point, scratch: &scratch)
            if !current.isEmpty, bytes + cost > maxDetailsBytes {
                parts.append(current)
                current = []
                bytes = overhead
            }
            current.append(point)
            bytes += cost
        }
        if !current.isEmpty { parts.append(current) }
        return parts.enumerated().map {
            RoutePart(workout: workout, index: $0.offset, count: parts.count, file: file, points: $0.element)
        }
    }

    /// The bytes one point adds to the details (its eight values and their commas).
    private static func width(of p: RoutePoint, scratch: inout [UInt8]) -> Int {
        scratch.removeAll(keepingCapacity: true)
        JSONBytes.appendInteger(p.timeMs, to: &scratch)
        var total = scratch.count + 8
        total += SeriesDetails.width(p.latitude, scratch: &scratch) + SeriesDetails.width(p.longitude, scratch: &scratch)
        total += SeriesDetails.width(p.elevation, scratch: &scratch) + SeriesDetails.width(p.speed, scratch: &scratch)
        total += SeriesDetails.width(p.course, scratch: &scratch)
        total += SeriesDetails.width(p.horizontalAccuracy, scratch: &scratch)
        total += SeriesDetails.width(p.verticalAccuracy, scratch: &scratch)
        return total
    }

    /// The part's `details` JSON object.
    public var detailsJSON: String {
        var out = SeriesDetails.head("workout", workout, index: index, count: count, capacity: points.count * 80 + 256)
        if let file { JSONBytes.member("file", string: file, to: &out) }
        JSONBytes.separator(&out)
        JSONBytes.key("time", to: &out)
        out.append(UInt8(ascii: "["))
        for (i, p) in points.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONBytes.appendInteger(p.timeMs, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        SeriesDetails.numbers("lat", points.lazy.map { $0.latitude }, to: &out)
        SeriesDetails.numbers("lon", points.lazy.map { $0.longitude }, to: &out)
        SeriesDetails.numbers("ele", points.lazy.map { $0.elevation }, to: &out)
        SeriesDetails.numbers("speed", points.lazy.map { $0.speed }, to: &out)
        SeriesDetails.numbers("course", points.lazy.map { $0.course }, to: &out)
        SeriesDetails.numbers("hAcc", points.lazy.map { $0.horizontalAccuracy }, to: &out)
        SeriesDetails.numbers("vAcc", points.lazy.map { $0.verticalAccuracy }, to: &out)
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// The part as a sample of ``SampleType/workoutRoute`` with `workout`'s source, device and UTC offset (`workout`
    /// is the route's workout sample). `nil` for a part without points.
    public func sample(of workout: HealthSample) -> HealthSample? {
        guard let first = points.first, let last = points.last else { return nil }
        return HealthSample(
            uuid: uuid, type: .workoutRoute, startMs: first.timeMs, endMs: max(first.timeMs, last.timeMs),
            utcOffsetSeconds: workout.utcOffsetSeconds, value: Double(points.count), unit: "count",
            sourceName: workout.sourceName, sourceBundleId: workout.sourceBundleId,
            sourceVersion: workout.sourceVersion, deviceName: workout.deviceName, deviceModel: workout.deviceModel,
            details: detailsJSON)
    }

    /// Reads a part back from its `details`, checking every member: the one reader of a part, where it enters (the
    /// sink's `POST /samples`, the importer, through ``SeriesValidation``) and where it is read back (so a part
    /// stored before these checks, or written into a storage by hand, is refused here and never traps a reader).
    ///
    /// - Throws: ``SeriesDetailsError`` naming the member when the details are not a route part's: a key missing,
    ///   `parts` outside `1…`\ ``SeriesLimits/maxParts``, `part` outside `0..<parts`, no points, arrays of different
    ///   lengths, a time outside ``Instants``, a latitude outside −90…90 or a longitude outside −180…180.
    public init(details: String) throws(SeriesDetailsError) {
        let raw = try SeriesDetails.decode(Raw.self, from: details, what: "route part")
        guard (1...SeriesLimits.maxParts).contains(raw.parts) else {
            throw SeriesDetailsError(problem: "route part details: parts \(raw.parts) is outside 1…\(SeriesLimits.maxParts)",
                                     field: "parts")
        }
        guard (0..<raw.parts).contains(raw.part) else {
            throw SeriesDetailsError(problem: "route part details: part \(raw.part) is outside 0..<\(raw.parts)", field: "part")
        }
        let n = raw.time.count
        guard n > 0 else { throw SeriesDetailsError(problem: "route part details: time holds no points", field: "time") }
        for (name, array) in [("lat", raw.lat.count), ("lon", raw.lon.count), ("ele", raw.ele?.count ?? n),
                              ("speed", raw.speed?.count ?? n), ("course", raw.course?.count ?? n),
                              ("hAcc", raw.hAcc?.count ?? n), ("vAcc", raw.vAcc?.count ?? n)] where array != n {
            throw SeriesDetailsError(problem: "route part details: \(name) has \(array) values for \(n) times", field: name)
        }
        if let bad = raw.time.firstIndex(where: { !Instants.contains($0) }) {
            throw SeriesDetailsError(problem: "route part details: time[\(bad)] \(raw.time[bad]) is outside \(Instants.description)",
                                     field: "time")
        }
        if let bad = raw.lat.firstIndex(where: { !(-90...90).contains($0) }) {
            throw SeriesDetailsError(problem: "route part details: lat[\(bad)] \(raw.lat[bad]) is outside -90…90", field: "lat")
        }
        if let bad = raw.lon.firstIndex(where: { !(-180...180).contains($0) }) {
            throw SeriesDetailsError(problem: "route part details: lon[\(bad)] \(raw.lon[bad]) is outside -180…180", field: "lon")
        }
        self.init(workout: raw.workout, index: raw.part, count: raw.parts, file: raw.file, points: (0..<n).map { i in
            RoutePoint(timeMs: raw.time[i], latitude: raw.lat[i], longitude: raw.lon[i], elevation: raw.ele?[i],
                       speed: raw.speed?[i], course: raw.course?[i], horizontalAccuracy: raw.hAcc?[i],
                       verticalAccuracy: raw.vAcc?[i])
        })
    }

    private struct Raw: Decodable {
        var workout: UUID
        var part: Int
        var parts: Int
        var file: String?
        var time: [Int64]
        var lat: [Double]
        var lon: [Double]
        var ele: [Double?]?
        var speed: [Double?]?
        var course: [Double?]?
        var hAcc: [Double?]?
        var vAcc: [Double?]?
    }
}
