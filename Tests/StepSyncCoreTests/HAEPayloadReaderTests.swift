import Foundation
import Testing
@testable import StepSyncCore

@Suite("HAEPayloadReader: Health Auto Export bodies into the sink's samples")
struct HAEPayloadReaderTests {
    static func utc(_ iso: String) -> Int64 { ISO8601Millis.parse(Substring(iso))! }

    /// A body of the app's version-2 shape, minute buckets: steps from a Watch and an iPhone (source names as the
    /// phone writes them) and three bad points, heart rate Min/Avg/Max, blood pressure, oxygen saturation in %,
    /// summarized sleep, a metric the table does not know, and arrays the sink does not store.
    static let mixed = """
        {"data":{"metrics":[
          {"name":"step_count","units":"count","data":[
            {"date":"2025-06-02 08:00:00 +0200","qty":120,"source":"Anna\u{2019}s\u{00A0}Apple Watch"},
            {"date":"2025-06-02 8:01:00\u{202F}AM +0200","qty":80,"source":"Anna\u{2019}s iPhone"},
            {"date":"yesterday","qty":5},
            {"date":"2025-06-02 08:02:00 +0200","qty":-3},
            {"date":"2025-06-02 08:03:00 +0200","qty":"NaN"}]},
          {"name":"heart_rate","units":"bpm","data":[
            {"date":"2025-06-02 08:00:00 +0200","Min":58,"Avg":64.5,"Max":71,"source":"Anna\u{2019}s Apple Watch"},
            {"date":"2025-06-02 08:01:00 +0200","Min":70,"Avg":70,"Max":70,"source":"Anna\u{2019}s Apple Watch"}]},
          {"name":"blood_pressure","units":"mmHg","data":[{"date":"2025-06-02 07:30:00 +0200","systolic":121,"diastolic":79}]},
          {"name":"blood_oxygen_saturation","units":"%","data":[{"date":"2025-06-02 07:31:00 +0200","qty":97}]},
          {"name":"sleep_analysis","units":"hr","data":[
            {"date":"2025-06-02","sleepStart":"2025-06-01 23:10:00 +0200","sleepEnd":"2025-06-02 06:10:00 +0200",
             "inBedStart":"2025-06-01 23:00:00 +0200","inBedEnd":"2025-06-02 06:30:00 +0200",
             "core":3.5,"deep":1.25,"rem":1.5,"awake":0.25,"asleep":6.25,"inBed":7}]},
          {"name":"mystery_metric","units":"count","data":[{"date":"2025-06-02 09:00:00 +0200","qty":1}]}],
         "workouts":[],"symptoms":[{},{}],"ecg":[{}]}}
        """

    static func read(_ text: String, _ aggregation: HAEAggregation = .seconds(60)) throws -> HAEReading {
        try HAEPayloadReader(aggregation: aggregation).read(Data(text.utf8))
    }

    static func values(_ reading: HAEReading, _ type: SampleType) -> [Double] {
        reading.samples.filter { $0.type == type }.map(\.value)
    }

    @Test("Steps: minute buckets from the point's date, device from the source name, bad points skipped and named")
    func steps() throws {
        let reading = try Self.read(Self.mixed)
        let steps = reading.samples.filter { $0.type == .stepCount }
        #expect(steps.map(\.value) == [120, 80])
        #expect(steps.map(\.startMs) == [Self.utc("2025-06-02T06:00:00.000Z"), Self.utc("2025-06-02T06:01:00.000Z")])
        #expect(steps.map { $0.endMs - $0.startMs } == [60_000, 60_000])
        #expect(steps.map(\.deviceName) == ["Apple Watch", "iPhone"])
        #expect(steps.map(\.utcOffsetSeconds) == [7200, 7200])
        #expect(steps[0].sourceName == "Anna\u{2019}s\u{00A0}Apple Watch")
        #expect(reading.skipped == ["unreadableDate": 1, "negativeValue": 1, "nonFiniteValue": 1])
        #expect(reading.skippedPoints.map(\.index) == [2, 3, 4])
        #expect(Set(reading.skippedPoints.map(\.metric)) == ["step_count"])
    }

    @Test("Heart rate Min/Avg/Max: Avg, plus Min and Max when they differ; units bpm → count/min")
    func heartRate() throws {
        let reading = try Self.read(Self.mixed)
        #expect(Self.values(reading, .heartRate) == [64.5, 58, 71, 70])
        #expect(Set(reading.samples.filter { $0.type == .heartRate }.map(\.unit)) == ["count/min"])
        #expect(Set(reading.samples.filter { $0.type == .heartRate }.map(\.uuid)).count == 4)
    }

    @Test("Blood pressure becomes systolic and diastolic; oxygen saturation 97 % is stored as 0.97 %")
    func bloodPressureAndPercent() throws {
        let reading = try Self.read(Self.mixed)
        #expect(Self.values(reading, HAEMetricTable.systolic) == [121])
        #expect(Self.values(reading, HAEMetricTable.diastolic) == [79])
        let spo2 = reading.samples.filter { $0.type == SampleType("HKQuantityTypeIdentifierOxygenSaturation") }
        #expect(spo2.map(\.value) == [0.97])
        #expect(spo2.map(\.unit) == ["%"])
    }

    @Test("Summarized sleep: stages end to end from sleepStart, in bed from inBedStart, each hours × 3600 s")
    func summarizedSleep() throws {
        let reading = try Self.read(Self.mixed)
        let sleep = reading.samples.filter { $0.type == .sleepAnalysis }
        let start = Self.utc("2025-06-01T21:10:00.000Z")
        #expect(sleep.map(\.value) == [3, 4, 5, 2, 0])
        #expect(sleep.map { $0.endMs - $0.startMs } == [12_600_000, 4_500_000, 5_400_000, 900_000, 25_200_000])
        #expect(sleep.map(\.startMs) == [start, start + 12_600_000, start + 17_100_000, start + 22_500_000,
                                         Self.utc("2025-06-01T21:00:00.000Z")])
    }

    @Test("Summarized sleep with a date-time date, no totalSleep and no stages: asleep is unspecified sleep")
    func summarizedUnstaged() throws {
        let reading = try Self.read("""
            {"data":{"metrics":[{"name":"sleep_analysis","units":"hr","data":[
              {"date":"2025-06-02 00:00:00 +0000","asleep":6.5,"inBed":7.5,"source":"Anna\u{2019}s iPhone"}]}]}}
            """)
        let sleep = reading.samples.filter { $0.type == .sleepAnalysis }
        #expect(sleep.map(\.value) == [1, 0])
        #expect(sleep.map { $0.endMs - $0.startMs } == [23_400_000, 27_000_000])
        #expect(sleep.map(\.startMs) == [Self.utc("2025-06-02T00:00:00.000Z"), Self.utc("2025-06-02T00:00:00.000Z")])
    }

    @Test("Staged sleep: one category sample per segment; an unknown stage is skipped")
    func stagedSleep() throws {
        let reading = try Self.read("""
            {"data":{"metrics":[{"name":"sleep_analysis","units":"hr","data":[
              {"startDate":"2025-06-01 23:00:00 +0200","endDate":"2025-06-01 23:30:00 +0200","qty":0.5,"value":"In Bed"},
              {"startDate":"2025-06-01 23:00:00 +0200","endDate":"2025-06-01 23:30:00 +0200","qty":0.5,"value":"Core"},
              {"startDate":"2025-06-01 11:30:00\u{202F}PM +0200","endDate":"2025-06-01 11:45:00\u{202F}PM +0200","value":"REM"},
              {"startDate":"2025-06-01 23:45:00 +0200","endDate":"2025-06-02 00:05:00 +0200","value":"Dozing"}]}]}}
            """)
        #expect(reading.samples.map(\.value) == [0, 3, 5])
        #expect(Set(reading.samples.map(\.uuid)).count == 3)
        #expect(reading.samples.map { $0.endMs - $0.startMs } == [1_800_000, 1_800_000, 900_000])
        #expect(reading.skipped == ["unknownSleepStage": 1])
    }

    @Test("A name the table lacks is kept under a type of its own and reported; other arrays are counted")
    func unknownAndNotStored() throws {
        let reading = try Self.read(Self.mixed)
        #expect(Self.values(reading, SampleType("HealthAutoExport.mystery_metric")) == [1])
        #expect(reading.unknownMetrics == ["mystery_metric"])
        #expect(reading.notStored == ["symptoms": 2, "ecg": 1])
    }

    @Test("The uuid derives from type, source and bucket: the same point again has it, another value too")
    func identity() throws {
        let first = try Self.read(Self.mixed)
        let again = try Self.read(Self.mixed)
        #expect(first.samples.map(\.uuid) == again.samples.map(\.uuid))
        let grown = try Self.read(Self.mixed.replacingOccurrences(of: "\"qty\":120", with: "\"qty\":175"))
        #expect(grown.samples.map(\.uuid) == first.samples.map(\.uuid))
        #expect(grown.samples[0].value == 175)
        let hourly = try Self.read(Self.mixed, .seconds(3600))
        #expect(hourly.samples[0].uuid != first.samples[0].uuid)
        #expect(Set(first.samples.map(\.uuid)).count == first.samples.count)
    }

    @Test("Monthly buckets are calendar months at the point's offset")
    func months() throws {
        let reading = try Self.read("""
            {"data":{"metrics":[{"name":"step_count","units":"count","data":[
              {"date":"2025-02-01 00:00:00 +0100","qty":100000}]}]}}
            """, HAEAggregation(header: "months")!)
        #expect(reading.samples.map { $0.endMs - $0.startMs } == [28 * 86_400_000])
    }

    @Test("Workouts: v2's id is the uuid, v1's derives from its content; heart-rate data are samples")
    func workouts() throws {
        let text = """
            {"data":{"workouts":[
              {"id":"0D9D4A3E-2C4B-4F51-9C3A-6A1B2C3D4E5F","name":"Outdoor Run","start":"2025-06-02 07:00:00 +0200",
               "end":"2025-06-02 07:30:00 +0200","duration":1800,"distance":{"qty":3.1,"units":"mi"},
               "activeEnergyBurned":{"qty":1250,"units":"kJ"},
               "heartRateData":[{"date":"2025-06-02 07:00:00 +0200","Min":120,"Avg":140,"Max":160,"units":"bpm","source":"Anna\u{2019}s Apple Watch"}]},
              {"name":"Walking","start":"2025-06-02 6:00:00\u{202F}PM +0200","end":"2025-06-02 6:40:00\u{202F}PM +0200",
               "totalEnergy":{"qty":150,"units":"kcal"},"route":[{"lat":52.5,"lon":13.4,"altitude":34,"timestamp":"2025-06-02 6:00:00\u{202F}PM +0200"}]}]}}
            """
        let reading = try Self.read(text)
        let workouts = reading.samples.filter { $0.type == .workout }
        #expect(workouts.count == 2)
        #expect(workouts[0].uuid == UUID(uuidString: "0D9D4A3E-2C4B-4F51-9C3A-6A1B2C3D4E5F"))
        #expect(workouts[1].uuid == HAEPointIdentity.workoutUUID(name: "Walking", startMs: Self.utc("2025-06-02T16:00:00.000Z"),
                                                                 endMs: Self.utc("2025-06-02T16:40:00.000Z")))
        #expect(workouts.map(\.value) == [1800, 2400])
        let summaries = workouts.map(WorkoutSummary.init)
        #expect(summaries[0].activity == "HKWorkoutActivityTypeOutdoorRun")
        #expect(abs((summaries[0].distanceMeters ?? 0) - 3.1 * 1609.344) < 1e-6)
        #expect(abs((summaries[0].energyKilocalories ?? 0) - 1250 / 4.184) < 1e-6)
        #expect(summaries[1].energyKilocalories == 150)
        #expect(Self.values(reading, .heartRate) == [140, 120, 160])
        // The v1 route (lat/lon) is the workout's route part 0, as an imported GPX's.
        let route = reading.samples.filter { $0.type == .workoutRoute }
        #expect(route.map(\.uuid) == [RoutePart.uuid(workout: workouts[1].uuid, index: 0)])
        let part = try RoutePart(details: try #require(route.first?.details))
        #expect(part.points.map(\.latitude) == [52.5])
        #expect(part.points.map(\.elevation) == [34])
        #expect(summaries.map(\.hasRoute) == [false, true])
    }

    @Test("A body that is not JSON or not the app's shape is refused whole, naming the field",
          arguments: [("{\"data\":", "body"), ("[1,2]", "body"), ("{\"metrics\":[]}", "data"),
                      ("{\"data\":{\"metrics\":{}}}", "data.metrics"),
                      ("{\"data\":{\"metrics\":[{\"units\":\"count\",\"data\":[]}]}}", "data.metrics[0].name"),
                      ("{\"data\":{\"metrics\":[{\"name\":\"step_count\"}]}}", "data.metrics[0].data"),
                      ("{\"data\":{\"metrics\":[{\"name\":\"step_count\",\"data\":[7]}]}}", "data.metrics[0].data[0]"),
                      ("{\"data\":{\"workouts\":[\"run\"]}}", "data.workouts[0]")])
    func refused(_ body: String, _ field: String) {
        #expect(throws: HAEPayloadError.self) { try Self.read(body) }
        do {
            _ = try Self.read(body)
        } catch let error as HAEPayloadError {
            #expect(error.field == field)
        } catch {
            Issue.record("not an HAEPayloadError: \(error)")
        }
    }
}
