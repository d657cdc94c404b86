import Foundation

/// The body of a sink's `GET /routes` (`Planning/series.md`): every stored route, a workout's or one no workout names
/// (a route file of a trimmed export, stored under ``RoutePart/orphanOwner(file:)``), in start order:
///
/// ```json
/// {"routes":[{"uuid":"…","workout":"…","file":"/workout-routes/route_….gpx","start":"2025-06-01T17:05:00.000Z",
///             "end":"2025-06-01T17:50:00.000Z","points":2301,"parts":3}]}
/// ```
///
/// `uuid` is the owner uuid the route is fetched with (`GET /workouts/{uuid}/route`); `workout` is the same uuid for a
/// workout's route and `null` for an orphan; `file` is the route's first file.
public enum RouteList {
    /// One route: read from its part 0, with the other parts' ends and point counts added.
    public struct Summary: Hashable, Sendable {
        /// The owner uuid (the workout's, or ``RoutePart/orphanOwner(file:)`` of the file).
        public var uuid: UUID
        /// Whether no workout names the route.
        public var isOrphan: Bool
        /// The route's first file.
        public var file: String?
        /// The first point's instant (ms since 1970).
        public var startMs: Int64
        /// The last point's instant among the parts present.
        public var endMs: Int64
        /// The points of the parts present.
        public var points: Int
        /// The parts the route has (part 0's `parts`).
        public var parts: Int

        /// The summary of part 0 alone; add the other parts with ``add(endMs:points:)``.
        public init(partZero: RoutePart) {
            uuid = partZero.workout
            isOrphan = partZero.isOrphan
            file = partZero.file
            startMs = partZero.points.first?.timeMs ?? 0
            endMs = partZero.points.map(\.timeMs).max() ?? startMs
            points = partZero.points.count
            parts = partZero.count
        }

        /// Adds another part present: its sample's end and value (its point count, checked at the door), clamped.
        public mutating func add(endMs: Int64, points: Double) {
            self.endMs = max(self.endMs, endMs)
            if points.isFinite, points >= 0, points <= Double(SeriesLimits.maxAnswerPoints * 1_000) {
                self.points += Int(points)
            }
        }
    }

    /// `{"routes":[…]}` of `summaries`, in start order (then uuid), whatever order they come in.
    public static func list(_ summaries: [Summary]) -> [UInt8] {
        let sorted = summaries.sorted { ($0.startMs, $0.uuid.uuidString) < ($1.startMs, $1.uuid.uuidString) }
        var out: [UInt8] = []
        out.reserveCapacity(16 + sorted.count * 220)
        out.append(contentsOf: #"{"routes":["#.utf8)
        for (i, s) in sorted.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"uuid":""#.utf8)
            out.append(contentsOf: s.uuid.uuidString.utf8)
            out.append(contentsOf: #"","workout":"#.utf8)
            if s.isOrphan {
                out.append(contentsOf: "null".utf8)
            } else {
                JSONBytes.appendString(s.uuid.uuidString, to: &out)
            }
            out.append(contentsOf: #","file":"#.utf8)
            if let file = s.file { JSONBytes.appendString(file, to: &out) } else { out.append(contentsOf: "null".utf8) }
            out.append(contentsOf: #","start":""#.utf8)
            out.append(contentsOf: ISO8601Millis.format(s.startMs).utf8)
            out.append(contentsOf: #"","end":""#.utf8)
            out.append(contentsOf: ISO8601Millis.format(s.endMs).utf8)
            out.append(contentsOf: #"","points":"#.utf8)
            JSONBytes.appendInteger(Int64(s.points), to: &out)
            out.append(contentsOf: #","parts":"#.utf8)
            JSONBytes.appendInteger(Int64(s.parts), to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }
}
