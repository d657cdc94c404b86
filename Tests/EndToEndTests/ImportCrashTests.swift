import Foundation
import GRDB
import StepSyncStore
import StepSyncTestSupport
import Testing

/// `stepsync import` killed with `kill -9` while its bulk load writes into the store through a rollback journal
/// (`BulkJournal`): the pages it appended are in the database file, the journal holds the pages it changed. The next
/// process to open the store must roll the journal back, leave the store exactly as before the import, in WAL mode,
/// and a second import must then store every record.
@Suite("An import killed with kill -9", .serialized)
struct ImportCrashTests {
    /// A bare export.xml of `records` heart-rate records, each with a metadata value of `padding` bytes, so that the
    /// records' rows outgrow the writer's 32 MiB page cache and spill into the database before the transaction ends.
    static func export(records: Int, padding: Int, minuteOffset: Int = 0) -> String {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n<HealthData locale=\"en_US\">\n"
        xml.reserveCapacity(records * (padding + 400))
        let pad = String(repeating: "x", count: padding)
        for i in 0..<records {
            let minute = minuteOffset + i
            let stamp = String(format: "2023-%02d-%02d %02d:%02d:00 +0000", 1 + minute / 40_320 % 12, 1 + minute / 1_440 % 28,
                               minute / 60 % 24, minute % 60)
            xml += #" <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" creationDate="\#(stamp)" startDate="\#(stamp)" endDate="\#(stamp)" value="\#(60 + i % 50)">"#
            xml += #"<MetadataEntry key="Note\#(i)" value="\#(pad)"/></Record>"# + "\n"
        }
        return xml + "</HealthData>\n"
    }

    /// The one value `sql` reads from the store at `path`, as text.
    static func scalar(_ path: String, _ sql: String) throws -> String? {
        try DatabaseQueue(path: path).read { db in try String.fetchOne(db, sql: sql) }
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test("kill -9 in the middle of a bulk import: the next open rolls it back, the store is as before and in WAL mode, a re-import stores every record")
    func killNineMidImport() async throws {
        let dir = TemporaryDirectory.uniquePath("stepsync-import-crash")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let data = dir + "/data", store = data + "/health.sqlite", journal = store + "-journal"
        // A store holding an earlier import, so that "as before" is more than "empty".
        let small = dir + "/small.xml"
        try Self.export(records: 40, padding: 10).write(toFile: small, atomically: true, encoding: .utf8)
        let (smallStatus, smallRun) = try await StepSyncProcess.run(["import", small, "--data-dir", data, "--json"])
        #expect(smallStatus == 0, "\(smallRun.stderr)")
        let before = try StoreDump.lines(store)
        // 8,000 records of ≈ 8 KB: ≈ 64 MB of rows, so the page cache (32 MiB) spills into the database for half of the
        // transaction: a wide window to catch it in, even on a loaded machine.
        let large = dir + "/export.xml"
        let records = 8_000
        try Self.export(records: records, padding: 8_000, minuteOffset: 100_000).write(toFile: large, atomically: true, encoding: .utf8)
        let sizeBefore = Self.size(store)
        let importer = try StepSyncProcess(["import", large, "--data-dir", data, "--json"])
        kill(importer.pid, SIGSTOP)
        // Run it until it has appended 8 MiB to the database file with its journal beside it: in the middle of its
        // transaction, with pages that only the journal's rollback (truncating the file) can take back.
        let caught = await ProcessPacer.continueUntil(importer.process) {
            FileManager.default.fileExists(atPath: journal) && Self.size(store) > sizeBefore + (8 << 20)
        }
        kill(importer.pid, SIGKILL)
        _ = try await importer.wait()
        #expect(caught, "the import ended before it wrote into the store: \(importer.stderr)")
        #expect(FileManager.default.fileExists(atPath: journal), "no hot journal was left by the kill")
        // The next opener (any stepsync command opens the store so) rolls the journal back.
        _ = try StepStore(path: store)
        #expect(!FileManager.default.fileExists(atPath: journal))
        #expect(try StoreDump.lines(store) == before)
        #expect(try Self.scalar(store, "PRAGMA journal_mode") == "wal")
        // And nothing is lost for good: the import, run again, stores every record.
        let (status, again) = try await StepSyncProcess.run(["import", large, "--data-dir", data, "--json"])
        #expect(status == 0, "\(again.stderr)")
        #expect(try again.json()["samples"] as? Int == records)
        #expect(try Self.scalar(store, "SELECT count(*) FROM sample") == "\(records + 40)")
    }
}
