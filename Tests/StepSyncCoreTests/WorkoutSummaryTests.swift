import Foundation
import StepSyncCore
import Testing

@Suite("Workout summary: activity, duration, distance in metres, energy in kcal, route or not")
struct WorkoutSummaryTests {
    @Test("the importer's details give the summary, units converted")
    func fromDetails() throws {
        let id = UUID(uuidString: "0E0E0E0E-0000-4000-8000-000000000001")!
        let run = panelSample(.workout, "2025-05-11T06:00:00Z", "2025-05-11T06:30:00Z", 1800, unit: "s",
                              details: #"{"activityType":"HKWorkoutActivityTypeRunning","duration":1795.5,"totalDistance":5.2,"totalDistanceUnit":"km","totalEnergyBurned":410.5,"totalEnergyBurnedUnit":"kcal","route":"/workout-routes/route_2025-05-11_8.00am.gpx"}"#,
                              uuid: id)
        let summary = WorkoutSummary(run)
        #expect(summary.activity == "HKWorkoutActivityTypeRunning")
        #expect(summary.durationSeconds == 1795.5)
        #expect(summary.distanceMeters == 5200)
        #expect(summary.energyKilocalories == 410.5)
        #expect(summary.hasRoute)
        #expect(summary.json == #"{"uuid":"0E0E0E0E-0000-4000-8000-000000000001","start":"2025-05-11T06:00:00.000Z","end":"2025-05-11T06:30:00.000Z","activity":"HKWorkoutActivityTypeRunning","durationSeconds":1795.5,"distanceMeters":5200,"energyKilocalories":410.5,"hasRoute":true,"sourceName":"Apple Watch"}"#)
    }

    @Test("miles, kilojoules, missing totals, no details", arguments: [
        (#"{"activityType":"HKWorkoutActivityTypeCycling","duration":3600,"totalDistance":10,"totalDistanceUnit":"mi","totalEnergyBurned":4184,"totalEnergyBurnedUnit":"kJ"}"#,
         "HKWorkoutActivityTypeCycling", 3600.0, 16_093.44, 1000.0),
        (#"{"activityType":"HKWorkoutActivityTypeYoga","duration":2400}"#, "HKWorkoutActivityTypeYoga", 2400, nil, nil),
        (#"{"activityType":"HKWorkoutActivityTypeSwimming","totalDistance":800,"totalDistanceUnit":"furlong"}"#,
         "HKWorkoutActivityTypeSwimming", 1200, nil, nil),
        ("not json", nil, 1200, nil, nil),
    ] as [(String, String?, Double, Double?, Double?)])
    func units(details: String, activity: String?, duration: Double, metres: Double?, kcal: Double?) {
        let summary = WorkoutSummary(panelSample(.workout, "2025-05-11T06:00:00Z", "2025-05-11T06:20:00Z", 1200,
                                                 unit: "s", details: details))
        #expect(summary.activity == activity)
        #expect(summary.durationSeconds == duration)
        #expect(summary.distanceMeters.map { ($0 * 1000).rounded() / 1000 } == metres)
        #expect(summary.energyKilocalories.map { ($0 * 1000).rounded() / 1000 } == kcal)
        #expect(!summary.hasRoute)
    }

    @Test("the list is in start order and states its range")
    func list() throws {
        let request = try DailyStepsRequest.parse(from: "2025-05-11", to: "2025-05-11", tz: "UTC", priority: nil)
        let late = WorkoutSummary(panelSample(.workout, "2025-05-11T18:00:00Z", "2025-05-11T19:00:00Z", 3600, unit: "s"))
        let early = WorkoutSummary(panelSample(.workout, "2025-05-11T06:00:00Z", "2025-05-11T06:20:00Z", 1200, unit: "s"))
        let json = WorkoutSummary.listJSON([late, early], request: request, timeZoneName: "UTC")
        #expect(json.hasPrefix(#"{"tz":"UTC","from":"2025-05-11","to":"2025-05-11","workouts":[{"uuid":""# + early.uuid.uuidString))
        #expect(WorkoutSummary.listJSON([], request: nil, timeZoneName: "UTC") == #"{"tz":"UTC","from":null,"to":null,"workouts":[]}"#)
    }
}
