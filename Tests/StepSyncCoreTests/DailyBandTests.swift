import Foundation
import StepSyncCore
import Testing

@Suite("Daily band: per local day count, min, average, max and sum of a type's values")
struct DailyBandTests {
    @Test("heart-rate readings fall on the local day of their start (Berlin, across midnight and a clock change)")
    func localDays() throws {
        let request = try DailyStepsRequest.parse(from: "2025-03-29", to: "2025-03-31", tz: "Europe/Berlin", priority: nil)
        var band = DailyBand(type: .heartRate, request: request)
        band.add([
            panelSample(.heartRate, "2025-03-28T23:59:59+01:00", nil, 200), // the day before: left out
            panelSample(.heartRate, "2025-03-29T00:00:00+01:00", nil, 52),
            panelSample(.heartRate, "2025-03-29T12:00:00+01:00", nil, 75),
            panelSample(.heartRate, "2025-03-29T23:59:59+01:00", nil, 57),
            // 2025-03-30 has 23 hours: 01:59:59+01:00 and 03:00+02:00 are one second apart.
            panelSample(.heartRate, "2025-03-30T01:59:59+01:00", nil, 48),
            panelSample(.heartRate, "2025-03-30T03:00:00+02:00", nil, 50),
            panelSample(.heartRate, "2025-03-30T23:30:00+02:00", nil, 61),
            panelSample(.stepCount, "2025-03-31T10:00:00+02:00", nil, 99), // another type: ignored
            panelSample(.heartRate, "2025-04-01T00:00:00+02:00", nil, 190), // the day after: left out
        ])
        #expect(band.days.map(\.date.description) == ["2025-03-29", "2025-03-30", "2025-03-31"])
        #expect(band.days.map(\.samples) == [3, 3, 0])
        #expect(band.days.map(\.min) == [52, 48, nil])
        #expect(band.days.map(\.max) == [75, 61, nil])
        #expect(band.days.map(\.sum) == [184, 159, 0])
        #expect(band.days.map(\.average) == [184.0 / 3, 53, nil])
        #expect(band.unit == "count/min")
        #expect(band.startRange == t("2025-03-29T00:00:00+01:00")..<t("2025-04-01T00:00:00+02:00"))
        #expect(band.json == #"{"type":"HKQuantityTypeIdentifierHeartRate","kind":"discrete","unit":"count/min","tz":"Europe/Berlin","from":"2025-03-29","to":"2025-03-31","days":[{"date":"2025-03-29","samples":3,"min":52,"average":61.333,"max":75,"sum":184},{"date":"2025-03-30","samples":3,"min":48,"average":53,"max":61,"sum":159},{"date":"2025-03-31","samples":0,"min":null,"average":null,"max":null,"sum":0}]}"#)
    }

    @Test("a cumulative type's sample counts whole on its start day; pages add up as one")
    func cumulativeByStart() throws {
        let request = try DailyStepsRequest.parse(from: "2025-05-11", to: "2025-05-12", tz: "UTC", priority: nil)
        var band = DailyBand(type: .activeEnergyBurned, request: request)
        band.add([panelSample(.activeEnergyBurned, "2025-05-11T23:50:00Z", "2025-05-12T00:10:00Z", 12.5, unit: "kcal")])
        band.add([panelSample(.activeEnergyBurned, "2025-05-12T08:00:00Z", "2025-05-12T08:01:00Z", 0.25, unit: "kcal"),
                  panelSample(.activeEnergyBurned, "2025-05-12T09:00:00Z", "2025-05-12T09:01:00Z", 1.125, unit: "kcal")])
        #expect(band.days.map(\.sum) == [12.5, 1.375])
        #expect(band.json.contains(#""kind":"cumulative","unit":"kcal""#))
        #expect(band.json.hasSuffix(#"{"date":"2025-05-12","samples":2,"min":0.25,"average":0.688,"max":1.125,"sum":1.375}]}"#))
    }

    @Test("with no days stored the answer says so")
    func empty() {
        #expect(DailyBand.emptyJSON(type: .heartRate, timeZoneName: "UTC")
            == #"{"type":"HKQuantityTypeIdentifierHeartRate","kind":"discrete","unit":null,"tz":"UTC","from":null,"to":null,"days":[]}"#)
    }

    @Test("the stored range is clamped to the last 3,700 days and the nameable dates")
    func storedRange() throws {
        let request = try PanelRange.stored(first: CivilDate(year: 2000, month: 1, day: 1),
                                            last: CivilDate(year: 2020, month: 6, day: 30), timeZoneName: "UTC")
        #expect(request.to == CivilDate(year: 2020, month: 6, day: 30))
        #expect(request.from.distance(to: request.to) + 1 == DailyStepsRequest.maxDays)
        let late = try PanelRange.stored(first: CivilDate(year: 9999, month: 12, day: 31),
                                         last: CivilDate(year: 10000, month: 1, day: 1), timeZoneName: "UTC")
        #expect(late.from == PanelRange.lastDate && late.to == PanelRange.lastDate)
    }
}
