import Foundation
import StepSyncCore
import StepSyncStore
import Testing
@testable import StepSyncImport

/// A fresh directory and store for one test, removed when the test lets go of it.
final class Workspace {
    let directory: URL
    let store: StepStore

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("stepsync-import-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try StepStore(path: directory.appendingPathComponent("health.sqlite").path)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func importExport(_ path: String, strict: Bool = false) throws -> ImportSummary {
        try HealthImporter(store: store, time: .system).importExport(at: path, strict: strict)
    }

    /// What must not change when an import is refused: the change sequence, every type's totals, the sources.
    func snapshot() throws -> String {
        let totals = try [SampleType.stepCount, .heartRate, .sleepAnalysis, .workout, .distanceWalkingRunning]
            .map { "\($0.rawValue)=\(try store.total(of: $0, in: all))" }
        return "seq=\(try store.changeSequence()) \(totals) \(try store.sourceSummaries())"
    }
}

typealias F = HealthExportFixture
let all = TimeRange(start: 0, end: 4_000_000_000_000)

/// The body of the main fixture: four step records (iPhone, Watch, a DST offset, a source with an entity and a
/// stray \x0b), one each of heart rate, distance, active energy and sleep, a blood-pressure correlation whose two
/// records also appear at the top level, a workout and two activity summaries.
let mainBody = F.record("HKQuantityTypeIdentifierStepCount", value: "100",
                        start: "2019-01-01 08:00:00 +0100", end: "2019-01-01 08:10:00 +0100")
    + F.record("HKQuantityTypeIdentifierStepCount", source: "Apple Watch", version: "9.5", device: F.watch, value: "120",
               start: "2019-01-01 08:00:00 +0100", end: "2019-01-01 08:10:00 +0100")
    + F.record("HKQuantityTypeIdentifierStepCount", value: "250",
               start: "2019-07-01 09:00:00 +0200", end: "2019-07-01 09:15:00 +0200",
               children: #"  <MetadataEntry key="HKMetadataKeyWasUserEntered" value="0"/>"#)
    + F.record("HKQuantityTypeIdentifierStepCount", source: "Anna&apos;s iPhone\u{0B}", device: nil, value: "30",
               start: "2019-07-02 10:00:00 +0200", end: "2019-07-02 10:01:00 +0200")
    + F.record("HKQuantityTypeIdentifierHeartRate", source: "Apple Watch", version: "9.5", device: F.watch,
               unit: "count/min", value: "72.5", start: "2019-07-01 09:01:00 +0200", end: "2019-07-01 09:01:00 +0200",
               children: #"  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="0"/>"#)
    + F.record("HKQuantityTypeIdentifierDistanceWalkingRunning", unit: "km", value: "0.083",
               start: "2019-07-01 09:00:00 +0200", end: "2019-07-01 09:15:00 +0200")
    + F.record("HKQuantityTypeIdentifierActiveEnergyBurned", source: "Apple Watch", version: "9.5", device: F.watch,
               unit: "kcal", value: "12.25", start: "2019-07-01 09:00:00 +0200", end: "2019-07-01 09:15:00 +0200")
    + F.record("HKCategoryTypeIdentifierSleepAnalysis", source: "Apple Watch", version: "9.5", device: F.watch,
               unit: nil, value: "HKCategoryValueSleepAnalysisAsleepCore",
               start: "2019-07-02 01:00:00 +0200", end: "2019-07-02 02:30:00 +0200")
    + """
     <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Health" sourceVersion="16.5" creationDate="2019-07-03 08:00:00 +0200" startDate="2019-07-03 08:00:00 +0200" endDate="2019-07-03 08:00:00 +0200">
      <MetadataEntry key="HKWasUserEntered" value="1"/>
    \(F.record("HKQuantityTypeIdentifierBloodPressureSystolic", source: "Health", device: nil, unit: "mmHg", value: "120", start: "2019-07-03 08:00:00 +0200", end: "2019-07-03 08:00:00 +0200"))\
    \(F.record("HKQuantityTypeIdentifierBloodPressureDiastolic", source: "Health", device: nil, unit: "mmHg", value: "80", start: "2019-07-03 08:00:00 +0200", end: "2019-07-03 08:00:00 +0200"))\
     </Correlation>

    """
    + F.record("HKQuantityTypeIdentifierBloodPressureSystolic", source: "Health", device: nil, unit: "mmHg", value: "120",
               start: "2019-07-03 08:00:00 +0200", end: "2019-07-03 08:00:00 +0200")
    + F.record("HKQuantityTypeIdentifierBloodPressureDiastolic", source: "Health", device: nil, unit: "mmHg", value: "80",
               start: "2019-07-03 08:00:00 +0200", end: "2019-07-03 08:00:00 +0200")
    + """
     <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="15" durationUnit="min" sourceName="Apple Watch" sourceVersion="9.5" device="\(F.watch)" creationDate="2019-07-01 09:15:00 +0200" startDate="2019-07-01 09:00:00 +0200" endDate="2019-07-01 09:15:00 +0200">
      <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2019-07-01 09:00:00 +0200" duration="15" durationUnit="min"/>
      <WorkoutStatistics type="HKQuantityTypeIdentifierStepCount" startDate="2019-07-01 09:00:00 +0200" endDate="2019-07-01 09:15:00 +0200" sum="250" unit="count"/>
     </Workout>
     <ActivitySummary dateComponents="2019-07-01" activeEnergyBurned="312.5" activeEnergyBurnedGoal="400" activeEnergyBurnedUnit="kcal" appleExerciseTime="15" appleStandHours="9"/>
     <ActivitySummary dateComponents="2019-07-02" activeEnergyBurned="12" activeEnergyBurnedGoal="400" activeEnergyBurnedUnit="kcal" appleExerciseTime="0" appleStandHours="2"/>

    """

/// The UTC milliseconds of a local wall time and offset, computed independently of the importer.
func utcMs(_ y: Int64, _ mo: Int, _ d: Int, _ h: Int64, _ mi: Int64, offsetHours: Int64) -> Int64 {
    ISO8601Millis.days(fromCivil: y, mo, d) * 86_400_000 + (h - offsetHours) * 3_600_000 + mi * 60_000
}

@Suite("Importing Apple Health exports")
struct HealthImporterTests {
    @Test("a v14 export.zip with a localised entry name: exact counts, sums, sources, offsets and devices")
    func zipWithLocalisedName() throws {
        let w = try Workspace()
        let zip = try F.zip([
            ("apple_health_export/export_cda.xml", "<?xml version=\"1.0\"?>\n<ClinicalDocument xmlns=\"urn:hl7-org:v3\"></ClinicalDocument>\n"),
            ("apple_health_export/workout-routes/route_2019-07-01_9.15am.gpx", "<?xml version=\"1.0\"?><gpx></gpx>"),
            ("apple_health_export/экспорт.xml", F.document(.v14, body: mainBody)),
        ], named: "export.zip", in: w.directory)

        let summary = try w.importExport(zip)

        #expect(summary.entry == "apple_health_export/экспорт.xml")
        #expect(summary.recordsRead == 11)
        #expect(summary.inserted == 11)
        #expect(summary.duplicates == 0)
        #expect(summary.insertedStepSamples == 4)
        #expect(summary.insertedSteps == 500)
        #expect(summary.insertedWorkouts == 1)
        #expect(summary.skipped.isEmpty && summary.firstSkipped.isEmpty)
        #expect(summary.otherElements == ["Correlation": 1, "ActivitySummary": 2, "ExportDate": 1, "Me": 1])
        #expect(summary.nestedRecords == 2)
        #expect(summary.insertedByType[.heartRate] == 1)
        #expect(summary.insertedByType[SampleType("HKQuantityTypeIdentifierBloodPressureSystolic")] == 1)

        let steps = try w.store.total(of: .stepCount, in: all)
        #expect(steps.sum == 500 && steps.count == 4)
        #expect(try w.store.total(of: .heartRate, in: all).sum == 72.5)
        #expect(try w.store.total(of: .distanceWalkingRunning, in: all).sum == 0.083)
        #expect(try w.store.total(of: .activeEnergyBurned, in: all).sum == 12.25)
        let sleep = try w.store.total(of: .sleepAnalysis, in: all)
        #expect(sleep.sum == 3 && sleep.count == 1)

        let stepSources = try w.store.sourceSummaries()
            .filter { $0.type == SampleType.stepCount.rawValue }
            .map { "\($0.source)=\($0.samples)/\(Int($0.sum))" }
        #expect(stepSources == ["Anna's iPhone=1/30", "Apple Watch=1/120", "iPhone=2/350"])

        let page = try w.store.samplePage(of: .stepCount, in: all, limit: 10)
        #expect(page.map(\.startMs) == [
            utcMs(2019, 1, 1, 8, 0, offsetHours: 1), utcMs(2019, 1, 1, 8, 0, offsetHours: 1),
            utcMs(2019, 7, 1, 9, 0, offsetHours: 2), utcMs(2019, 7, 2, 10, 0, offsetHours: 2),
        ])
        #expect(page.map(\.utcOffsetSeconds) == [3600, 3600, 7200, 7200])
        let watch = try #require(page.first { $0.sourceName == "Apple Watch" })
        #expect(watch.deviceName == "Apple Watch" && watch.deviceModel == "Watch6,2" && watch.sourceVersion == "9.5")
        #expect(watch.endMs - watch.startMs == 600_000 && watch.unit == "count")
        let phone = try #require(page.first { $0.value == 250 })
        #expect(phone.deviceName == "iPhone" && phone.deviceModel == "iPhone12,1")
        let sleepSample = try #require(try w.store.samplePage(of: .sleepAnalysis, in: all, limit: 1).first)
        #expect(sleepSample.unit == "" && sleepSample.value == 3)
        #expect(page.allSatisfy { $0.uuid.uuidString.dropFirst(14).first == "5" })

        // A record's MetadataEntry children are kept in its details; a record without children has none.
        #expect(phone.details == #"{"metadata":[["HKMetadataKeyWasUserEntered","0"]]}"#)
        #expect(watch.details == nil)
        let heartRate = try #require(try w.store.samplePage(of: .heartRate, in: all, limit: 1).first)
        #expect(heartRate.details == #"{"metadata":[["HKMetadataKeyHeartRateMotionContext","0"]]}"#)

        // The workout: 15 min, its event and statistics, in UTC.
        let workout = try #require(try w.store.samplePage(of: .workout, in: all, limit: 1).first)
        #expect(workout.value == 900 && workout.unit == "s" && workout.deviceModel == "Watch6,2")
        #expect(workout.startMs == utcMs(2019, 7, 1, 9, 0, offsetHours: 2) && workout.utcOffsetSeconds == 7200)
        #expect(workout.details == #"{"activityType":"HKWorkoutActivityTypeWalking","duration":900,"statistics":[{"type":"HKQuantityTypeIdentifierStepCount","startDate":"2019-07-01T07:00:00.000Z","endDate":"2019-07-01T07:15:00.000Z","sum":250,"unit":"count"}],"events":[{"type":"HKWorkoutEventTypeSegment","date":"2019-07-01T07:00:00.000Z","duration":900}]}"#)
    }

    @Test("importing the same export again adds nothing and says so")
    func idempotentReimport() throws {
        let w = try Workspace()
        let path = try F.write(F.document(.v14, body: mainBody), named: "export.xml", in: w.directory)
        _ = try w.importExport(path)
        let sequence = try w.store.changeSequence()

        let again = try w.importExport(path)

        #expect(again.inserted == 0)
        #expect(again.duplicates == 11)
        #expect(again.insertedSteps == 0)
        #expect(try w.store.changeSequence() == sequence)
        #expect(try w.store.total(of: .stepCount, in: all).count == 4)
    }

    @Test("a newer export (v11 then v14, new device addresses, other offsets) adds only the new records")
    func newerExportAddsOnlyNew() throws {
        let w = try Workspace()
        let old = F.record("HKQuantityTypeIdentifierStepCount", value: "100",
                           start: "2019-01-01 08:00:00 +0100", end: "2019-01-01 08:10:00 +0100")
            + F.record("HKQuantityTypeIdentifierStepCount", source: "Apple Watch", device: F.watch, value: "120",
                       start: "2019-01-01 08:00:00 +0100", end: "2019-01-01 08:10:00 +0100")
        _ = try w.importExport(try F.write(F.document(.v11, body: old), named: "old.xml", in: w.directory))
        #expect(try w.store.total(of: .stepCount, in: all).sum == 220)

        // The newer export was made in another time zone (same instants, other offsets) and the devices print
        // other object addresses; two records are new.
        let newer = F.record("HKQuantityTypeIdentifierStepCount", device: F.iPhone.replacingOccurrences(of: "0x283a1c0a0", with: "0x600001234"),
                             value: "100", start: "2019-01-01 02:00:00 -0500", end: "2019-01-01 02:10:00 -0500",
                             created: "2019-01-01 02:10:00 -0500")
            + F.record("HKQuantityTypeIdentifierStepCount", source: "Apple Watch", device: F.watch.replacingOccurrences(of: "0x283a1c3c0", with: "0x60000abcd"),
                       value: "120", start: "2019-01-01 02:00:00 -0500", end: "2019-01-01 02:10:00 -0500",
                       created: "2019-01-01 02:10:00 -0500")
            + F.record("HKQuantityTypeIdentifierStepCount", value: "1000",
                       start: "2023-05-10 12:00:00 -0400", end: "2023-05-10 12:30:00 -0400")
            + F.record("HKQuantityTypeIdentifierHeartRate", source: "Apple Watch", device: F.watch, unit: "count/min",
                       value: "61", start: "2023-05-10 12:00:00 -0400", end: "2023-05-10 12:00:00 -0400")
        let summary = try w.importExport(try F.write(F.document(.v14, body: newer), named: "new.xml", in: w.directory))

        #expect(summary.inserted == 2)
        #expect(summary.duplicates == 2)
        #expect(summary.insertedStepSamples == 1 && summary.insertedSteps == 1000)
        #expect(try w.store.total(of: .stepCount, in: all).sum == 1220)
        #expect(try w.store.total(of: .heartRate, in: all).count == 1)
    }

    @Test("the iOS 16 export, whose DTD lacks a '>', imports")
    func brokenIOS16DTD() throws {
        let w = try Workspace()
        let path = try F.write(F.document(.iOS16Broken, body: mainBody), named: "export.xml", in: w.directory)
        let summary = try w.importExport(path)
        #expect(summary.inserted == 11)
        #expect(summary.skipped.isEmpty)
        #expect(try w.store.total(of: .stepCount, in: all).sum == 500)
    }
}
