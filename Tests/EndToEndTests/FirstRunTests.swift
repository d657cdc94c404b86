import Foundation
import StepSyncTestSupport
import Testing

/// Issue 32.11: what a first run leaves behind. `sync` in an empty directory and a failed first `import` create no
/// store; an unzipped `apple_health_export` folder imports like its zip.
@Suite("First runs leave nothing behind; an unzipped export folder imports", .serialized)
struct FirstRunTests {
    static let document = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <ExportDate value="2025-06-01 10:00:00 +0200"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" unit="count" startDate="2025-05-01 08:00:00 +0200" endDate="2025-05-01 08:10:00 +0200" value="123"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" unit="count" startDate="2025-05-01 09:00:00 +0200" endDate="2025-05-01 09:10:00 +0200" value="77"/>
        </HealthData>

        """

    @Test("sync in a directory with no store exits non-zero naming it, and creates nothing")
    func syncWithoutStore() async throws {
        let dir = try TemporaryDirectory.make("stepsync-first-sync")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let data = dir + "/data"
        let (status, run) = try await StepSyncProcess.run(["sync", "--data-dir", data, "--give-up-after", "0.1"])
        #expect(status != 0)
        #expect(run.stderr.contains("no stepsync data in \(data)"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: data))
    }

    @Test("a failed first import leaves no store and no data directory; one into an existing store keeps it")
    func failedImportLeavesNothing() async throws {
        let dir = try TemporaryDirectory.make("stepsync-first-import")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let notAnExport = dir + "/notes.xml"
        try "<notes><note>not health data</note></notes>\n".write(toFile: notAnExport, atomically: true, encoding: .utf8)
        let data = dir + "/data"
        let (status, run) = try await StepSyncProcess.run(["import", notAnExport, "--data-dir", data])
        #expect(status == 1)
        #expect(run.stderr.contains("no store was left in \(data)"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: data), "the data directory the import made is gone")

        let good = dir + "/export.xml"
        try Self.document.write(toFile: good, atomically: true, encoding: .utf8)
        #expect(try await StepSyncProcess.run(["import", good, "--data-dir", data]).status == 0)
        let (again, againRun) = try await StepSyncProcess.run(["import", notAnExport, "--data-dir", data])
        #expect(again == 1 && againRun.stderr.contains("the store is as it was"), "\(againRun.stderr)")
        #expect(FileManager.default.fileExists(atPath: data + "/health.sqlite"))
    }

    @Test("import of an unzipped apple_health_export folder reads its export.xml")
    func unzippedFolder() async throws {
        let dir = try TemporaryDirectory.make("stepsync-folder-import")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let folder = dir + "/apple_health_export"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.document.write(toFile: folder + "/export.xml", atomically: true, encoding: .utf8)
        try "<ClinicalDocument/>\n".write(toFile: folder + "/export_cda.xml", atomically: true, encoding: .utf8)
        let (status, run) = try await StepSyncProcess.run(["import", folder, "--data-dir", dir + "/data", "--json"])
        #expect(status == 0, "\(run.stderr)")
        let summary = try run.json()
        #expect(summary["samples"] as? Int == 2 && summary["steps"] as? Int == 200)

        let empty = dir + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let (refused, refusedRun) = try await StepSyncProcess.run(["import", empty, "--data-dir", dir + "/data2"])
        #expect(refused == 1 && refusedRun.stderr.contains("without an export document"), "\(refusedRun.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/data2"))
    }
}
