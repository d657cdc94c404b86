import Foundation
import StepSyncTestSupport
import Testing
@testable import StepSyncCore

/// The sink reads a Health Auto Export body a batch at a time (``HAEBodyMap``, ``HAEBodyCursor``): the batches
/// together are exactly the one reading of the whole body, and a body is refused whole before any batch.
@Suite("HAE bodies read a batch at a time")
struct HAEBatchReadingTests {
    /// A body with every shape: 40 step minutes from two sources (two bad), heart rate Min/Avg/Max, blood pressure,
    /// staged and summarized sleep, an unknown metric, two workouts (one with heart-rate points and a route) and
    /// arrays not stored.
    static let body: String = {
        var steps: [String] = []
        for m in 0..<40 {
            let source = m % 3 == 0 ? "Anna\u{2019}s\u{00A0}Apple Watch" : "Anna\u{2019}s iPhone"
            let qty = m == 7 ? "-1" : m == 9 ? "\"NaN\"" : String(m * 3)
            steps.append("{\"date\":\"2025-06-02 08:\(m < 10 ? "0" : "")\(m):00 +0200\",\"qty\":\(qty),\"source\":\"\(source)\"}")
        }
        return """
            {"data":{"metrics":[
              {"name":"step_count","units":"count","data":[\(steps.joined(separator: ","))]},
              {"data":[{"date":"2025-06-02 08:00:00 +0200","Min":58,"Avg":64.5,"Max":71},
                       {"date":"2025-06-02 08:01:00 +0200","Min":70,"Avg":70,"Max":70}],"units":"bpm","name":"heart_rate"},
              {"name":"blood_pressure","units":"mmHg","data":[{"date":"2025-06-02 07:30:00 +0200","systolic":121,"diastolic":79}]},
              {"name":"sleep_analysis","units":"hr","data":[
                {"date":"2025-06-02","sleepStart":"2025-06-01 23:10:00 +0200","core":3.5,"deep":1.25,"rem":1.5,"awake":0.25,"inBedStart":"2025-06-01 23:00:00 +0200","inBed":7},
                {"startDate":"2025-06-02 23:00:00 +0200","endDate":"2025-06-02 23:30:00 +0200","value":"Core"}]},
              {"name":"mystery_metric","units":"count","data":[{"date":"2025-06-02 09:00:00 +0200","qty":1}]},
              {"name":"empty_metric","data":[]}],
             "workouts":[{"id":"0D9D4A3E-2C4B-4F51-9C3A-6A1B2C3D4E5F","name":"Outdoor Run","start":"2025-06-02 07:00:00 +0200",
               "end":"2025-06-02 07:30:00 +0200","duration":1800,
               "heartRateData":[{"date":"2025-06-02 07:00:00 +0200","Min":120,"Avg":140,"Max":160}],
               "route":[{"latitude":52.5,"longitude":13.4,"timestamp":"2025-06-02 07:00:00 +0200"},
                        {"latitude":52.6,"longitude":13.5,"timestamp":"2025-06-02 07:10:00 +0200"}]},
               {"name":"Walking","start":"2025-06-02 18:00:00 +0200","end":"2025-06-02 18:40:00 +0200"}],
             "symptoms":[{},{}],"ecg":[{}]}}
            """
    }()

    /// Reads `text` in batches of `limit` (``HAETestBodies/batches(_:limit:aggregation:)``, the sink's loop).
    static func batches(_ text: String, limit: Int) throws -> (batches: [[HealthSample]], reading: HAEReading) {
        try HAETestBodies.batches(Array(text.utf8), limit: limit)
    }

    @Test("Batches of any size give the one reading's samples, in order, and its skips, types and arrays not stored",
          arguments: [1, 2, 3, 7, 25, 1_000])
    func sameAsOneReading(limit: Int) throws {
        let whole = try HAEPayloadReader(aggregation: .seconds(60)).read(Data(Self.body.utf8))
        #expect(whole.samples.count == 57)
        let (batches, reading) = try Self.batches(Self.body, limit: limit)
        let samples = batches.flatMap { $0 }
        #expect(samples == whole.samples)
        #expect(reading.samples.isEmpty)
        #expect(reading.types == whole.types)
        #expect(reading.skipped == whole.skipped)
        #expect(reading.skipped == ["negativeValue": 1, "nonFiniteValue": 1])
        #expect(reading.skippedPoints == whole.skippedPoints)
        #expect(reading.notStored == ["symptoms": 2, "ecg": 1])
        #expect(reading.unknownMetrics == ["mystery_metric", "empty_metric"])
        // A batch stops at the first point that reaches the limit: never short before the end, never more than
        // one point's samples over (a summarized night is the most, 5; a workout with its route and heart rate, 5).
        for batch in batches.dropLast() { #expect(batch.count >= limit) }
        for batch in batches { #expect(batch.count < limit + 5) }
    }

    @Test("A fault after many points refuses the body before any batch is read")
    func refusedBeforeAnyBatch() throws {
        let points = (0..<500).map { "{\"date\":\"2025-06-02 08:00:00 +0200\",\"qty\":\($0)}" }.joined(separator: ",")
        let text = "{\"data\":{\"metrics\":[{\"name\":\"step_count\",\"data\":[\(points)]},{\"data\":[]}]}}"
        #expect(throws: HAEPayloadError(field: "data.metrics[1].name", "is missing or not a string")) {
            _ = try Self.batches(text, limit: 10)
        }
        let cut = String("{\"data\":{\"metrics\":[{\"name\":\"step_count\",\"data\":[\(points)]}]}}".dropLast(2))
        let error = try #require(throws: HAEPayloadError.self) { _ = try Self.batches(cut, limit: 10) }
        #expect(error.field == "body")
        #expect(error.message.hasSuffix("at byte \(cut.utf8.count))"), "\(error)")
    }

    @Test("Read as the app may write it: escaped keys and dates, a number too large for a Double, Booleans, nulls")
    func lenientValues() throws {
        let reading = try HAEPayloadReader(aggregation: .seconds(60)).read(Data("""
            {"data":{"metrics":[{"name":"step_count","units":"count","data":[
              {"d\\u0061te":"2025-06-02 08:00:00 \\u002B0200","qty":5,"source":"Anna\\u2019s iPhone"},
              {"date":"2025-06-02 08:01:00 +0200","qty":1e999},
              {"date":"2025-06-02 08:02:00 +0200","qty":true,"extra":{"nested":[1,{"deep":null}]}},
              {"date":"2025-06-02 08:03:00 +0200","qty":null},
              {"date":20250602,"qty":4},
              {"date":"2025-06-02 08:04:00 +0200","qty":"12.5","qty":"13"}]}]}}
            """.utf8))
        #expect(reading.samples.map(\.value) == [5, 1, 13])
        #expect(reading.samples[0].sourceName == "Anna\u{2019}s iPhone")
        #expect(reading.samples[0].deviceName == "iPhone")
        #expect(reading.samples[0].startMs == ISO8601Millis.parse("2025-06-02T06:00:00.000Z"))
        #expect(reading.skipped == ["nonFiniteValue": 1, "missingValue": 1, "unreadableDate": 1])
        #expect(reading.skippedPoints.map(\.index) == [1, 3, 4])
    }

    @Test("A point's uuid continued from its (type, source) prefix is the uuid of its whole name")
    func uuidFromPrefix() {
        var rng = SplitMix64(seed: 34)
        for _ in 0..<500 {
            let type = [SampleType.stepCount, .heartRate, HAEMetricTable.systolic][Int(rng.next() % 3)]
            let source = ["Anna\u{2019}s\u{00A0}Apple Watch", "", "iPhone|Watch", String(repeating: "x", count: 300)][Int(rng.next() % 4)]
            let start = Int64(bitPattern: rng.next()) % 4_000_000_000_000
            let length = Int64(rng.next() % 400_000_000_000)
            let role = ["", "min", "max", "asleepCore"][Int(rng.next() % 4)]
            let whole = HAEPointIdentity.uuid(type: type, source: source, startMs: start, lengthMs: length, role: role)
            let resumed = HAEPointIdentity.uuid(resuming: HAEPointIdentity.prefix(type: type, source: source),
                                                startMs: start, lengthMs: length, role: role)
            #expect(whole == resumed, "\(type) \(source) \(start) \(length) \(role)")
        }
        #expect(HAEPointIdentity.uuid(resuming: HAEPointIdentity.prefix(type: .stepCount, source: "s"),
                                      startMs: Int64.min, lengthMs: Int64.max, role: "")
                == HAEPointIdentity.uuid(type: .stepCount, source: "s", startMs: Int64.min, lengthMs: Int64.max))
    }
}
