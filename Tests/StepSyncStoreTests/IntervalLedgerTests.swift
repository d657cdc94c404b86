import Foundation
import StepSyncCore
import StepSyncStore
import Testing
import StepSyncTestSupport

@Suite("Interval ledger")
struct IntervalLedgerTests {
    static func contiguous(_ count: Int, from start: Int64 = 0, length: Int64 = 1_000) -> [SyncInterval] {
        (0..<count).map { i in
            SyncInterval(range: TimeRange(start: start + Int64(i) * length, end: start + Int64(i + 1) * length),
                         steps: Double(i * 10), samples: i)
        }
    }

    @Test("appended intervals come back oldest first with ids; a gap is refused whole")
    func appendAndRead() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let stored = try store.appendIntervals(Self.contiguous(5))
        #expect(stored.map(\.id).allSatisfy { $0 > 0 })
        #expect(try store.intervals().map(\.range) == Self.contiguous(5).map(\.range))
        // A gap after the last interval: nothing of the batch is written.
        let gapped = Self.contiguous(2, from: 6_000)
        #expect(throws: StoreError.self) { try store.appendIntervals(gapped) }
        #expect(try store.intervals().count == 5)
        try store.appendIntervals(Self.contiguous(3, from: 5_000))
        #expect(try store.intervals().count == 8)
        #expect(try store.lastInterval()?.range.end == 8_000)
    }

    @Test("status transitions and the summary")
    func transitions() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let ids = try store.appendIntervals(Self.contiguous(4)).map(\.id)
        #expect(try store.markInFlight(ids[0]))
        #expect(try !store.markInFlight(ids[0]), "an inFlight interval cannot be claimed twice")
        try store.markSynced(ids[0], atMs: 123)
        #expect(try store.markInFlight(ids[1]))
        try store.markFailed(ids[1], error: "400: bad sample")
        #expect(try store.markInFlight(ids[2]))  // left inFlight, as by kill -9
        var summary = try store.intervalSummary()
        #expect((summary.intervals, summary.pending, summary.inFlight, summary.synced, summary.failed) == (4, 1, 1, 1, 1))
        #expect(summary.syncedSteps == 0 && summary.steps == 60)
        #expect(try store.requeueInFlight() == 1)
        #expect(try store.requeueFailed() == 1)
        summary = try store.intervalSummary()
        #expect((summary.pending, summary.inFlight, summary.synced, summary.failed) == (3, 0, 1, 0))
        let failedOnce = try store.interval(id: ids[1])
        #expect(failedOnce.attempts == 0 && failedOnce.lastError == "400: bad sample")
        let synced = try store.interval(id: ids[0])
        #expect(synced.status == .synced && synced.syncedAtMs == 123 && synced.attempts == 1)
        #expect(try store.intervals(status: [.pending]).map(\.id) == [ids[1], ids[2], ids[3]])
    }
}
