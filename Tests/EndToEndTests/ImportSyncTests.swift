import Foundation
import StepSyncCore
import StepSyncStore
import StepSyncTestSupport
import Testing
import ZIPFoundation

/// Issue 10, end to end: a real-shaped export.zip with records that must be skipped goes through the real `stepsync`
/// binary (`import`, `layer`, `sync`) into the real sink, and the sink ends up with exactly the export's valid step
/// records — the store's step uuids, no more, no fewer.
@Suite("Import, layer and sync an Apple Health export, end to end", .serialized)
struct ImportSyncTests {
    /// An export of `days` days: every 10 minutes of the waking day an iPhone and a Watch step record, a Watch heart
    /// rate; each day an HRV record with beats, a mindful session without a value and a workout; and four step
    /// records that cannot be stored (no value, a negative count, an end before its start, an unreadable date).
    /// Returns the XML and how many step records are valid.
    static func export(days: Int) -> (xml: String, validSteps: Int, stepSum: Double, badLines: [Int]) {
        let phone = "&lt;&lt;HKDevice: 0x283a1c0a0&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone12,1, software:16.5&gt;"
        let watch = "&lt;&lt;HKDevice: 0x283a1c3c0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:9.5&gt;"
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            "<!DOCTYPE HealthData [",
            "<!-- HealthKit Export Version: 14 -->",
            "<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>",
            "<!ATTLIST Record",
            "  type          CDATA #REQUIRED",
            "  value         CDATA #IMPLIED",
            ">",
            "]>",
            #"<HealthData locale="de_DE">"#,
            #" <ExportDate value="2024-06-01 09:00:00 +0200"/>"#,
        ]
        var validSteps = 0
        var stepSum = 0.0
        var badLines: [Int] = []
        /// `2024-03-01 08:00:00 +0100` for day `d` (from 2024-03-01, 31 days a month is enough here), minute `m`.
        func stamp(_ d: Int, _ m: Int) -> String {
            let month = 3 + d / 28, day = 1 + d % 28
            let offset = month >= 4 ? "+0200" : "+0100"
            return String(format: "2024-%02d-%02d %02d:%02d:00 %@", month, day, m / 60, m % 60, offset)
        }
        for d in 0..<days {
            for slot in 0..<96 {  // 07:00 … 22:50
                let m = 7 * 60 + slot * 10
                let dates = #"creationDate="\#(stamp(d, m + 6))" startDate="\#(stamp(d, m))" endDate="\#(stamp(d, m + 5))""#
                let phoneSteps = 20 + (d * 7 + slot * 13) % 400, watchSteps = 15 + (d * 11 + slot * 7) % 380
                lines.append(#" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Anna’s iPhone" sourceVersion="16.5" device="\#(phone)" unit="count" \#(dates) value="\#(phoneSteps)"/>"#)
                lines.append(#" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Anna’s Apple Watch" sourceVersion="9.5" device="\#(watch)" unit="count" \#(dates) value="\#(watchSteps)"/>"#)
                lines.append(#" <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Anna’s Apple Watch" sourceVersion="9.5" device="\#(watch)" unit="count/min" \#(dates) value="\#(60 + slot % 50)">"#)
                lines.append(#"  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>"#)
                lines.append(" </Record>")
                validSteps += 2
                stepSum += Double(phoneSteps + watchSteps)
            }
            lines.append(#" <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Anna’s Apple Watch" device="\#(watch)" unit="ms" startDate="\#(stamp(d, 180))" endDate="\#(stamp(d, 181))" value="48.5">"#)
            lines.append("  <HeartRateVariabilityMetadataList>")
            lines.append(#"   <InstantaneousBeatsPerMinute bpm="55" time="3:00:02.11 AM"/>"#)
            lines.append("  </HeartRateVariabilityMetadataList>")
            lines.append(" </Record>")
            lines.append(#" <Record type="HKCategoryTypeIdentifierMindfulSession" sourceName="Breathe" startDate="\#(stamp(d, 1200))" endDate="\#(stamp(d, 1201))"/>"#)
            lines.append(#" <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="30" durationUnit="min" sourceName="Anna’s Apple Watch" device="\#(watch)" startDate="\#(stamp(d, 1080))" endDate="\#(stamp(d, 1110))">"#)
            lines.append(#"  <WorkoutStatistics type="HKQuantityTypeIdentifierStepCount" startDate="\#(stamp(d, 1080))" endDate="\#(stamp(d, 1110))" sum="3100" unit="count"/>"#)
            lines.append(" </Workout>")
        }
        let bad = [
            #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Pedometer++" unit="count" startDate="2024-03-02 12:00:00 +0100" endDate="2024-03-02 12:05:00 +0100"/>"#,
            #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Pedometer++" unit="count" startDate="2024-03-02 12:10:00 +0100" endDate="2024-03-02 12:15:00 +0100" value="-40"/>"#,
            #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Pedometer++" unit="count" startDate="2024-03-02 12:25:00 +0100" endDate="2024-03-02 12:20:00 +0100" value="40"/>"#,
            #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Pedometer++" unit="count" startDate="2024-03-32 12:30:00 +0100" endDate="2024-03-02 12:35:00 +0100" value="40"/>"#,
        ]
        // After the header (11 lines) and six slots of five lines: between two records, in document order.
        for record in bad.reversed() {
            lines.insert(record, at: 11 + 6 * 5)
        }
        badLines = bad.map { record in lines.firstIndex(of: record)! + 1 }
        lines.append("</HealthData>")
        return (lines.joined(separator: "\n") + "\n", validSteps, stepSum, badLines)
    }

    static func stepUUIDs(_ store: StepStore) throws -> Set<UUID> {
        var uuids = Set<UUID>()
        try store.forEachSamplePage(of: .stepCount, in: LayeringEngine.domain, pageSize: 5_000) { page in
            for sample in page { uuids.insert(sample.uuid) }
        }
        return uuids
    }

    @Test("the sink's step uuids equal the store's, and their count the export's valid step records; --strict imports nothing")
    func importLayerSync() async throws {
        let dir = TemporaryDirectory.uniquePath("stepsync-import-e2e")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let data = ["--data-dir", (dir as NSString).appendingPathComponent("data")]
        let (xml, validSteps, stepSum, badLines) = Self.export(days: 30)
        let zipURL = URL(fileURLWithPath: dir).appendingPathComponent("export.zip")
        let archive = try Archive(url: zipURL, accessMode: .create)
        let bytes = Data(xml.utf8)
        try archive.addEntry(with: "apple_health_export/export.xml", type: .file, uncompressedSize: Int64(bytes.count),
                             compressionMethod: .deflate) { position, size in
            bytes.subdata(in: Int(position)..<min(bytes.count, Int(position) + size))
        }

        // --strict: refused, naming file, entry, the first bad record's line and reason; the store stays empty.
        let (strictStatus, strict) = try await StepSyncProcess.run(["import", zipURL.path, "--strict", "--json"] + data)
        #expect(strictStatus != 0)
        #expect(strict.stderr.contains("\(zipURL.path): apple_health_export/export.xml line \(badLines[0]): Record HKQuantityTypeIdentifierStepCount cannot be imported (missing_value)"), "\(strict.stderr)")
        #expect(strict.stderr.contains("Nothing was imported"))
        #expect(strict.stdout.isEmpty)
        let store = try StepStore(dataDirectory: DataDirectory(path: data[1]))
        #expect(try store.changeSequence() == 0)

        // Without --strict: the four bad step records are skipped and counted, everything else stored.
        let (status, imported) = try await StepSyncProcess.run(["import", zipURL.path, "--json"] + data)
        #expect(status == 0, "\(imported.stderr)")
        let summary = try imported.json()
        #expect(summary["stepSamples"] as? Int == validSteps)
        #expect((summary["steps"] as? NSNumber)?.doubleValue == stepSum)
        #expect(summary["workouts"] as? Int == 30)
        #expect(summary["skipped"] as? [String: Int] == ["missing_value": 1, "negative_value": 1, "end_before_start": 1, "unreadable_date": 1])
        let skippedRecords = try #require(summary["skippedRecords"] as? [[String: Any]])
        #expect(skippedRecords.map { $0["line"] as? Int } == badLines)
        #expect(summary["samples"] as? Int == validSteps + 30 * 96 + 30 * 3)

        let storedSteps = try Self.stepUUIDs(store)
        #expect(storedSteps.count == validSteps)
        #expect(try store.total(of: .stepCount, in: LayeringEngine.domain).sum == stepSum)

        try await SinkHarness.withSink { port in
            let layer = try await StepSyncProcess.run(["layer", "--json"] + data)
            #expect(layer.status == 0, "\(layer.process.stderr)")
            let (syncStatus, sync) = try await StepSyncProcess.run(
                ["sync", "--server", "http://127.0.0.1:\(port)", "--concurrency", "3", "--backoff-base", "0.01", "--json"] + data)
            #expect(syncStatus == 0, "\(sync.stderr)")

            let sink = try await SinkHarness.storedUUIDs(port: port)
            #expect(sink.count == validSteps)
            #expect(sink.uuids == storedSteps)
        }
    }
}
