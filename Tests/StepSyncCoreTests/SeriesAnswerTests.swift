import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import StepSyncTestSupport
import Testing
@testable import StepSyncCore

/// The sink's series answers built from parts: a route put back together (GeoJSON, GPX) and ECG recordings.
@Suite struct SeriesAnswerTests {
    static let workout = UUID(uuidString: "0E1F6A52-3C3B-4F0D-9A8B-7C6D5E4F3A21")!
    static let file = "/workout-routes/route_2025-06-01_7.05pm.gpx"

    /// A two-hour run (SeriesPartTests' shape): every 97th point without elevation or accuracies, some times with
    /// milliseconds.
    static func run(points: Int = 7_200) -> [RoutePoint] {
        (0..<points).map { i in
            let missing = i % 97 == 0
            return RoutePoint(timeMs: 1_748_797_500_000 + Int64(i) * 1000 + (i % 50 == 0 ? 250 : 0),
                              latitude: 52.520008 + Double(i) * 1.3e-5, longitude: 13.404954 - Double(i) * 7.1e-6,
                              elevation: missing ? nil : 34.5 + Double(i % 40) / 10, speed: 2.87 + Double(i % 13) / 100,
                              course: missing ? nil : Double(i % 360) + 0.25, horizontalAccuracy: missing ? nil : 3.1,
                              verticalAccuracy: missing ? nil : 2.4)
        }
    }

    static func parts(_ points: [RoutePoint] = run()) -> [RoutePart] {
        RoutePart.split(points, workout: workout, file: file)
    }

    @Test("a route's parts in any order, repeated, or with another workout's, assemble to its points in order")
    func assemblesInOrder() throws {
        let points = Self.run()
        let parts = Self.parts(points)
        #expect(parts.count >= 4)
        var rng = SplitMix64(seed: 7)
        let stranger = RoutePart.split(Self.run(points: 50), workout: UUID(), file: nil)
        let others = (Array(parts.dropFirst()) + [parts[2]] + stranger).shuffled(using: &rng)
        let route = AssembledRoute(first: parts[0], others: others)
        #expect(route.points == points)
        #expect(route.complete && route.missingParts.isEmpty)
        #expect(route.partCount == parts.count && route.workout == Self.workout && route.file == Self.file)
        #expect(AssembledRoute.otherPartUUIDs(owner: Self.workout, count: parts.count) == parts.dropFirst().map(\.uuid))
        #expect(AssembledRoute.otherPartUUIDs(owner: Self.workout, count: 1).isEmpty)
    }

    @Test("a part not there yet is listed as missing and its points are absent")
    func missingPart() {
        let parts = Self.parts()
        let route = AssembledRoute(first: parts[0], others: parts.enumerated().filter { $0.offset != 0 && $0.offset != 2 }.map(\.element))
        #expect(!route.complete)
        #expect(route.missingParts == [2])
        #expect(route.points == parts.enumerated().filter { $0.offset != 2 }.flatMap(\.element.points))
        let alone = AssembledRoute(first: parts[0], others: [])
        #expect(alone.missingParts == Array(1..<parts.count))
    }

    @Test("GeoJSON: a Feature whose LineString and parallel properties hold every point exactly")
    func geoJSON() throws {
        let points = Self.run()
        let parts = Self.parts(points)
        let bytes = RouteGeoJSON.feature(AssembledRoute(first: parts[0], others: Array(parts.dropFirst())))
        // JSONDecoder reads the numbers exactly (Foundation's JSONSerialization on Linux goes through
        // NSDecimalNumber and can be an ulp off).
        let feature = try JSONDecoder().decode(RouteFeatureBody.self, from: Data(bytes))
        #expect(feature.type == "Feature" && feature.geometry.type == "LineString")
        #expect(feature.geometry.coordinates == points.map { p in [p.longitude, p.latitude] + (p.elevation.map { [$0] } ?? []) })
        #expect(feature.geometry.coordinates[0].count == 2 && feature.geometry.coordinates[1].count == 3)
        let properties = feature.properties
        #expect(properties.workout == Self.workout.uuidString && properties.file == Self.file)
        #expect(properties.points == 7_200)
        #expect(properties.times == points.map { ISO8601Millis.format($0.timeMs) })
        #expect(properties.speeds == points.map(\.speed) && properties.courses == points.map(\.course))
        #expect(properties.horizontalAccuracies == points.map(\.horizontalAccuracy))
        #expect(properties.verticalAccuracies == points.map(\.verticalAccuracy))
        #expect(properties.complete && properties.missingParts == [])

        let partial = RouteGeoJSON.feature(AssembledRoute(first: parts[0], others: [parts[1]]))
        let partialJSON = try #require(try JSONSerialization.jsonObject(with: Data(partial)) as? [String: Any])
        let partialProperties = try #require(partialJSON["properties"] as? [String: Any])
        #expect(partialProperties["complete"] as? Bool == false)
        #expect(partialProperties["missingParts"] as? [Int] == Array(2..<parts.count))
        #expect(partialProperties["points"] as? Int == parts[0].points.count + parts[1].points.count)
    }

    @Test("GeoJSON: a route of one point is a Point geometry (a LineString needs two positions), two points a LineString")
    func onePointRoute() throws {
        let first = RoutePoint(timeMs: 1_733_670_476_000, latitude: 40.154135, longitude: -8.865413, elevation: 22)
        let second = RoutePoint(timeMs: 1_733_670_477_000, latitude: 40.15414, longitude: -8.86542)
        func geometry(_ points: [RoutePoint]) throws -> [String: Any] {
            let route = AssembledRoute(first: RoutePart(workout: Self.workout, index: 0, count: 1, file: nil, points: points),
                                       others: [])
            let feature = try #require(try JSONSerialization.jsonObject(with: Data(RouteGeoJSON.feature(route))) as? [String: Any])
            #expect((feature["properties"] as? [String: Any])?["points"] as? Int == points.count)
            return try #require(feature["geometry"] as? [String: Any])
        }
        let one = try geometry([first])
        #expect(one["type"] as? String == "Point")
        #expect(one["coordinates"] as? [Double] == [-8.865413, 40.154135, 22])
        let two = try geometry([first, second])
        #expect(two["type"] as? String == "LineString")
        #expect(two["coordinates"] as? [[Double]] == [[-8.865413, 40.154135, 22], [-8.86542, 40.15414]])
    }

    @Test("GPX: well-formed XML, a trkpt per point with lon, lat, ele, time and Apple's extensions")
    func gpx() throws {
        let points = Self.run(points: 300)
        let parts = Self.parts(points)
        let bytes = RouteGPX.document(AssembledRoute(first: parts[0], others: Array(parts.dropFirst())))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"# + "\n" + #"<gpx version="1.1" creator="stepsync""#))
        #expect(text.contains("<name>route_2025-06-01_7.05pm</name>"))
        #expect(text.contains("<metadata>\n  <time>2025-06-01T17:05:00.250Z</time>"))
        // Whole seconds as Apple writes them (lon first); a point without extensions (an older export) has none.
        let two = AssembledRoute(first: RoutePart(workout: Self.workout, index: 0, count: 1, file: nil, points: [
            RoutePoint(timeMs: 1_733_670_476_000, latitude: 40.154135, longitude: -8.865413, elevation: 22,
                       speed: 1.52, course: 180.5, horizontalAccuracy: 3.6, verticalAccuracy: 1.6),
            RoutePoint(timeMs: 1_733_670_477_500, latitude: 40.15414, longitude: -8.86542),
        ]), others: [])
        #expect(String(decoding: RouteGPX.document(two), as: UTF8.self).hasSuffix("""
              <trkseg>
               <trkpt lon="-8.865413" lat="40.154135"><ele>22</ele><time>2024-12-08T15:07:56Z</time>\
            <extensions><speed>1.52</speed><course>180.5</course><hAcc>3.6</hAcc><vAcc>1.6</vAcc></extensions></trkpt>
               <trkpt lon="-8.86542" lat="40.15414"><time>2024-12-08T15:07:57.500Z</time></trkpt>
              </trkseg>
             </trk>
            </gpx>

            """))
        let reader = TrackPointReader()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = reader
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(reader.points.count == points.count)
        for (read, point) in zip(reader.points, points) {
            #expect(read["lat"].flatMap(Double.init) == point.latitude && read["lon"].flatMap(Double.init) == point.longitude)
            #expect(read["ele"].flatMap(Double.init) == point.elevation)
            #expect(read["speed"].flatMap(Double.init) == point.speed && read["course"].flatMap(Double.init) == point.course)
            #expect(read["hAcc"].flatMap(Double.init) == point.horizontalAccuracy)
            #expect(read["vAcc"].flatMap(Double.init) == point.verticalAccuracy)
            let time = try #require(read["time"])
            #expect(ISO8601Millis.parse(time.hasSuffix(".250Z") ? time : time.replacingOccurrences(of: "Z", with: ".000Z")) == point.timeMs)
        }
    }

    @Test("GPX numbers are plain decimals (xsd:decimal) that read back as the same double", arguments: [
        (3e-05, "0.00003"), (-1.5e-07, "-0.00000015"), (1e+20, "100000000000000000000"), (52.520008, "52.520008"),
        (-8.865413, "-8.865413"), (0, "0"), (12, "12"), (1.2345e+16, "12345000000000000"), (0.5, "0.5"),
    ])
    func decimals(value: Double, text: String) {
        var out: [UInt8] = []
        RouteGPX.appendDecimal(value, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == text)
        #expect(Double(text) == value)
    }

    @Test("the track's name is the file's, escaped; without a file, the workout's uuid")
    func trackName() {
        var route = AssembledRoute(first: RoutePart(workout: Self.workout, index: 0, count: 1, file: "/r/a&b<c>.gpx",
                                                    points: [RoutePoint(timeMs: 0, latitude: 1, longitude: 2)]),
                                   others: [])
        #expect(String(decoding: RouteGPX.document(route), as: UTF8.self).contains("<name>a&amp;b&lt;c&gt;</name>"))
        route.file = nil
        #expect(RouteGPX.trackName(route) == "Route \(Self.workout.uuidString)")
    }

    // MARK: - ECG

    static func header(recordedMs: Int64 = 1_749_110_820_000, classification: String? = "Sinusrhythmus") -> ElectrocardiogramHeader {
        ElectrocardiogramHeader(recordedMs: recordedMs, utcOffsetSeconds: 7200, classification: classification,
                                symptoms: nil, softwareVersion: "1.70", device: "Watch6,2", sampleRateHz: 512,
                                lead: "Lead I", unit: "µV", voltageCount: 15_360)
    }

    static func voltages() -> [Double] {
        (0..<15_360).map { i in (sin(Double(i) / 40) * 900 * 1000).rounded() / 1000 - 265.868 }
    }

    @Test("an ECG's parts assemble to its 15,360 voltages; a missing part is listed")
    func electrocardiogram() throws {
        let voltages = Self.voltages()
        let parts = ElectrocardiogramPart.split(voltages, header: Self.header())
        #expect(parts.count >= 2)
        let whole = AssembledElectrocardiogram(first: parts[0], others: Array(parts.dropFirst().reversed()))
        #expect(whole.microvolts == voltages && whole.complete && whole.header == Self.header())
        #expect(AssembledElectrocardiogram.otherPartUUIDs(owner: parts[0].recording, count: parts.count)
                == parts.dropFirst().map(\.uuid))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(ElectrocardiogramAnswer.recording(whole))) as? [String: Any])
        #expect(json["uuid"] as? String == parts[0].recording.uuidString)
        #expect(json["start"] as? String == "2025-06-05T08:07:00.000Z")
        #expect(json["end"] as? String == "2025-06-05T08:07:30.000Z")
        #expect(json["utcOffsetSeconds"] as? Int == 7200)
        #expect(json["classification"] as? String == "Sinusrhythmus")
        #expect(json["symptoms"] is NSNull)
        #expect(json["softwareVersion"] as? String == "1.70" && json["device"] as? String == "Watch6,2")
        #expect(json["sampleRateHz"] as? Double == 512 && json["lead"] as? String == "Lead I" && json["unit"] as? String == "µV")
        #expect(json["samples"] as? Int == 15_360 && json["complete"] as? Bool == true)
        #expect(try JSONDecoder().decode(MicrovoltsBody.self, from: Data(ElectrocardiogramAnswer.recording(whole))).microvolts
                == voltages)

        let partial = AssembledElectrocardiogram(first: parts[0], others: [])
        #expect(partial.missingParts == Array(1..<parts.count) && partial.microvolts == parts[0].microvolts)
    }

    @Test("a list of recordings: summaries from part 0 read without voltages, in start order; other parts are not summaries")
    func list() throws {
        let late = ElectrocardiogramPart.split(Self.voltages(), header: Self.header(recordedMs: 1_749_210_820_000,
                                                                                    classification: "Sinus Rhythm"))
        let early = ElectrocardiogramPart.split(Self.voltages(), header: Self.header())
        let summaries = [late[0], early[0]].compactMap { ElectrocardiogramAnswer.Summary(partZeroDetails: $0.detailsJSON) }
        #expect(summaries.map(\.recording) == [late[0].recording, early[0].recording])
        #expect(summaries[1].header == Self.header())
        #expect(ElectrocardiogramAnswer.Summary(partZeroDetails: early[1].detailsJSON) == nil)
        #expect(ElectrocardiogramAnswer.Summary(partZeroDetails: #"{"recording":"x"}"#) == nil)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(ElectrocardiogramAnswer.list(summaries))) as? [String: Any])
        let items = try #require(json["electrocardiograms"] as? [[String: Any]])
        #expect(items.map { $0["uuid"] as? String } == [early[0].recording.uuidString, late[0].recording.uuidString])
        #expect(items.map { $0["classification"] as? String } == ["Sinusrhythmus", "Sinus Rhythm"])
        #expect(items.allSatisfy { $0["microvolts"] == nil && $0["samples"] as? Int == 15_360 })
    }

    @Test("a stored header whose count and rate put the end past 9999 answers the last instant, not a trap")
    func hostileHeader() {
        var header = Self.header()
        header.voltageCount = Int.max
        header.sampleRateHz = 1e-300
        #expect(ElectrocardiogramAnswer.end(of: header) == Instants.max)
        header.voltageCount = 0
        #expect(ElectrocardiogramAnswer.end(of: header) == header.recordedMs)
    }
}

/// Collects each `<trkpt>`'s attributes and leaf texts.
private final class TrackPointReader: NSObject, XMLParserDelegate {
    var points: [[String: String]] = []
    private var current: [String: String]?
    private var text = ""

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if name == "trkpt" { current = attributes }
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "trkpt", let current {
            points.append(current)
            self.current = nil
        } else if current != nil, ["ele", "time", "speed", "course", "hAcc", "vAcc"].contains(name) {
            current?[name] = text
        }
    }
}
