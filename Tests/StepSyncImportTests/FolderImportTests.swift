import Foundation
import StepSyncCore
import StepSyncStore
import Testing
@testable import StepSyncImport

/// An unzipped export (a bare `export.xml` with `workout-routes/` and `electrocardiograms/` beside it) is someone
/// else's folder: only regular files inside it are read (``FolderFile``).
@Suite("Importing from a folder: links out and special files are skipped by reason")
struct FolderImportTests {
    typealias S = SeriesExportFixture

    /// The export `S.export()` written as a folder `apple_health_export` in `w`, and its path.
    static func folder(_ w: Workspace) throws -> (export: S.Export, folder: URL) {
        let export = S.export()
        let folder = w.directory.appendingPathComponent("apple_health_export")
        try S.writeFolder(export.entries.map { (String($0.0.dropFirst("apple_health_export/".count)), $0.1) }, in: folder)
        return (export, folder)
    }

    /// Replaces the file `reference` of the folder by a symbolic link to `target`.
    static func link(_ reference: String, in folder: URL, to target: String) throws {
        let path = folder.appendingPathComponent(String(reference.dropFirst())).path
        try FileManager.default.removeItem(atPath: path)
        #expect(symlink(target, path) == 0)
    }

    @Test("a route file that is a link to a GPX outside the folder is not stored: skipped (unreadable_route) naming the link; --strict refuses")
    func linkOut() throws {
        let w = try Workspace()
        let (export, folder) = try Self.folder(w)
        // A GPX elsewhere on disk, named by the walk's route file and by a file no workout names.
        let elsewhere = w.directory.appendingPathComponent("elsewhere.gpx").path
        let outside = S.route(startMs: ISO8601Millis.parse("2020-01-01T00:00:00.000Z")!, points: 30, latitude: 10, longitude: 10)
        try Data(outside.text.utf8).write(to: URL(fileURLWithPath: elsewhere))
        try Self.link(S.Export.walkFile, in: folder, to: elsewhere)
        let stray = folder.appendingPathComponent("workout-routes/route_2020-01-01.gpx").path
        #expect(symlink("../../elsewhere.gpx", stray) == 0)

        let summary = try w.importExport(folder.appendingPathComponent("export.xml").path)

        #expect(summary.skipped == [.unreadableRoute: 2], "\(summary.firstSkipped)")
        #expect(summary.routes == 1 && summary.routePoints == 7_200)
        let stored = try SeriesImportTests.routes(w.store).values.flatMap { $0.flatMap(\.points) }
        #expect(stored == export.run)
        #expect(!stored.contains { $0.latitude < 20 })
        let details = summary.firstSkipped.map(\.detail).sorted()
        #expect(details == [
            "/workout-routes/route_2020-01-01.gpx the file is a symbolic link out of the export's folder (to \(InputExcerpt.of(elsewhere))); it is not read",
            "\(S.Export.walkFile) the file is a symbolic link out of the export's folder (to \(InputExcerpt.of(elsewhere))); it is not read",
        ])

        let strict = try Workspace()
        let (_, strictFolder) = try Self.folder(strict)
        try Self.link(S.Export.walkFile, in: strictFolder, to: elsewhere)
        let error = #expect(throws: ImportError.self) {
            try strict.importExport(strictFolder.appendingPathComponent("export.xml").path, strict: true)
        }
        #expect(error?.message.contains("(unreadable_route)") == true, "\(String(describing: error))")
        #expect(try strict.store.samplePage(of: .workoutRoute, in: all, limit: 10).isEmpty)
    }

    @Test("a link inside the folder to a file inside it is followed: the route is stored")
    func linkInside() throws {
        let w = try Workspace()
        let (export, folder) = try Self.folder(w)
        let shared = folder.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: folder.appendingPathComponent(String(S.Export.walkFile.dropFirst())),
                                         to: shared.appendingPathComponent("walk.gpx"))
        #expect(symlink("../shared/walk.gpx", folder.appendingPathComponent(String(S.Export.walkFile.dropFirst())).path) == 0)

        let summary = try w.importExport(folder.appendingPathComponent("export.xml").path)

        #expect(summary.skipped.isEmpty, "\(summary.firstSkipped)")
        #expect(summary.routes == 2 && summary.routePoints == 7_800 && summary.electrocardiograms == 2)
        try SeriesImportTests().expectStored(export, in: w.store)
    }

    @Test("a FIFO named as a route file and one named as an ECG file are never opened: the import ends, both skipped by reason")
    func fifo() async throws {
        let w = try Workspace()
        let (_, folder) = try Self.folder(w)
        let fifos = [S.Export.walkFile, S.Export.germanFile].map { folder.appendingPathComponent(String($0.dropFirst())).path }
        for path in fifos {
            try FileManager.default.removeItem(atPath: path)
            #expect(mkfifo(path, 0o644) == 0)
        }
        let xml = folder.appendingPathComponent("export.xml").path
        let outcome = ImportOutcome()
        let store = w.store
        let thread = Thread { outcome.finish(Result { try HealthImporter(store: store, time: .system).importExport(at: xml, strict: false) }) }
        thread.start()
        // A bound, not a synchronisation: an importer that opens a FIFO waits for a writer forever. After it, the
        // FIFOs are opened for writing and closed again and again (a reader waiting on one then reads its end, and
        // the next FIFO it opens is released the same way), so the test fails instead of hanging.
        let deadline = ContinuousClock.now + .seconds(120)
        while !outcome.done, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let finishedInTime = outcome.done
        while !outcome.done {
            for path in fifos {
                let fd = open(path, O_WRONLY | O_NONBLOCK)
                if fd >= 0 { close(fd) }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(finishedInTime, "the import blocked on a FIFO")
        guard finishedInTime else { return }
        let summary = try outcome.result!.get()
        #expect(summary.skipped == [.unreadableRoute: 1, .unreadableElectrocardiogram: 1], "\(summary.firstSkipped)")
        #expect(summary.routes == 1 && summary.routePoints == 7_200 && summary.electrocardiograms == 1)
        #expect(summary.firstSkipped.map(\.detail).sorted() == [
            "\(S.Export.germanFile) the file is a FIFO, not a regular file; it is not read",
            "\(S.Export.walkFile) the file is a FIFO, not a regular file; it is not read",
        ])
    }
}

/// The result of an import run on a thread of its own.
private final class ImportOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Result<ImportSummary, any Error>?

    func finish(_ result: Result<ImportSummary, any Error>) { lock.withLock { stored = result } }
    var done: Bool { lock.withLock { stored != nil } }
    var result: Result<ImportSummary, any Error>? { lock.withLock { stored } }
}
