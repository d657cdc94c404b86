import Foundation

/// ``RouteGeoJSON``'s Feature written part by part, so that a sink streams a route without assembling it: the
/// positions go out as each part arrives (``append(_:to:)``); the per-point properties (`times`, `speeds`, `courses`,
/// the accuracies), which GeoJSON puts after the geometry, are kept in compact columns (an `Int64` and four `Double`s
/// a point, 40 bytes; never the parts' details or ``RoutePoint`` arrays) and written after the last part in chunks of
/// a bounded size (``nextChunk(into:maxBytes:)``). With ``SeriesLimits/maxAnswerPoints`` points at most, one answer
/// holds ≤ 8 MB of columns, whatever the storage holds.
///
/// The bytes are exactly ``RouteGeoJSON/feature(_:)``'s for the same points (it is written with this), plus
/// `"truncated"` at the end of the properties. The geometry is decided on the first two points: a route of one point
/// is a `Point`, so the first point is held until the second arrives or the route ends.
public struct RouteGeoJSONStream: Sendable {
    /// The workout.
    public let workout: UUID
    /// The route's file in the export, when known.
    public let file: String?
    /// The points appended so far.
    public private(set) var points = 0

    private var held: [RoutePoint] = []
    private var opened = false
    private var times: [Int64] = []
    /// `speed`, `course`, `hAcc`, `vAcc` per point; NaN for a point without the value (JSON has no NaN: none is real).
    private var columns: [[Double]] = [[], [], [], []]
    private var tail: Tail?
    /// The route's files in order (a workout's route may be several files) and each one's point count.
    private var segmentFiles: [String?] = []
    private var segmentPoints: [Int] = []

    private struct Tail: Sendable {
        var missingParts: [Int]
        var truncated: Bool
        /// -1: the geometry's end and the properties' head; 0…4: the arrays (`times`, then ``columnNames``);
        /// 5: `segments`; 6: the end.
        var section = -1
        var cursor = 0
        /// While writing `segments`: the index of the current segment's first point.
        var firstPoint = 0
    }

    private static let columnNames: [StaticString] = ["speeds", "courses", "horizontalAccuracies", "verticalAccuracies"]

    /// Starts the Feature of `workout`'s route (`file`: its export file, when known).
    public init(workout: UUID, file: String?) {
        self.workout = workout
        self.file = file
    }

    /// Appends the positions of the next part's points, from route file `file`: a file other than the previous
    /// part's starts a new entry of the `segments` property (one per file: its name, points, first and last instant).
    public mutating func append(_ newPoints: some Collection<RoutePoint>, file: String?, to out: inout [UInt8]) {
        if segmentFiles.isEmpty || segmentFiles[segmentFiles.count - 1] != file {
            segmentFiles.append(file)
            segmentPoints.append(0)
        }
        append(newPoints, to: &out)
    }

    /// Appends the positions of `newPoints` (the next part's, in order) to `out` and keeps their properties (in the
    /// current segment: the route's file given at ``init(workout:file:)`` when none was started).
    public mutating func append(_ newPoints: some Collection<RoutePoint>, to out: inout [UInt8]) {
        precondition(tail == nil, "append after finish")
        if segmentFiles.isEmpty {
            segmentFiles.append(file)
            segmentPoints.append(0)
        }
        segmentPoints[segmentPoints.count - 1] += newPoints.count
        times.reserveCapacity(times.count + newPoints.count)
        for p in newPoints {
            points += 1
            times.append(p.timeMs)
            columns[0].append(p.speed ?? .nan)
            columns[1].append(p.course ?? .nan)
            columns[2].append(p.horizontalAccuracy ?? .nan)
            columns[3].append(p.verticalAccuracy ?? .nan)
            if opened {
                out.append(UInt8(ascii: ","))
                Self.position(p, to: &out)
            } else if held.isEmpty {
                held.append(p)
            } else {
                out.append(contentsOf: #"{"type":"Feature","geometry":{"type":"LineString","coordinates":["#.utf8)
                Self.position(held[0], to: &out)
                out.append(UInt8(ascii: ","))
                Self.position(p, to: &out)
                held = []
                opened = true
            }
        }
    }

    /// Ends the points: the rest of the Feature is then pulled with ``nextChunk(into:maxBytes:)``. `missingParts`: the
    /// indices of the parts not present (or unreadable); `truncated`: whether points past
    /// ``SeriesLimits/maxAnswerPoints`` were left out.
    public mutating func finish(missingParts: [Int], truncated: Bool) {
        precondition(tail == nil, "finish twice")
        tail = Tail(missingParts: missingParts, truncated: truncated)
    }

    /// Appends the next bytes of the rest of the Feature to `out`, stopping once `out` holds `maxBytes` or more (a
    /// few hundred bytes past it at most); `false` when the Feature is complete (nothing more to pull).
    public mutating func nextChunk(into out: inout [UInt8], maxBytes: Int) -> Bool {
        guard var tail else { preconditionFailure("nextChunk before finish") }
        defer { self.tail = tail }
        while out.count < maxBytes {
            switch tail.section {
            case -1:
                writeGeometryEnd(to: &out)
                out.append(contentsOf: #"},"properties":{"#.utf8)
                JSONBytes.member("workout", string: workout.uuidString, to: &out)
                JSONBytes.separator(&out)
                JSONBytes.key("file", to: &out)
                if let file { JSONBytes.appendString(file, to: &out) } else { out.append(contentsOf: "null".utf8) }
                SeriesDetails.integer("points", Int64(points), to: &out)
                JSONBytes.separator(&out)
                JSONBytes.key("times", to: &out)
                out.append(UInt8(ascii: "["))
                (tail.section, tail.cursor) = (0, 0)
            case 0...4:
                let count = times.count
                while tail.cursor < count, out.count < maxBytes {
                    if tail.cursor > 0 { out.append(UInt8(ascii: ",")) }
                    if tail.section == 0 {
                        out.append(UInt8(ascii: "\""))
                        out.append(contentsOf: ISO8601Millis.format(times[tail.cursor]).utf8)
                        out.append(UInt8(ascii: "\""))
                    } else {
                        let value = columns[tail.section - 1][tail.cursor]
                        if value.isNaN { out.append(contentsOf: "null".utf8) } else { JSONBytes.appendNumber(value, to: &out) }
                    }
                    tail.cursor += 1
                }
                guard tail.cursor == count else { continue }
                out.append(UInt8(ascii: "]"))
                out.append(UInt8(ascii: ","))
                if tail.section < 4 {
                    JSONBytes.key(Self.columnNames[tail.section], to: &out)
                } else {
                    JSONBytes.key("segments", to: &out)
                }
                out.append(UInt8(ascii: "["))
                (tail.section, tail.cursor) = (tail.section + 1, 0)
            case 5:
                // One entry per route file, a few hundred bytes each: the chunk bound holds.
                while tail.cursor < segmentPoints.count, out.count < maxBytes {
                    let count = segmentPoints[tail.cursor]
                    if count > 0 {
                        if tail.firstPoint > 0 { out.append(UInt8(ascii: ",")) }
                        writeSegment(file: segmentFiles[tail.cursor], first: tail.firstPoint, count: count, to: &out)
                        tail.firstPoint += count
                    }
                    tail.cursor += 1
                }
                guard tail.cursor == segmentPoints.count else { continue }
                out.append(UInt8(ascii: "]"))
                (tail.section, tail.cursor) = (6, 0)
            case 6:
                // Explicit commas: `out` may have been emptied since the last byte (``JSONBytes/separator(_:)`` looks).
                out.append(UInt8(ascii: ","))
                JSONBytes.key("complete", to: &out)
                out.append(contentsOf: (tail.missingParts.isEmpty ? "true" : "false").utf8)
                JSONBytes.separator(&out)
                JSONBytes.key("missingParts", to: &out)
                out.append(UInt8(ascii: "["))
                for (i, index) in tail.missingParts.enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    JSONBytes.appendInteger(Int64(index), to: &out)
                }
                out.append(contentsOf: "],".utf8)
                JSONBytes.key("truncated", to: &out)
                out.append(contentsOf: (tail.truncated ? "true" : "false").utf8)
                out.append(contentsOf: "}}".utf8)
                tail.section = 7
                return false
            default:
                return false
            }
        }
        return tail.section < 7
    }

    /// One entry of `segments`: `{"file":…,"points":n,"start":"…","end":"…"}` (the points of segment k are the
    /// `points` after those of segments 0..<k; a gap between files is not a path).
    private func writeSegment(file: String?, first: Int, count: Int, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"file":"#.utf8)
        if let file { JSONBytes.appendString(file, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: #","points":"#.utf8)
        JSONBytes.appendInteger(Int64(count), to: &out)
        out.append(contentsOf: #","start":""#.utf8)
        out.append(contentsOf: ISO8601Millis.format(times[first]).utf8)
        out.append(contentsOf: #"","end":""#.utf8)
        out.append(contentsOf: ISO8601Millis.format(times[first + count - 1]).utf8)
        out.append(contentsOf: #""}"#.utf8)
    }

    /// The geometry's end: a `Point` for one point, an empty `LineString` for none, else the open array closed.
    private func writeGeometryEnd(to out: inout [UInt8]) {
        if opened {
            out.append(UInt8(ascii: "]"))
        } else if let only = held.first {
            out.append(contentsOf: #"{"type":"Feature","geometry":{"type":"Point","coordinates":"#.utf8)
            Self.position(only, to: &out)
        } else {
            out.append(contentsOf: #"{"type":"Feature","geometry":{"type":"LineString","coordinates":[]"#.utf8)
        }
    }

    /// `[lon,lat]` or `[lon,lat,ele]`.
    static func position(_ p: RoutePoint, to out: inout [UInt8]) {
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
}
