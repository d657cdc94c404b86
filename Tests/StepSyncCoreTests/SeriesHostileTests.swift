import Foundation
import StepSyncCore
import Testing

/// Issue 31 in the core: a series part's reader checks every member (no trap from any details), the door's check
/// (``SeriesValidation``) names the field, instants format without overflow, and the streamed answers are the same
/// bytes as the whole ones.
@Suite("series parts against hostile details")
struct SeriesHostileTests {
    static let recording = UUID(uuidString: "0E0E0E0E-0000-4000-8000-0000000000EC")!
    static let workout = UUID(uuidString: "0E0E0E0E-0000-4000-8000-0000000000A0")!

    static func ecgDetails(first: String = "0", key: String = "microvolts", voltages: String = "[1.5]",
                           count: String = "1", rate: String = "512", parts: String = "1") -> String {
        """
        {"recording":"\(recording.uuidString)","part":0,"parts":\(parts),"first":\(first),\
        "recorded":"2025-06-05T08:07:00.000Z","utcOffsetSeconds":7200,"sampleRateHz":\(rate),\
        "voltageCount":\(count),"\(key)":\(voltages)}
        """
    }

    static func routeDetails(time: String, lat: String = "[1]", lon: String = "[2]", part: String = "0",
                             parts: String = "1") -> String {
        #"{"workout":"\#(workout.uuidString)","part":\#(part),"parts":\#(parts),"time":\#(time),"lat":\#(lat),"lon":\#(lon)}"#
    }

    @Test("an ECG part's reader refuses out-of-range members by name, the key spelled with escapes too", arguments: [
        (ecgDetails(first: "9223372036854775807"), "first"),
        (ecgDetails(first: "9223372036854775807", key: #"micro\u0076olts"#), "first"),
        (ecgDetails(first: "-1"), "first"),
        (ecgDetails(voltages: "[1,2]"), "microvolts"),
        (ecgDetails(voltages: "[]"), "microvolts"),
        (ecgDetails(count: "9223372036854775807"), "voltageCount"),
        (ecgDetails(rate: "0.0000000000000000000001"), "sampleRateHz"),
        (ecgDetails(parts: "4097"), "parts"),
        (ecgDetails(parts: "0"), "parts"),
    ])
    func ecgRefusals(details: String, field: String) {
        #expect(throws: SeriesDetailsError.self) { try ElectrocardiogramPart(details: details) }
        do {
            _ = try ElectrocardiogramPart(details: details)
        } catch {
            #expect(error.field == field, "\(error)")
        }
        // The list reads part 0's header only (its voltages cut out first): every other member is checked there too.
        if field != "microvolts" { #expect(ElectrocardiogramAnswer.Summary(partZeroDetails: details) == nil) }
    }

    @Test("a route part's reader refuses out-of-range members by name", arguments: [
        (routeDetails(time: "[-9223372036854775808]"), "time"),
        (routeDetails(time: "[9223372036854775807]"), "time"),
        (routeDetails(time: "[]", lat: "[]", lon: "[]"), "time"),
        (routeDetails(time: "[0,1]", lat: "[1,2]"), "lon"),
        (routeDetails(time: "[0]", lat: "[91]"), "lat"),
        (routeDetails(time: "[0]", lon: "[-181]"), "lon"),
        (routeDetails(time: "[0]", part: "1"), "part"),
        (routeDetails(time: "[0]", parts: "9223372036854775807"), "parts"),
    ])
    func routeRefusals(details: String, field: String) {
        do {
            _ = try RoutePart(details: details)
            Issue.record("accepted \(details)")
        } catch {
            #expect(error.field == field, "\(error)")
        }
    }

    @Test("ISO8601Millis writes any Int64 without trapping, outside Instants as the nearest end")
    func instantsClamp() {
        #expect(ISO8601Millis.format(.min) == "0001-01-01T00:00:00.000Z")
        #expect(ISO8601Millis.format(.max) == "9999-12-31T23:59:59.999Z")
        #expect(ISO8601Millis.format(Instants.min - 1) == ISO8601Millis.format(Instants.min))
    }

    @Test("a voltage's instant stays in Instants whatever the rate and index")
    func voltageInstant() {
        let header = ElectrocardiogramHeader(recordedMs: Instants.max, utcOffsetSeconds: 0, sampleRateHz: 1e-22,
                                             voltageCount: 1)
        #expect(header.instant(ofVoltage: 1) == Instants.max)
        #expect(header.instant(ofVoltage: 0) == Instants.max)
        var low = header
        low.recordedMs = .min
        #expect(low.instant(ofVoltage: -5) == Instants.min)
    }

    @Test("SeriesValidation names the field: details' member, the value, the uuid, the size; a good part passes")
    func validation() throws {
        let points = (0..<3).map { RoutePoint(timeMs: 1_748_797_500_000 + Int64($0) * 1000, latitude: 1, longitude: 2) }
        let workoutSample = HealthSample(uuid: Self.workout, type: .workout, startMs: 0, endMs: 0, value: 0, unit: "s",
                                         sourceName: "W", sourceBundleId: "b")
        let good = try #require(RoutePart.split(points, workout: Self.workout, file: nil).first?.sample(of: workoutSample))
        #expect(SeriesValidation.problem(of: good) == nil)
        var wrongValue = good
        wrongValue.value = 4
        #expect(SeriesValidation.problem(of: wrongValue)?.field == "value")
        var wrongUUID = good
        wrongUUID.uuid = UUID()
        #expect(SeriesValidation.problem(of: wrongUUID)?.field == "uuid")
        var badTime = good
        badTime.details = Self.routeDetails(time: "[-9223372036854775808]")
        badTime.value = 1
        #expect(SeriesValidation.problem(of: badTime) == SampleProblem(.invalidDetails, field: "details.time",
                                                                       detail: try #require(Self.problem(badTime.details!))))
        var big = good
        big.details = Self.routeDetails(time: "[" + String(repeating: "0,", count: 29_000) + "0]")
        #expect(SeriesValidation.problem(of: big)?.field == "details")
        #expect(SeriesValidation.problem(of: makeSteps()) == nil)
    }

    static func problem(_ details: String) -> String? {
        do { _ = try RoutePart(details: details) } catch { return error.problem }
        return nil
    }

    func makeSteps() -> HealthSample {
        HealthSample(uuid: UUID(), type: .stepCount, startMs: 0, endMs: 0, value: 1, unit: "count", sourceName: "",
                     sourceBundleId: "")
    }

    @Test("POST /samples refuses an ECG part whose first is Int64.max with invalid_details naming details.first")
    func wireRefusal() throws {
        let details = Self.ecgDetails(first: "9223372036854775807", key: #"micro\u0076olts"#)
        let body = #"{"samples":[{"uuid":"\#(Self.recording.uuidString)","type":"HKDataTypeIdentifierElectrocardiogram","startDate":"2025-06-05T08:07:00.000Z","endDate":"2025-06-05T08:07:00.002Z","value":1,"unit":"count","sourceName":"ECG","sourceBundleId":"b","details":\#(details)}]}"#
        do {
            _ = try WireDecoder.decodeSamplesRequest(Array(body.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.kind == "invalid_details" && error.field == "details.first", "\(error)")
        }
    }

    @Test("the streamed GeoJSON, pulled in chunks of any size, is the whole Feature's bytes; one point is a Point, none an empty LineString")
    func streamedGeoJSON() throws {
        let points = (0..<500).map { (i: Int) -> RoutePoint in
            let elevation: Double? = i % 3 == 0 ? nil : 34.5
            let course: Double? = i % 7 == 0 ? nil : 90
            let latitude = 52 + Double(i) / 10_000
            return RoutePoint(timeMs: 1_748_797_500_000 + Int64(i) * 1000, latitude: latitude, longitude: 13,
                              elevation: elevation, speed: 2.5, course: course, horizontalAccuracy: 3,
                              verticalAccuracy: nil)
        }
        for count in [0, 1, 2, 500] {
            let route = AssembledRoute(first: RoutePart(workout: Self.workout, index: 0, count: 2, file: "/r.gpx",
                                                        points: Array(points.prefix(count))), others: [])
            let whole = RouteGeoJSON.feature(route)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(whole)) as? [String: Any])
            let geometry = try #require(object["geometry"] as? [String: Any])
            #expect(geometry["type"] as? String == (count == 1 ? "Point" : "LineString"))
            for chunk in [1, 7, 4096] {
                var stream = RouteGeoJSONStream(workout: Self.workout, file: "/r.gpx")
                var out: [UInt8] = []
                var all: [UInt8] = []
                for slice in stride(from: 0, to: count, by: 13) {
                    stream.append(points[slice..<min(count, slice + 13)], to: &out)
                }
                stream.finish(missingParts: [1], truncated: false)
                all += out
                out.removeAll()
                while stream.nextChunk(into: &out, maxBytes: chunk) {
                    #expect(out.count < chunk + 200)
                    all += out
                    out.removeAll()
                }
                all += out
                #expect(all == whole, "chunk \(chunk), \(count) points")
            }
        }
    }

    @Test("a GPX track name with U+FFFF, U+FFFE and C0 controls is written with U+FFFD instead")
    func gpxForbiddenCharacters() {
        let route = AssembledRoute(first: RoutePart(workout: Self.workout, index: 0, count: 1,
                                                    file: "/workout-routes/a\u{FFFF}b\u{1}c\u{FFFE}\td.gpx",
                                                    points: [RoutePoint(timeMs: 0, latitude: 1, longitude: 2)]),
                                   others: [])
        let text = String(decoding: RouteGPX.document(route), as: UTF8.self)
        #expect(text.contains("<name>a\u{FFFD}b\u{FFFD}c\u{FFFD}\td</name>"))
        #expect(!text.unicodeScalars.contains { $0.value == 0xFFFF || $0.value == 0xFFFE || $0.value == 1 })
    }
}
