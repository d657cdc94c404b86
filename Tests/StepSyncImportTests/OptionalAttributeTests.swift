import Foundation
import StepSyncCore
import StepSyncStore
import Testing
@testable import StepSyncImport

/// Parses a whole document in one chunk and returns the parser (samples not drained).
private func parse(_ text: String) throws -> (samples: [HealthSample], parser: HealthExportParser) {
    var scanner = XMLChunkScanner()
    var parser = HealthExportParser()
    try Array(text.utf8).withUnsafeBytes { try scanner.feed($0, to: &parser) }
    try scanner.finish()
    try parser.finish(line: scanner.line)
    return (parser.drain(), parser)
}

/// A record line with exactly the attributes given (in this order).
private func record(_ attributes: KeyValuePairs<String, String>) -> String {
    " <Record " + attributes.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: " ") + "/>\n"
}

private let stepType = "HKQuantityTypeIdentifierStepCount"
private let start = "2019-01-01 08:00:00 +0100", end = "2019-01-01 08:10:00 +0100"

@Suite("Attributes the DTD marks #IMPLIED may be absent; identity tells absent from empty")
struct OptionalAttributeTests {
    @Test("a category record with only the required attributes is stored as 'not applicable' (0)")
    func bareCategory() throws {
        let (samples, parser) = try parse(F.document(.v14, body: record([
            "type": "HKCategoryTypeIdentifierMindfulSession", "sourceName": "Headspace", "startDate": start, "endDate": end,
        ])))
        #expect(parser.skipped.isEmpty)
        let sample = try #require(samples.first)
        #expect(sample.type == SampleType("HKCategoryTypeIdentifierMindfulSession"))
        #expect(sample.value == 0 && sample.unit == "" && sample.sourceName == "Headspace")
        #expect(sample.sourceVersion == nil && sample.deviceName == nil && sample.deviceModel == nil && sample.details == nil)
        #expect(sample.endMs - sample.startMs == 600_000 && sample.utcOffsetSeconds == 3600)
    }

    @Test("a quantity record without each optional attribute in turn is stored", arguments: ["unit", "sourceVersion", "device", "creationDate"])
    func quantityWithout(_ missing: String) throws {
        var attributes: [(String, String)] = [
            ("type", stepType), ("sourceName", "iPhone"), ("sourceVersion", "12.3"), ("device", F.iPhone), ("unit", "count"),
            ("creationDate", end), ("startDate", start), ("endDate", end), ("value", "42"),
        ]
        attributes.removeAll { $0.0 == missing }
        let line = " <Record " + attributes.map { "\($0.0)=\"\($0.1)\"" }.joined(separator: " ") + "/>\n"
        let (samples, parser) = try parse(F.document(.v14, body: line))
        #expect(parser.skipped.isEmpty)
        let sample = try #require(samples.first)
        #expect(sample.value == 42)
        #expect(sample.unit == (missing == "unit" ? "" : "count"))
        #expect(sample.sourceVersion == (missing == "sourceVersion" ? nil : "12.3"))
        #expect(sample.deviceName == (missing == "device" ? nil : "iPhone"))
    }

    @Test("a workout with only the required attributes: duration from its dates, no details but the activity")
    func bareWorkout() throws {
        let (samples, parser) = try parse(F.document(.v14, body: """
             <Workout workoutActivityType="HKWorkoutActivityTypeYoga" sourceName="Down Dog" startDate="2021-05-02 07:00:00 +0200" endDate="2021-05-02 07:45:30 +0200"/>

            """))
        #expect(parser.skipped.isEmpty)
        let workout = try #require(samples.first)
        #expect(workout.type == .workout && workout.value == 2730 && workout.unit == "s")
        #expect(workout.sourceVersion == nil && workout.deviceName == nil)
        #expect(workout.details == #"{"activityType":"HKWorkoutActivityTypeYoga","duration":2730}"#)
    }

    @Test("a record with every attribute present keeps the uuid it had before absent attributes were told apart")
    func uuidUnchanged() throws {
        // The first record of `mainBody`; the literal was derived independently (Python: uuid5 over the layout of
        // Planning/import.md) and is what stores imported before this change hold.
        let (samples, _) = try parse(F.document(.v14, body: F.record(stepType, value: "100", start: start, end: end)))
        #expect(samples.first?.uuid == UUID(uuidString: "BD6DF1CE-E6EA-5CB2-A744-364D6C9B437C"))
    }

    @Test("an absent attribute and an empty one name different records")
    func absentIsNotEmpty() throws {
        func uuid(_ attributes: KeyValuePairs<String, String>) throws -> UUID {
            try #require(try parse(F.document(.v14, body: record(attributes))).samples.first).uuid
        }
        let withoutVersion = try uuid(["type": stepType, "sourceName": "iPhone", "unit": "count", "startDate": start, "endDate": end, "value": "1"])
        let emptyVersion = try uuid(["type": stepType, "sourceName": "iPhone", "sourceVersion": "", "unit": "count", "startDate": start, "endDate": end, "value": "1"])
        let emptyDevice = try uuid(["type": stepType, "sourceName": "iPhone", "device": "", "unit": "count", "startDate": start, "endDate": end, "value": "1"])
        let withoutUnit = try uuid(["type": stepType, "sourceName": "iPhone", "startDate": start, "endDate": end, "value": "1"])
        let emptyUnit = try uuid(["type": stepType, "sourceName": "iPhone", "unit": "", "startDate": start, "endDate": end, "value": "1"])
        #expect(Set([withoutVersion, emptyVersion, emptyDevice, withoutUnit, emptyUnit]).count == 5)

        let mindful = "HKCategoryTypeIdentifierMindfulSession"
        let noValue = try uuid(["type": mindful, "sourceName": "Health", "startDate": start, "endDate": end])
        let notApplicable = try uuid(["type": mindful, "sourceName": "Health", "startDate": start, "endDate": end, "value": "HKCategoryValueNotApplicable"])
        #expect(noValue != notApplicable)
        // The same record read twice names the same sample.
        #expect(try uuid(["type": mindful, "sourceName": "Health", "startDate": start, "endDate": end]) == noValue)
        // Pinned: the derivation of an absent sourceVersion (0xFF, not "") must never change.
        let withoutVersion2 = try uuid(["type": stepType, "sourceName": "iPhone", "device": HealthExportFixture.iPhone, "unit": "count",
                             "creationDate": end, "startDate": start, "endDate": end, "value": "100"])
        #expect(withoutVersion2 == UUID(uuidString: "6932E690-2DCF-5A99-B069-CF669606FB29"))
    }

    @Test("a device string that is not an HKDevice description is kept as written, as the device's name",
          arguments: [("Dummy device", "Dummy device"), ("  Withings Body+ ", "Withings Body+"), ("Garmin: Fenix 7", "Garmin: Fenix 7")])
    func freeFormDevice(_ written: String, _ kept: String) throws {
        let (samples, parser) = try parse(F.document(.v14, body: record([
            "type": stepType, "sourceName": "Scale", "device": written, "unit": "count", "startDate": start, "endDate": end,
            "value": "3",
        ])))
        #expect(parser.skipped.isEmpty)
        let sample = try #require(samples.first)
        #expect(sample.deviceName == kept)
        #expect(sample.deviceModel == nil)
        // The uuid derivation did not change: the identity is still the whole string.
        #expect(HealthDevice(description: written).identity == written)
    }

    @Test("an HKDevice description without a name field keeps no name; an overlong free-form string is cut to 1 KiB")
    func deviceEdges() {
        let noName = HealthDevice(description: "<<HKDevice: 0x1>, manufacturer:Withings, model:WBS06>")
        #expect(noName.name == nil && noName.model == "WBS06")
        let long = String(repeating: "é", count: 700)  // 1,400 bytes
        let cut = HealthDevice(description: long).name
        #expect(cut?.utf8.count == 1_024 && cut == String(repeating: "é", count: 512))
        #expect(HealthDevice(description: "   ").name == nil)
    }
}
