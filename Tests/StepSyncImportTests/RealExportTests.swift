import Foundation
import StepSyncCore
import StepSyncStore
import Testing
@testable import StepSyncImport

/// Excerpts of real exports and DTDs (`Fixtures/`, each naming its public source) import whole.
@Suite("Real exports of several versions")
struct RealExportTests {
    @Test("issue 10: the v8 export whose MindfulSession has no value imports whole, in a zip")
    func exportVersion8() throws {
        let w = try Workspace()
        let text = try F.real("export-v8-rgosdin.xml")
        #expect(text.contains("<!-- HealthKit Export Version: 8 -->"))
        let zip = try F.zip([("apple_health_export/export.xml", text)], named: "export.zip", in: w.directory)

        let summary = try w.importExport(zip)

        #expect(summary.skipped.isEmpty)
        #expect(summary.recordsRead == 18 && summary.inserted == 18)
        #expect(summary.insertedStepSamples == 5 && summary.insertedSteps == 47 + 8 + 289 + 417 + 377)
        #expect(summary.otherElements == ["ExportDate": 1, "Me": 1])
        let mindful = try #require(try w.store.samplePage(of: SampleType("HKCategoryTypeIdentifierMindfulSession"), in: all, limit: 5).first)
        #expect(mindful.value == 0 && mindful.sourceName == "Health" && mindful.sourceVersion == "12.3" && mindful.deviceName == nil)
        #expect(mindful.endMs - mindful.startMs == 3 * 3_600_000)
        #expect(mindful.details == #"{"metadata":[["HKWasUserEntered","1"]]}"#)
        let sleep = try w.store.samplePage(of: .sleepAnalysis, in: all, limit: 10)
        #expect(sleep.map(\.value).sorted() == [0, 0, 0, 1])  // three InBed (0), one Asleep (1)
        #expect(sleep.filter { $0.sourceName == "Clock" }.allSatisfy { $0.deviceModel == "iPhone10,4" && $0.sourceVersion == nil })
        let falls = try w.store.total(of: SampleType("HKQuantityTypeIdentifierNumberOfTimesFallen"), in: all)
        #expect(falls.sum == 16 && falls.count == 1)
    }

    @Test("healthkit-to-sqlite's own test export (no DTD): records, the workout with its route, summaries")
    func healthkitToSqliteExample() throws {
        let w = try Workspace()
        let summary = try w.importExport(try F.write(try F.real("export-healthkit-to-sqlite.xml"), named: "export.xml", in: w.directory))

        #expect(summary.skipped == [.missingRouteFile: 1])  // its GPX is not beside this bare export.xml
        #expect(summary.inserted == 3 && summary.insertedWorkouts == 1)
        #expect(summary.otherElements == ["ExportDate": 1, "Me": 1, "ActivitySummary": 2])
        let bmi = try #require(try w.store.samplePage(of: SampleType("HKQuantityTypeIdentifierBodyMassIndex"), in: all, limit: 1).first)
        #expect(bmi.value == 22.5312 && bmi.deviceName == nil && bmi.unit == "count")
        #expect(bmi.details == #"{"metadata":[["Health Mate App Version","2.16.0"],["Withings User Identifier","12345"],["Modified Date","2016-04-18 15:56:05 +0000"],["Withings Link","withings-bd2://timeline/measure?userid=12345&date=482685932&type=1"],["HKWasUserEntered","0"]]}"#)
        let workout = try #require(try w.store.samplePage(of: .workout, in: all, limit: 1).first)
        #expect(abs(workout.value - 5.19412346680959 * 60) < 1e-9)
        #expect(workout.details == #"{"activityType":"HKWorkoutActivityTypeRunning","duration":311.64740800857544,"totalDistance":0.4971749504535062,"totalDistanceUnit":"mi","totalEnergyBurned":48.74499999999999,"totalEnergyBurnedUnit":"kcal","route":"/workout-routes/route_2019-06-11_3.00pm.gpx","metadata":[["HKTimeZone","America/Los_Angeles"],["HKWeatherTemperature","56 degF"],["HKWeatherHumidity","96 %"]]}"#)
    }

    @Test("the v14 DTD of iOS 18 with an iOS 26 Watch workout, real Watch 4 records, HRV beats and an audiogram")
    func exportVersion14() throws {
        let w = try Workspace()
        let body = try F.real("body-watch-ios26-workout.xml") + F.real("body-watch4-records.xml")
            + F.audiogram(start: "2021-02-01 10:00:00 +0100", end: "2021-02-01 10:06:00 +0100",
                          points: [(500, 10, 15), (1000, 5, 10), (2000, 10, 20), (4000, 25, 30)])
        let text = try F.realV14(body: body)
        #expect(text.contains("leftEarClampingRangeLowerBound"))

        let summary = try w.importExport(try F.write(text, named: "export.xml", in: w.directory))

        #expect(summary.skipped == [.missingRouteFile: 1])  // its GPX is not beside this bare export.xml
        #expect(summary.recordsRead == 10 && summary.inserted == 10 && summary.insertedWorkouts == 1)
        #expect(summary.otherElements == ["ExportDate": 1, "Me": 1, "Audiogram": 1])

        // The workout: statistics and events of the workout itself, not those its WorkoutActivity repeats.
        let workout = try #require(try w.store.samplePage(of: .workout, in: all, limit: 1).first)
        #expect(workout.sourceName == "Apple Watch de Nicolas" && workout.deviceModel == "Watch7,2" && workout.deviceName == "Apple Watch")
        #expect(workout.value == 119.2710362156232 * 60 && workout.utcOffsetSeconds == 3600)
        let details = try #require(workout.details)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(details.utf8)) as? [String: Any])
        #expect(object["activityType"] as? String == "HKWorkoutActivityTypeRunning")
        let statistics = try #require(object["statistics"] as? [[String: Any]])
        #expect(statistics.map { $0["type"] as? String } == [
            "HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierRunningGroundContactTime",
            "HKQuantityTypeIdentifierRunningPower", "HKQuantityTypeIdentifierActiveEnergyBurned",
            "HKQuantityTypeIdentifierDistanceWalkingRunning", "HKQuantityTypeIdentifierHeartRate",
        ])
        #expect(statistics[5]["average"] as? Double == 140.139 && statistics[5]["minimum"] as? Double == 75)
        #expect(statistics[0]["startDate"] as? String == "2025-12-20T11:51:00.000Z")
        let events = try #require(object["events"] as? [[String: Any]])
        #expect(events.count == 2 && events[1]["duration"] as? Double == 11.98028505643209 * 60)
        #expect(object["route"] as? String == "/workout-routes/route_2025-12-20_2.50pm.gpx")
        let metadata = try #require(object["metadata"] as? [[String]])
        #expect(metadata.count == 5 && metadata[4] == ["HKAverageMETs", "9.66668 kcal/hr·kg"])

        // HRV: the beats list, in order, with their times as written.
        let hrv = try #require(try w.store.samplePage(of: SampleType("HKQuantityTypeIdentifierHeartRateVariabilitySDNN"), in: all, limit: 1).first)
        #expect(hrv.value == 49.4602 && hrv.unit == "ms")
        #expect(hrv.details == #"{"beats":[{"bpm":80,"time":"11:17:20.53 AM"},{"bpm":80,"time":"11:17:21.29 AM"}]}"#)

        // Events without a value, emoji source names, a record without sourceVersion or device.
        let handwashing = try #require(try w.store.samplePage(of: SampleType("HKCategoryTypeIdentifierHandwashingEvent"), in: all, limit: 1).first)
        #expect(handwashing.value == 0 && handwashing.sourceName == "🕛🕐🕑🕒")
        let stand = try #require(try w.store.samplePage(of: SampleType("HKCategoryTypeIdentifierAppleStandHour"), in: all, limit: 1).first)
        #expect(stand.value == 0)  // HKCategoryValueAppleStandHourStood
        let standTime = try #require(try w.store.samplePage(of: SampleType("HKQuantityTypeIdentifierAppleStandTime"), in: all, limit: 1).first)
        #expect(standTime.sourceVersion == nil && standTime.deviceName == nil && standTime.value == 2)
        #expect(try w.store.total(of: SampleType("HKQuantityTypeIdentifierBodyMass"), in: all).sum == 140)
    }

    @Test("each export header imports the same body", arguments: [HealthExportFixture.Header.v11, .v14, .iOS16Broken])
    func headers(_ header: HealthExportFixture.Header) throws {
        let w = try Workspace()
        let text = F.document(header, body: try F.real("body-watch4-records.xml"))
        let summary = try w.importExport(try F.write(text, named: "export.xml", in: w.directory))
        #expect(summary.skipped.isEmpty && summary.inserted == 9)
        if header == .iOS16Broken {
            // The DTD really is malformed: its ATTLIST VisionPrescription never closes before the next declaration.
            let dtd = text[..<text.range(of: "<!ELEMENT RightEye")!.lowerBound]
            #expect(dtd.hasSuffix("brand            CDATA #IMPLIED\n\n"))
        }
    }
}
