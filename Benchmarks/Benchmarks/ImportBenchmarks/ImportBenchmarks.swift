import Benchmark
import Foundation
import StepSyncImport
import StepSyncStore
import ZIPFoundation

/// How many records the generated export holds.
let recordCount = 1_000_000

/// Where the generated export lives. It is kept between runs (it takes a while to write and deflate) and is the
/// same file `healthkit-to-sqlite` was timed on: see `Planning/import.md`.
let exportDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("stepsync-import-bench")

/// Writes (once) an export.zip of `recordCount` records in the real format: a v14 header with its DTD, then iPhone
/// and Watch step counts, Watch heart rate with a metadata entry, and distance, with offsets that change at DST.
func makeExport() throws -> URL {
    let zip = exportDirectory.appendingPathComponent("export.zip")
    let xml = exportDirectory.appendingPathComponent("apple_health_export/export.xml")
    if FileManager.default.fileExists(atPath: zip.path) { return zip }
    try FileManager.default.createDirectory(at: xml.deletingLastPathComponent(), withIntermediateDirectories: true)
    FileManager.default.createFile(atPath: xml.path, contents: nil)
    let out = try FileHandle(forWritingTo: xml)
    var buffer = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!-- HealthKit Export Version: 14 -->
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
        <!ATTLIST HealthData
          locale CDATA #REQUIRED
        >
        <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
        <!ATTLIST Record
          type          CDATA #REQUIRED
          unit          CDATA #IMPLIED
          value         CDATA #IMPLIED
          sourceName    CDATA #REQUIRED
          sourceVersion CDATA #IMPLIED
          device        CDATA #IMPLIED
          creationDate  CDATA #IMPLIED
          startDate     CDATA #REQUIRED
          endDate       CDATA #REQUIRED
        >
        ]>
        <HealthData locale="en_GB">
         <ExportDate value="2024-05-11 16:27:22 +0200"/>

        """
    let phone = "&lt;&lt;HKDevice: 0x283a1c0a0&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone12,1, software:16.5&gt;"
    let watch = "&lt;&lt;HKDevice: 0x283a1c3c0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:9.5&gt;"
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "Europe/Berlin")
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
    var minute = Date(timeIntervalSince1970: 1_420_070_400)  // 2015-01-01
    for i in 0..<recordCount {
        let start = formatter.string(from: minute)
        let end = formatter.string(from: minute.addingTimeInterval(300))
        switch i % 4 {
        case 0:
            buffer += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Anna’s iPhone\" sourceVersion=\"16.5\" device=\"\(phone)\" unit=\"count\" creationDate=\"\(end)\" startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(100 + i % 400)\"/>\n"
        case 1:
            buffer += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Anna’s Apple Watch\" sourceVersion=\"9.5\" device=\"\(watch)\" unit=\"count\" creationDate=\"\(end)\" startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(90 + i % 380)\"/>\n"
        case 2:
            buffer += " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Anna’s Apple Watch\" sourceVersion=\"9.5\" device=\"\(watch)\" unit=\"count/min\" creationDate=\"\(end)\" startDate=\"\(start)\" endDate=\"\(start)\" value=\"\(60 + i % 70)\">\n  <MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"0\"/>\n </Record>\n"
        default:
            buffer += " <Record type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" sourceName=\"Anna’s iPhone\" sourceVersion=\"16.5\" device=\"\(phone)\" unit=\"km\" creationDate=\"\(end)\" startDate=\"\(start)\" endDate=\"\(end)\" value=\"0.\(100 + i % 800)\"/>\n"
            minute = minute.addingTimeInterval(600)
        }
        if buffer.utf8.count > 4 << 20 {
            out.write(Data(buffer.utf8))
            buffer = ""
        }
    }
    buffer += "</HealthData>\n"
    out.write(Data(buffer.utf8))
    try out.close()
    let archive = try Archive(url: zip, accessMode: .create)
    try archive.addEntry(with: "apple_health_export/export.xml", relativeTo: exportDirectory,
                         compressionMethod: .deflate, bufferSize: 1 << 20)
    return zip
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        // One import of the 1 M-record export per iteration: records/s = 1,000,000 / wall clock.
        metrics: [.wallClock, .peakMemoryResident, .mallocCountTotal],
        timeUnits: .milliseconds,
        maxDuration: .seconds(120),
        maxIterations: 3)

    Benchmark("import export.zip (1M records) into an empty store", configuration: configuration) { benchmark, zip in
        let storePath = exportDirectory.appendingPathComponent("bench-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storePath + suffix) }
        }
        let store = try StepStore(path: storePath)
        benchmark.startMeasurement()
        let summary = try HealthImporter(store: store).importExport(at: zip.path)
        benchmark.stopMeasurement()
        precondition(summary.inserted == recordCount, "imported \(summary.inserted) of \(recordCount)")
        blackHole(summary)
    } setup: {
        try makeExport()
    }

    Benchmark("import export.xml (1M records) into an empty store", configuration: configuration) { benchmark, xml in
        let storePath = exportDirectory.appendingPathComponent("bench-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storePath + suffix) }
        }
        let store = try StepStore(path: storePath)
        benchmark.startMeasurement()
        let summary = try HealthImporter(store: store).importExport(at: xml.path)
        benchmark.stopMeasurement()
        precondition(summary.inserted == recordCount, "imported \(summary.inserted) of \(recordCount)")
        blackHole(summary)
    } setup: {
        try makeExport().deletingLastPathComponent().appendingPathComponent("apple_health_export/export.xml")
    }
}
