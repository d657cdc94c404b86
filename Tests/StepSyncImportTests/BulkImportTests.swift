import Foundation
import GRDB
import StepSyncCore
import StepSyncStore
import StepSyncTestSupport
import Testing
@testable import StepSyncImport

/// An import into an empty or small store loads in bulk (``BulkLoad``: no indexes while loading, de-duplication by
/// an in-memory set, indexes built at the end); it must leave exactly the store, and report exactly the counts, of
/// the one-row-at-a-time path — on an export with identical records, routes and ECGs, a re-import, and a newer export.
@Suite("Bulk import")
struct BulkImportTests {
    /// What `import --json` reports, without the time.
    static func counts(_ s: ImportSummary) -> String {
        "\(s.recordsRead) \(s.recordsByType.sorted { $0.key.rawValue < $1.key.rawValue }) "
            + "\(s.insertedByType.sorted { $0.key.rawValue < $1.key.rawValue }) \(s.inserted) \(s.duplicates) "
            + "\(s.insertedSteps) \(s.skipped.sorted { $0.key.key < $1.key.key }) \(s.firstSkipped.map { "\($0)" }) "
            + "\(s.otherElements.sorted { $0.key < $1.key }) \(s.nestedRecords) \(s.routes) \(s.routePoints) "
            + "\(s.electrocardiograms) \(s.bytesRead)"
    }

    /// `count` step, heart-rate and sleep records in time order, every `every`-th written twice in a row
    /// (identical: the same uuid) and one record repeated far apart; some with a bad date (skipped).
    static func records(count: Int, every: Int, from day: Int = 1) -> String {
        var body = ""
        for i in 0..<count {
            let minute = i % 60, hour = i / 60 % 24, d = day + i / 1440
            let start = String(format: "2024-03-%02d %02d:%02d:00 +0100", d, hour, minute)
            let end = String(format: "2024-03-%02d %02d:%02d:30 +0100", d, hour, minute)
            let record: String
            switch i % 3 {
            case 0: record = HealthExportFixture.record("HKQuantityTypeIdentifierStepCount", value: "\(10 + i % 90)", start: start, end: end)
            case 1: record = HealthExportFixture.record("HKQuantityTypeIdentifierHeartRate", source: "Apple Watch", device: HealthExportFixture.watch,
                                                        unit: "count/min", value: "\(60 + i % 50)", start: start, end: start)
            default: record = HealthExportFixture.record("HKCategoryTypeIdentifierSleepAnalysis", source: "Apple Watch", unit: nil,
                                                         value: "HKCategoryValueSleepAnalysisAsleepCore", start: start, end: end)
            }
            body += record
            if i % every == 0 { body += record }
            if i % 97 == 5 {
                body += HealthExportFixture.record("HKQuantityTypeIdentifierStepCount", value: "5", start: "2024-13-01 00:00:00 +0100", end: end)
            }
        }
        body += HealthExportFixture.record("HKQuantityTypeIdentifierStepCount", value: "10", start: "2024-03-01 00:00:00 +0100",
                                           end: "2024-03-01 00:00:30 +0100")
        return body
    }

    /// Writes an export.zip: the series fixture (routes, ECGs, workouts) plus `body`.
    static func zip(_ body: String, named name: String, in directory: URL) throws -> String {
        let export = SeriesExportFixture.export(extraBody: body)
        return try HealthExportFixture.zip(export.entries, named: name, in: directory)
    }

    /// Imports `exports` one after another into a fresh store with `bulkLoad`; the counts of each and the store.
    static func run(_ exports: [String], bulkLoad: BulkLoad?, in directory: URL, name: String) throws -> ([String], [String]) {
        let path = directory.appendingPathComponent(name).path
        let store = try StepStore(path: path)
        let importer = HealthImporter(store: store, bulkLoad: bulkLoad, time: .system)
        let counts = try exports.map { Self.counts(try importer.importExport(at: $0)) }
        return (counts, try StoreDump.lines(path))
    }

    @Test("bulk and one-row-at-a-time imports give the same store and counts: duplicates, routes, ECGs, skips; a re-import and a newer export",
          arguments: [BulkLoad.standard, BulkLoad(maxStoredSamples: 65_536, capacity: 700)])
    func sameStoreAndCounts(policy: BulkLoad) throws {
        let directory = URL(fileURLWithPath: TemporaryDirectory.uniquePath("stepsync-bulk"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try Self.zip(Self.records(count: 1_500, every: 11), named: "first.zip", in: directory)
        // A newer export: the first's records and 900 more, written after them.
        let newer = try Self.zip(Self.records(count: 2_400, every: 11), named: "newer.zip", in: directory)
        let exports = [first, first, newer]

        let (expectedCounts, expectedStore) = try Self.run(exports, bulkLoad: nil, in: directory, name: "a.sqlite")
        let (counts, store) = try Self.run(exports, bulkLoad: policy, in: directory, name: "b.sqlite")
        #expect(counts == expectedCounts)
        #expect(store == expectedStore)
        #expect(store.last == "ok")

        // The counts say what happened: duplicates found in the first import, all of it again in the second.
        let importer = HealthImporter(store: try StepStore(path: directory.appendingPathComponent("c.sqlite").path), bulkLoad: policy,
                                      time: .system)
        let once = try importer.importExport(at: first)
        #expect(once.duplicates == 1_500 / 11 + 1 + 1)  // every 11th record twice, and the one repeated at the end
        #expect(once.skipped[.unreadableDate] == 1_500 / 97 + 1)
        let twice = try importer.importExport(at: first)
        #expect(twice.inserted == 0 && twice.duplicates == once.inserted + once.duplicates)
    }

    @Test("a bulk import refused under --strict leaves the store exactly as it was")
    func strictRefusalRollsBack() throws {
        let directory = URL(fileURLWithPath: TemporaryDirectory.uniquePath("stepsync-bulk"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = try Self.zip(Self.records(count: 300, every: 1_000, from: 10), named: "good.zip", in: directory)
        let bad = try Self.zip(Self.records(count: 1_500, every: 11), named: "bad.zip", in: directory)
        let path = directory.appendingPathComponent("a.sqlite").path
        let importer = HealthImporter(store: try StepStore(path: path), bulkLoad: .standard, time: .system)
        _ = try importer.importExport(at: good)
        let before = try StoreDump.lines(path)
        #expect(throws: ImportError.self) { _ = try importer.importExport(at: bad, strict: true) }
        #expect(try StoreDump.lines(path) == before)
    }
}
