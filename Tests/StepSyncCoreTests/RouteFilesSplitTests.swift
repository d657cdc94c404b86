import Foundation
import StepSyncCore
import Testing

/// Issue 32.6 in the core: a workout's route files cut into one index space, in time order, whatever order they are
/// named in; one file gives exactly the parts it gave before; the GeoJSON stream names a segment per file.
@Suite("a workout's route of several files")
struct RouteFilesSplitTests {
    static let workout = UUID(uuidString: "0E1F6A52-3C3B-4F0D-9A8B-7C6D5E4F3A21")!

    static func points(from startMs: Int64, _ count: Int) -> [RoutePoint] {
        (0..<count).map { RoutePoint(timeMs: startMs + Int64($0) * 1000, latitude: 40, longitude: -8, elevation: 31.5) }
    }

    @Test("files in any order give the same parts: time order, one index space 0..<total, file kept per part")
    func oneIndexSpace() throws {
        let files: [(file: String?, points: [RoutePoint])] = [
            ("/workout-routes/c.gpx", Self.points(from: 3_000_000, 5_000)),
            ("/workout-routes/a.gpx", Self.points(from: 2_000_000, 40)),
            ("/workout-routes/empty.gpx", []),
            ("/workout-routes/b.gpx", Self.points(from: 1_000_000, 30)),
        ]
        let parts = RoutePart.split(files: files, workout: Self.workout, maxDetailsBytes: 20_000)
        #expect(parts.count >= 4)
        #expect(parts.map(\.index) == Array(0..<parts.count))
        #expect(parts.allSatisfy { $0.count == parts.count && $0.workout == Self.workout })
        #expect(parts[0].file == "/workout-routes/b.gpx" && parts[1].file == "/workout-routes/a.gpx")
        #expect(parts.dropFirst(2).allSatisfy { $0.file == "/workout-routes/c.gpx" })
        #expect(parts.flatMap(\.points).map(\.timeMs)
                == (Self.points(from: 1_000_000, 30) + Self.points(from: 2_000_000, 40) + Self.points(from: 3_000_000, 5_000)).map(\.timeMs))
        let reordered = RoutePart.split(files: files.reversed(), workout: Self.workout, maxDetailsBytes: 20_000)
        #expect(reordered == parts && reordered.map(\.uuid) == parts.map(\.uuid))
        // Each part reads back from its details with its file.
        for part in parts { #expect(try RoutePart(details: part.detailsJSON) == part) }
        // One file: exactly the parts of the one-file split (routes stored before read the same).
        let one = Self.points(from: 3_000_000, 5_000)
        #expect(RoutePart.split(files: [("/workout-routes/c.gpx", one)], workout: Self.workout)
                == RoutePart.split(one, workout: Self.workout, file: "/workout-routes/c.gpx"))
    }

    @Test("the GeoJSON stream writes a segment per file: file, points, first and last instant")
    func segments() throws {
        var stream = RouteGeoJSONStream(workout: Self.workout, file: "/a.gpx")
        var out: [UInt8] = []
        stream.append(Self.points(from: 1_000_000, 3), file: "/a.gpx", to: &out)
        stream.append(Self.points(from: 1_003_000, 2), file: "/a.gpx", to: &out)
        stream.append(Self.points(from: 2_000_000, 4), file: "/b.gpx", to: &out)
        stream.finish(missingParts: [], truncated: false)
        while stream.nextChunk(into: &out, maxBytes: 1 << 20) {}
        let json = try #require(try JSONSerialization.jsonObject(with: Data(out)) as? [String: Any])
        let properties = try #require(json["properties"] as? [String: Any])
        let segments = try #require(properties["segments"] as? [[String: Any]])
        #expect(segments.map { $0["file"] as? String } == ["/a.gpx", "/b.gpx"])
        #expect(segments.map { $0["points"] as? Int } == [5, 4])
        #expect(segments.map { $0["start"] as? String } == [ISO8601Millis.format(1_000_000), ISO8601Millis.format(2_000_000)])
        #expect(segments.map { $0["end"] as? String } == [ISO8601Millis.format(1_004_000), ISO8601Millis.format(2_003_000)])
        #expect((properties["times"] as? [String])?.count == 9)
    }
}
