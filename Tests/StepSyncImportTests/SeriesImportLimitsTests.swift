import Foundation
import StepSyncCore
import StepSyncStore
import Testing
@testable import StepSyncImport

/// Issue 31 in the importer: an ECG or a route that would trap or take unbounded memory is a named skip.
@Suite("Importing hostile routes and ECGs")
struct SeriesImportLimitsTests {
    typealias S = SeriesExportFixture

    @Test("an ECG whose Sample Rate is 0.0000000000000000000001 hertz is skipped naming Sample Rate (it trapped converting its duration)")
    func tinySampleRate() throws {
        let w = try Workspace()
        var export = S.export()
        export.files[2].1 = export.files[2].1.replacingOccurrences(
            of: "Sample Rate,512 hertz", with: "Sample Rate,0.0000000000000000000001 hertz")
        #expect(export.files[2].1.contains("0.0000000000000000000001 hertz"))
        let zip = try F.zip(export.entries, named: "export.zip", in: w.directory)

        let summary = try w.importExport(zip)

        #expect(summary.skipped == [.unreadableElectrocardiogram: 1])
        #expect(summary.electrocardiograms == 1 && summary.routes == 2)
        let skipped = try #require(summary.firstSkipped.first)
        #expect(skipped.file == S.Export.englishFile && skipped.detail.contains("Sample Rate"), "\(skipped.detail)")
        #expect(ElectrocardiogramCSV.sampleRate("0.0000000000000000000001 hertz") == nil)
        #expect(ElectrocardiogramCSV.sampleRate("512 hertz") == 512)
    }

    @Test("""
        a GPX file over GPXRoute.maxBytes (64 MiB) is skipped by reason, read no further than the limit; the other \
        route and the ECGs are stored
        """)
    func routeTooLarge() throws {
        let w = try Workspace()
        var export = S.export()
        let padding = String(repeating: " ", count: GPXRoute.maxBytes)
        export.files[1].1 = export.files[1].1.replacingOccurrences(of: "<trkseg>", with: "<trkseg>" + padding)
        let folder = w.directory.appendingPathComponent("apple_health_export")
        try S.writeFolder(export.entries.map { (String($0.0.dropFirst("apple_health_export/".count)), $0.1) }, in: folder)

        let summary = try w.importExport(folder.appendingPathComponent("export.xml").path)

        #expect(summary.skipped == [.unreadableRoute: 1])
        #expect(summary.routes == 1 && summary.routePoints == 7_200 && summary.electrocardiograms == 2)
        let skipped = try #require(summary.firstSkipped.first)
        #expect(skipped.detail.contains("over the limit of \(64 << 20)"), "\(skipped.detail)")
    }

    @Test("a GPX file of more points than one answer holds is refused naming the first point past the limit")
    func routeTooManyPoints() throws {
        let route = S.route(startMs: 1_733_670_476_000, points: 12)
        #expect(try GPXRoute.parse(Array(route.text.utf8), maxPoints: 12).points.count == 12)
        let error = #expect(throws: GPXRouteError.self) { try GPXRoute.parse(Array(route.text.utf8), maxPoints: 11) }
        #expect(error?.problem == "is a point past the limit of 11 for a route" && error?.line != nil)
        #expect(GPXRoute.maxPoints == SeriesLimits.maxAnswerPoints)
    }
}
