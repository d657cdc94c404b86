import Foundation
import StepSyncCore
import StepSyncStore
import Testing
@testable import StepSyncImport

/// Three good step records (sum 600) around whatever bad record a case puts between them.
private let before = F.record("HKQuantityTypeIdentifierStepCount", value: "100",
                              start: "2020-03-01 08:00:00 +0100", end: "2020-03-01 08:10:00 +0100")
    + F.record("HKQuantityTypeIdentifierStepCount", value: "200",
               start: "2020-03-01 09:00:00 +0100", end: "2020-03-01 09:10:00 +0100")
private let after = F.record("HKQuantityTypeIdentifierStepCount", value: "300",
                             start: "2020-03-01 10:00:00 +0100", end: "2020-03-01 10:10:00 +0100")

/// One record that cannot be stored, the reason it must be counted under and a fragment of what must be said.
struct BadRecord: CustomTestStringConvertible, Sendable {
    let reason: String
    let xml: String
    let says: String
    var testDescription: String { "\(reason): \(says)" }
}

private let steps = "HKQuantityTypeIdentifierStepCount"
private let badRecords: [BadRecord] = [
    BadRecord(reason: "missing_attribute",
              xml: #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" unit="count" endDate="2020-03-02 08:10:00 +0100" value="5"/>"# + "\n",
              says: "it has no startDate attribute"),
    BadRecord(reason: "missing_attribute",
              xml: #" <Record sourceName="iPhone" unit="count" startDate="2020-03-02 08:00:00 +0100" endDate="2020-03-02 08:10:00 +0100" value="5"/>"# + "\n",
              says: "it has no type attribute"),
    BadRecord(reason: "missing_value",
              xml: #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" unit="count" startDate="2020-03-02 08:00:00 +0100" endDate="2020-03-02 08:10:00 +0100"/>"# + "\n",
              says: "it has no value attribute"),
    BadRecord(reason: "unreadable_value", xml: F.record(steps, value: "12,5", start: "2020-03-02 08:00:00 +0100", end: "2020-03-02 08:10:00 +0100"),
              says: #"value "12,5" is not a number"#),
    BadRecord(reason: "unreadable_value",
              xml: F.record("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", unit: "ms", value: "41.2",
                            start: "2020-03-02 08:00:00 +0100", end: "2020-03-02 08:01:00 +0100",
                            children: "  <HeartRateVariabilityMetadataList>\n   <InstantaneousBeatsPerMinute bpm=\"sixty\" time=\"8:00:01.00 AM\"/>\n  </HeartRateVariabilityMetadataList>"),
              says: #"InstantaneousBeatsPerMinute bpm "sixty" is not a number"#),
    BadRecord(reason: "unreadable_date", xml: F.record(steps, value: "5", start: "2019-13-01 08:00:00 +0100", end: "2019-13-01 08:10:00 +0100"),
              says: #"startDate "2019-13-01 08:00:00 +0100" is not a date"#),
    BadRecord(reason: "unreadable_date", xml: F.record(steps, value: "5", start: "2020-03-02 08:00:00 +0100", end: "2020-03-02 08:10:00 +0100", created: "yesterday"),
              says: #"creationDate "yesterday" is not a date"#),
    BadRecord(reason: "unknown_category_value",
              xml: F.record("HKCategoryTypeIdentifierSleepAnalysis", unit: nil, value: "HKCategoryValueSleepAnalysisAsleepDreaming",
                            start: "2020-03-02 01:00:00 +0100", end: "2020-03-02 02:00:00 +0100"),
              says: #"value "HKCategoryValueSleepAnalysisAsleepDreaming" is not a category value this importer knows"#),
    BadRecord(reason: "end_before_start", xml: F.record(steps, value: "5", start: "2020-03-02 08:10:00 +0100", end: "2020-03-02 08:00:00 +0100"),
              says: #"field "endDate" is before startDate"#),
    BadRecord(reason: "instant_out_of_range", xml: F.record(steps, value: "5", start: "0000-12-31 08:00:00 +0100", end: "2020-03-02 08:00:00 +0100"),
              says: #"field "startDate" is outside"#),
    BadRecord(reason: "negative_value", xml: F.record(steps, value: "-5", start: "2020-03-02 08:00:00 +0100", end: "2020-03-02 08:10:00 +0100"),
              says: "-5.0 is negative for a cumulative type"),
    BadRecord(reason: "value_out_of_range", xml: F.record(steps, value: "2000000", start: "2020-03-02 08:00:00 +0100", end: "2020-03-02 08:10:00 +0100"),
              says: "is over the limit of 1000000 steps"),
    BadRecord(reason: "value_not_finite", xml: F.record(steps, value: "1e999", start: "2020-03-02 08:00:00 +0100", end: "2020-03-02 08:10:00 +0100"),
              says: "is not a finite number"),
    BadRecord(reason: "invalid_offset", xml: F.record(steps, value: "5", start: "2020-03-02 08:00:00 +2000", end: "2020-03-02 08:10:00 +2000"),
              says: "72000 s is beyond ±18 hours"),
    BadRecord(reason: "field_too_long", xml: F.record(steps, source: String(repeating: "x", count: 2000), value: "5",
                                                       start: "2020-03-02 08:00:00 +0100", end: "2020-03-02 08:10:00 +0100"),
              says: #"field "sourceName" is 2000 bytes long"#),
    BadRecord(reason: "invalid_type", xml: F.record("HK Quantity Type", value: "5", start: "2020-03-02 08:00:00 +0100", end: "2020-03-02 08:10:00 +0100"),
              says: #"field "type""#),
    BadRecord(reason: "unreadable_date",
              xml: #" <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Apple Watch" startDate="2020-03-02 18:00:00 +0100" endDate="2020-03-02 18:30:00 +0100">"#
                  + "\n" + #"  <WorkoutEvent type="HKWorkoutEventTypePause" date="2020-03-02 18:61:00 +0100"/>"# + "\n </Workout>\n",
              says: #"WorkoutEvent date "2020-03-02 18:61:00 +0100" is not a date"#),
    BadRecord(reason: "unreadable_value",
              xml: #" <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="furlong" sourceName="Apple Watch" startDate="2020-03-02 18:00:00 +0100" endDate="2020-03-02 18:30:00 +0100"/>"# + "\n",
              says: #"durationUnit "furlong" is not a unit of time"#),
]

/// The line of the first line holding `needle` in `text`.
func line(of needle: String, in text: String) -> Int {
    text.components(separatedBy: "\n").firstIndex { $0.contains(needle) }! + 1
}

@Suite("Records that cannot be stored are skipped, counted and named; --strict refuses them")
struct RecordSkipTests {
    @Test("the record is skipped and counted by reason, its line named, every other record imported", arguments: badRecords)
    func skipped(_ bad: BadRecord) throws {
        let w = try Workspace()
        let text = F.document(.v14, body: before + bad.xml + after)
        let path = try F.zip([("apple_health_export/export.xml", text)], named: "export.zip", in: w.directory)
        let badLine = line(of: bad.xml.split(separator: "\n")[0].trimmingCharacters(in: .whitespaces), in: text)

        let summary = try w.importExport(path)

        #expect(summary.skipped.mapKeys(\.key) == [bad.reason: 1])
        #expect(summary.inserted == 3 && summary.insertedSteps == 600)
        #expect(summary.recordsRead == 4)
        let skip = try #require(summary.firstSkipped.first)
        #expect(skip.line == badLine)
        #expect(skip.reason.key == bad.reason)
        #expect(skip.detail.contains(bad.says), "\(skip.detail) should contain \(bad.says)")
        #expect(try w.store.total(of: .stepCount, in: all).sum == 600)
    }

    @Test("with --strict the same record imports nothing, names file, entry, line and reason, and changes nothing",
          arguments: badRecords)
    func strict(_ bad: BadRecord) throws {
        let w = try Workspace()
        _ = try w.importExport(try F.write(F.document(.v14, body: mainBody), named: "before.xml", in: w.directory))
        let unchanged = try w.snapshot()
        let text = F.document(.v14, body: before + bad.xml + after)
        let path = try F.zip([("apple_health_export/Export.xml", text)], named: "export.zip", in: w.directory)
        let badLine = line(of: bad.xml.split(separator: "\n")[0].trimmingCharacters(in: .whitespaces), in: text)

        let error = try #require(throws: ImportError.self) { try w.importExport(path, strict: true) }

        #expect(error.message.hasPrefix("\(path): apple_health_export/Export.xml line \(badLine): "), "\(error.message)")
        #expect(error.message.contains("(\(bad.reason))"), "\(error.message)")
        #expect(error.message.contains(bad.says), "\(error.message)")
        #expect(error.message.contains("--strict"))
        #expect(try w.snapshot() == unchanged)
        // Without --strict the same file imports, skipping only that record.
        #expect(try w.importExport(path).skippedCount == 1)
    }

    @Test("many bad records: each reason counted, the first five named in order, the rest imported")
    func manyBadRecords() throws {
        let w = try Workspace()
        let body = badRecords.map(\.xml).joined() + before + after
        let text = F.document(.v11, body: body)
        let summary = try w.importExport(try F.write(text, named: "export.xml", in: w.directory))

        var expected: [String: Int] = [:]
        for bad in badRecords { expected[bad.reason, default: 0] += 1 }
        #expect(summary.skipped.mapKeys(\.key) == expected)
        #expect(summary.skippedCount == badRecords.count)
        #expect(summary.firstSkipped.count == 5)
        #expect(summary.firstSkipped.map(\.line) == badRecords.prefix(5).map {
            line(of: $0.xml.split(separator: "\n")[0].trimmingCharacters(in: .whitespaces), in: text)
        })
        #expect(summary.firstSkipped[2].description.hasPrefix("line \(summary.firstSkipped[2].line): Record HKQuantityTypeIdentifierStepCount skipped (missing_value): it has no value attribute"))
        #expect(summary.inserted == 3 && summary.insertedSteps == 600)
    }

    @Test("an error quotes at most 64 bytes of a bad value")
    func shortQuotes() throws {
        let w = try Workspace()
        let long = String(repeating: "9,", count: 200)
        let text = F.document(.v14, body: F.record(steps, value: long, start: "2020-03-02 08:00:00 +0100", end: "2020-03-02 08:10:00 +0100"))
        let error = try #require(throws: ImportError.self) {
            try w.importExport(try F.write(text, named: "export.xml", in: w.directory), strict: true)
        }
        #expect(error.message.contains("\"" + String(long.prefix(64)) + "\"…"))
        #expect(!error.message.contains(String(long.prefix(65))))
    }
}

extension Dictionary {
    /// The same values under transformed keys.
    func mapKeys<K: Hashable>(_ transform: (Key) -> K) -> [K: Value] {
        Dictionary<K, Value>(uniqueKeysWithValues: map { (transform($0.key), $0.value) })
    }
}
