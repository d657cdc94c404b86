import Foundation
import StepSyncCore
import StepSyncStore
import StepSyncTestSupport
import Testing

/// `stepsync chunks --svg FILE` through the real binary.
@Suite("stepsync chunks --svg")
struct ChunksSVGCommandTests {
    @Test("writes the core's chart of the ledger byte for byte, with the limits given, and says where")
    func writesTheChart() async throws {
        let fixture = try SyncFixture(intervals: 30, samplesPerInterval: 12)
        defer { try? FileManager.default.removeItem(atPath: fixture.path) }
        try fixture.store.markSynced(fixture.intervals[0].id, atMs: SyncFixture.origin)
        let file = fixture.path + "/chunks.svg"
        let (status, process) = try await StepSyncProcess.run([
            "chunks", "--svg", file, "--svg-max-steps", "400", "--svg-max-samples", "20", "--tz", "UTC",
            "--data-dir", fixture.path])
        #expect(status == 0, "\(process.stderr)")
        #expect(process.stdout == "Wrote 30 intervals to \(file)\n")
        let written = try #require(FileManager.default.contents(atPath: file))
        let intervals = try fixture.store.intervals(of: .stepCount, status: nil)
        let expected = ChunkChart(intervals: intervals, limits: .init(maxSteps: 400, maxSamples: 20)).svg()
        #expect(written == Data(expected.utf8))
        let text = String(decoding: written, as: UTF8.self)
        #expect(text.components(separatedBy: #"<rect class="interval "#).count - 1 == 30)
        #expect(text.components(separatedBy: #"<rect class="interval synced""#).count - 1 == 1)
        #expect(text.contains("limit: 400 steps or 20 samples"))
    }

    @Test("a bad limit is refused before anything is written (exit 64, naming the option)")
    func refusesBadLimit() async throws {
        let fixture = try SyncFixture(intervals: 2, samplesPerInterval: 1)
        defer { try? FileManager.default.removeItem(atPath: fixture.path) }
        let file = fixture.path + "/chunks.svg"
        let (status, process) = try await StepSyncProcess.run([
            "chunks", "--svg", file, "--svg-max-steps", "0", "--data-dir", fixture.path])
        #expect(status == 64)
        #expect(process.stderr.contains("--svg-max-steps must be positive"))
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test("--tz: the chart's times, ticks and caption are in that zone, named")
    func chartInZone() async throws {
        let fixture = try SyncFixture(intervals: 4, samplesPerInterval: 3)
        defer { try? FileManager.default.removeItem(atPath: fixture.path) }
        let file = fixture.path + "/chunks.svg"
        let (status, process) = try await StepSyncProcess.run([
            "chunks", "--svg", file, "--tz", "Asia/Kolkata", "--data-dir", fixture.path])
        #expect(status == 0, "\(process.stderr)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let intervals = try fixture.store.intervals(of: .stepCount, status: nil)
        let zone = TimeZone(identifier: "Asia/Kolkata")!
        let expected = ChunkChart(intervals: intervals, limits: .init(maxSteps: 10_000, maxSamples: 5_000),
                                  timeZone: zone, zoneName: "Asia/Kolkata").svg()
        #expect(text == expected)
        // 2020-09-13T12:26:40Z (SyncFixture.origin) is 17:56 in Kolkata (UTC+05:30).
        #expect(text.contains("2020-09-13 17:56") && text.contains("Asia/Kolkata") && !text.contains(" UTC"), "\(text.prefix(3_000))")
    }
}
