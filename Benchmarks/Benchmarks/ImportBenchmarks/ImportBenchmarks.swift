import Benchmark
import Foundation
import Issue14Support
import StepSyncCore
import StepSyncImport
import StepSyncStore
import ZIPFoundation

// MARK: - The benchmark export

/// How many top-level `<Record>` elements the generated export holds (the figure the issue's table quotes).
let recordCount = 500_158

/// The export issue 14's import row times, if `STEPSYNC_BENCH_EXPORT` names one (it must exist: it is not written);
/// otherwise the recipe's, written on first use.
let givenExport: URL? = ProcessInfo.processInfo.environment["STEPSYNC_BENCH_EXPORT"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }

/// Where the generated export lives. It is kept between runs (it takes a while to write and deflate) and is the
/// same file `healthkit-to-sqlite` is timed on: see `Planning/import.md`. The folder name carries the recipe's
/// version: change it when the recipe changes.
let exportDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("stepsync-import-bench-r2")

/// The recipe, deterministic: 500,158 records in 10-minute slots from 2015-01-01 on, Europe/Berlin offsets across
/// DST, in a cycle of 16 kinds — 4 iPhone step counts, 3 Watch step counts, 3 distances, 2 Watch heart rates with a
/// `MetadataEntry`, 1 active and 1 basal energy, 1 flights-climbed record with no version and no device, and 1 of
/// (HRV with 40 `InstantaneousBeatsPerMinute`, sleep stage label, stand hour label, mindful session) in turn — plus a
/// workout (3 statistics, 2 events, 3 metadata entries, a route) every 1,000 records and an `ActivitySummary` every
/// 144 records. Every value is present, so an importer that reads only complete records imports it whole.
/// `Benchmarks/ImportCompare/make_export.py` writes the same XML without Swift (for `compare.sh` on a fresh machine):
/// change both together.
func makeExport() throws -> URL {
    if let givenExport {
        precondition(FileManager.default.fileExists(atPath: givenExport.path), "STEPSYNC_BENCH_EXPORT: no file at \(givenExport.path)")
        return givenExport
    }
    let zip = exportDirectory.appendingPathComponent("export.zip")
    let xml = exportDirectory.appendingPathComponent("apple_health_export/export.xml")
    if FileManager.default.fileExists(atPath: zip.path) { return zip }
    try FileManager.default.createDirectory(at: xml.deletingLastPathComponent(), withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: xml.path, contents: nil)
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
    let berlin = TimeZone(identifier: "Europe/Berlin")!
    /// `2019-01-01 08:00:00 +0100` for a UTC instant, in Berlin time.
    func stamp(_ ms: Int64) -> String {
        let offset = berlin.secondsFromGMT(for: Date(timeIntervalSince1970: Double(ms) / 1000))
        let iso = ISO8601Millis.format(ms + Int64(offset) * 1000)  // local wall time, written as if UTC
        let sign = offset < 0 ? "-" : "+"
        let hours = abs(offset) / 3600, minutes = abs(offset) % 3600 / 60
        return "\(iso.prefix(10)) \(iso.dropFirst(11).prefix(8)) \(sign)\(hours < 10 ? "0" : "")\(hours)\(minutes < 10 ? "0" : "")\(minutes)"
    }
    let base: Int64 = 1_420_070_400_000  // 2015-01-01T00:00:00Z
    for i in 0..<recordCount {
        let slot = base + Int64(i) * 600_000
        let start = stamp(slot), end = stamp(slot + 300_000), created = stamp(slot + 320_000)
        let dates = "creationDate=\"\(created)\" startDate=\"\(start)\" endDate=\"\(end)\""
        switch i % 16 {
        case 0, 1, 2, 3:
            buffer += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Anna’s iPhone\" sourceVersion=\"16.5\" device=\"\(phone)\" unit=\"count\" \(dates) value=\"\(100 + i % 400)\"/>\n"
        case 4, 5, 6:
            buffer += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Anna’s Apple Watch\" sourceVersion=\"9.5\" device=\"\(watch)\" unit=\"count\" \(dates) value=\"\(90 + i % 380)\"/>\n"
        case 7, 8, 9:
            buffer += " <Record type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" sourceName=\"Anna’s iPhone\" sourceVersion=\"16.5\" device=\"\(phone)\" unit=\"km\" \(dates) value=\"0.\(100 + i % 800)\"/>\n"
        case 10, 11:
            buffer += " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Anna’s Apple Watch\" sourceVersion=\"9.5\" device=\"\(watch)\" unit=\"count/min\" creationDate=\"\(created)\" startDate=\"\(start)\" endDate=\"\(start)\" value=\"\(60 + i % 70)\">\n  <MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"\(i % 3)\"/>\n </Record>\n"
        case 12:
            buffer += " <Record type=\"HKQuantityTypeIdentifierActiveEnergyBurned\" sourceName=\"Anna’s Apple Watch\" sourceVersion=\"9.5\" device=\"\(watch)\" unit=\"kcal\" \(dates) value=\"\(i % 50).\(i % 1000)\"/>\n"
        case 13:
            buffer += " <Record type=\"HKQuantityTypeIdentifierBasalEnergyBurned\" sourceName=\"Anna’s Apple Watch\" sourceVersion=\"9.5\" device=\"\(watch)\" unit=\"kcal\" \(dates) value=\"\(5 + i % 20).\(i % 100)\"/>\n"
        case 14:
            buffer += " <Record type=\"HKQuantityTypeIdentifierFlightsClimbed\" sourceName=\"Anna’s iPhone\" unit=\"count\" \(dates) value=\"\(1 + i % 4)\"/>\n"
        default:
            switch i / 16 % 4 {
            case 0:
                var beats = ""
                for b in 0..<40 {
                    let second = 20 + b * 3 / 4
                    beats += "   <InstantaneousBeatsPerMinute bpm=\"\(60 + (i + b) % 40)\" time=\"11:17:\(second).\(10 + b) AM\"/>\n"
                }
                buffer += " <Record type=\"HKQuantityTypeIdentifierHeartRateVariabilitySDNN\" sourceName=\"Anna’s Apple Watch\" sourceVersion=\"9.5\" device=\"\(watch)\" unit=\"ms\" \(dates) value=\"\(30 + i % 40).\(i % 10)\">\n  <HeartRateVariabilityMetadataList>\n\(beats)  </HeartRateVariabilityMetadataList>\n </Record>\n"
            case 1:
                buffer += " <Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" sourceName=\"Anna’s Apple Watch\" sourceVersion=\"9.5\" device=\"\(watch)\" \(dates) value=\"HKCategoryValueSleepAnalysisAsleepCore\"/>\n"
            case 2:
                buffer += " <Record type=\"HKCategoryTypeIdentifierAppleStandHour\" sourceName=\"Anna’s Apple Watch\" sourceVersion=\"9.5\" device=\"\(watch)\" \(dates) value=\"HKCategoryValueAppleStandHourStood\"/>\n"
            default:
                buffer += " <Record type=\"HKCategoryTypeIdentifierMindfulSession\" sourceName=\"Anna’s Apple Watch\" sourceVersion=\"9.5\" device=\"\(watch)\" \(dates) value=\"HKCategoryValueNotApplicable\"/>\n"
            }
        }
        if i % 1000 == 999 {
            let wEnd = stamp(slot + 1_800_000), wCreated = stamp(slot + 1_810_000)
            buffer += """
                 <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="30" durationUnit="min" sourceName="Anna’s Apple Watch" sourceVersion="9.5" device="\(watch)" creationDate="\(wCreated)" startDate="\(start)" endDate="\(wEnd)">
                  <MetadataEntry key="HKIndoorWorkout" value="0"/>
                  <MetadataEntry key="HKTimeZone" value="Europe/Berlin"/>
                  <MetadataEntry key="HKAverageMETs" value="4.52156 kcal/hr·kg"/>
                  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="\(start)" duration="15" durationUnit="min"/>
                  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="\(stamp(slot + 900_000))" duration="15" durationUnit="min"/>
                  <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="\(start)" endDate="\(wEnd)" sum="\(100 + i % 90).5" unit="kcal"/>
                  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="\(start)" endDate="\(wEnd)" sum="2.\(i % 1000)" unit="km"/>
                  <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="\(start)" endDate="\(wEnd)" average="109.484" minimum="100" maximum="\(117 + i % 30)" unit="count/min"/>
                  <WorkoutRoute sourceName="Anna’s Apple Watch" sourceVersion="9.5" creationDate="\(wCreated)" startDate="\(start)" endDate="\(wEnd)">
                   <FileReference path="/workout-routes/route_\(start.prefix(10))_\(i).gpx"/>
                  </WorkoutRoute>
                 </Workout>

                """
        }
        if i % 144 == 143 {
            buffer += " <ActivitySummary dateComponents=\"\(start.prefix(10))\" activeEnergyBurned=\"\(300 + i % 200)\" activeEnergyBurnedGoal=\"400\" activeEnergyBurnedUnit=\"kcal\" appleMoveTime=\"0\" appleMoveTimeGoal=\"0\" appleExerciseTime=\"\(i % 60)\" appleExerciseTimeGoal=\"30\" appleStandHours=\"\(i % 14)\" appleStandHoursGoal=\"12\"/>\n"
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

/// The workouts the recipe writes (one every 1,000 records).
let workoutCount = recordCount / 1000

/// The importer's uuid namespace (`RecordDecoder.namespace`), for the uuid stage benchmark.
enum RecordNamespace {
    static let value = UUID(uuidString: "6F3C1B52-7A0E-4D8B-9E21-5C4A7B9D0E13")!
}

/// Samples shaped like the recipe's records (same types, sources, devices and strings shared as the importer's
/// caches share them), with random uuids: the inserter's input without the parsing.
func exportShapedSamples(count: Int) -> [HealthSample] {
    let kinds: [(SampleType, String, String, String?, String?, String?)] = [
        (.stepCount, "count", "Anna’s iPhone", "16.5", "iPhone", "iPhone12,1"),
        (.stepCount, "count", "Anna’s Apple Watch", "9.5", "Apple Watch", "Watch6,2"),
        (SampleType("HKQuantityTypeIdentifierDistanceWalkingRunning"), "km", "Anna’s iPhone", "16.5", "iPhone", "iPhone12,1"),
        (.heartRate, "count/min", "Anna’s Apple Watch", "9.5", "Apple Watch", "Watch6,2"),
        (SampleType("HKQuantityTypeIdentifierFlightsClimbed"), "count", "Anna’s iPhone", nil, nil, nil),
    ]
    var rng = SplitMix64(seed: 14)
    return (0..<count).map { i in
        let k = kinds[i % 16 < 4 ? 0 : i % 16 < 7 ? 1 : i % 16 < 10 ? 2 : i % 16 < 12 ? 3 : 4]
        let start = 1_420_070_400_000 + Int64(i) * 600_000
        return HealthSample(
            uuid: UUID.random(using: &rng), type: k.0, startMs: start, endMs: start + 300_000, utcOffsetSeconds: 3600,
            value: Double(100 + i % 400), unit: k.1, sourceName: k.2, sourceBundleId: "", sourceVersion: k.3,
            deviceName: k.4, deviceModel: k.5, details: i % 8 == 2 ? "{\"metadata\":[[\"HKMetadataKeyHeartRateMotionContext\",\"1\"]]}" : nil)
    }
}

extension UUID {
    /// A random version-4 uuid from `rng`.
    static func random(using rng: inout some RandomNumberGenerator) -> UUID {
        let a = rng.next(), b = rng.next()
        var bytes = (UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0),
                     UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0))
        withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: a, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: b, toByteOffset: 8, as: UInt64.self)
            raw[6] = raw[6] & 0x0F | 0x40
            raw[8] = raw[8] & 0x3F | 0x80
        }
        return UUID(uuid: bytes)
    }
}

// MARK: - Benchmarks

/// The process's peak resident set (`ru_maxrss`) after an iteration, in MB: the same figure `/usr/bin/time` reports
/// for the `stepsync import` command. It never falls, so the largest iteration sets it.
let peakRSS = BenchmarkMetric.custom("peak RSS (MB)", polarity: .prefersSmaller, useScalingFactor: false)

/// A fresh store path in the export's folder, and its removal.
func freshStorePath() -> String {
    exportDirectory.appendingPathComponent("bench-\(UUID().uuidString).sqlite").path
}

func removeStore(_ path: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        // One import of the export per iteration: records/s = 500,158 / wall clock.
        metrics: [.wallClock, .peakMemoryResident, .mallocCountTotal],
        timeUnits: .milliseconds,
        maxDuration: .seconds(120),
        maxIterations: 3)

    // Issue 14's import row: wall clock (records/s = 500,158 / wall), CPU, and the process's peak resident set.
    Benchmark("import export.zip (500,158 records) into an empty store", configuration: .init(
        metrics: [.wallClock, .cpuTotal, .peakMemoryResident, .mallocCountTotal, peakRSS], timeUnits: .milliseconds,
        warmupIterations: 0, maxDuration: .seconds(120), maxIterations: 3)
    ) { benchmark, zip in
        let storePath = freshStorePath()
        defer { removeStore(storePath) }
        let store = try StepStore(path: storePath)
        let cpuBefore = Issue14.cpuSeconds(), start = ContinuousClock.now
        benchmark.startMeasurement()
        let summary = try HealthImporter(store: store, time: .system).importExport(at: zip.path)
        benchmark.stopMeasurement()
        let seconds = Issue14.seconds(ContinuousClock.now - start), cpu = Issue14.cpuSeconds() - cpuBefore
        if givenExport == nil {
            precondition(summary.recordsRead == recordCount + workoutCount, "read \(summary.recordsRead)")
            precondition(summary.inserted == recordCount + workoutCount, "imported \(summary.inserted)")
            // The workouts name route files the generated zip does not hold: those are counted, nothing else.
            precondition(summary.skippedCount == (summary.skipped[.missingRouteFile] ?? 0), "skipped \(summary.skipped)")
        }
        let megabytes = Issue14.peakResidentMegabytes()
        benchmark.measurement(peakRSS, Int(megabytes.rounded()))
        let size = (try? FileManager.default.attributesOfItem(atPath: zip.path)[.size] as? Int) ?? 0
        FileHandle.standardError.write(Data("import \(zip.path) (\(size) bytes): \(summary.recordsRead) read, \(summary.inserted) inserted, \(summary.skippedCount) skipped in \(seconds) s (\(cpu) CPU-s), peak RSS \(Int(megabytes)) MB\n".utf8))
        Issue14.record("import", input: "\(zip.path) (\(size) bytes, \(summary.recordsRead) records read, \(summary.inserted) inserted)",
                       ["seconds": seconds, "cpuSeconds": cpu, "peakRSSMB": megabytes,
                        "recordsPerSecond": Double(summary.recordsRead) / seconds])
        blackHole(summary)
    } setup: {
        try makeExport()
    }

    Benchmark("import export.xml (500,158 records) into an empty store", configuration: configuration) { benchmark, xml in
        let storePath = freshStorePath()
        defer { removeStore(storePath) }
        let store = try StepStore(path: storePath)
        benchmark.startMeasurement()
        let summary = try HealthImporter(store: store, time: .system).importExport(at: xml.path)
        benchmark.stopMeasurement()
        precondition(summary.inserted >= recordCount, "imported \(summary.inserted) of \(recordCount)")
        blackHole(summary)
    } setup: {
        try makeExport().deletingLastPathComponent().appendingPathComponent("apple_health_export/export.xml")
    }

    // The stages on their own (issue 14): the uuid of every record, and the store's inserter on the writer thread.
    let stage = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], timeUnits: .milliseconds,
                                        maxDuration: .seconds(60), maxIterations: 5)

    Benchmark("uuid derivation: 500,000 version-5 uuids of 192-byte record names (SHA-1)", configuration: stage) { _ in
        var name = [UInt8](repeating: 0x41, count: 192)
        var acc: UInt8 = 0
        for i in 0..<500_000 {
            name[i % 192] &+= 1
            acc ^= name.withUnsafeBytes { NameBasedUUID.v5(namespace: RecordNamespace.value, name: $0) }.uuid.0
        }
        blackHole(acc)
    }

    Benchmark("inserter: 500,000 export-shaped samples into an empty store (one transaction)", configuration: stage) { benchmark, samples in
        let storePath = freshStorePath()
        defer { removeStore(storePath) }
        let store = try StepStore(path: storePath)
        benchmark.startMeasurement()
        let summary = try store.insert(samples)
        benchmark.stopMeasurement()
        precondition(summary.inserted == samples.count, "inserted \(summary.inserted)")
        blackHole(summary)
    } setup: {
        exportShapedSamples(count: 500_000)
    }

    // Scanning, decoding and hashing without inserting: the store already holds every record.
    Benchmark("re-import export.zip (500,158 records, all already stored)", configuration: configuration) { benchmark, input in
        let store = try StepStore(path: input.store)
        benchmark.startMeasurement()
        let summary = try HealthImporter(store: store, time: .system).importExport(at: input.zip.path)
        benchmark.stopMeasurement()
        precondition(summary.inserted == 0, "inserted \(summary.inserted) on a re-import")
        blackHole(summary)
    } setup: { () -> (zip: URL, store: String) in
        let zip = try makeExport()
        let storePath = exportDirectory.appendingPathComponent("reimport.sqlite").path
        removeStore(storePath)
        _ = try HealthImporter(store: try StepStore(path: storePath), time: .system).importExport(at: zip.path)
        return (zip, storePath)
    } teardown: {
        removeStore(exportDirectory.appendingPathComponent("reimport.sqlite").path)
    }
}
