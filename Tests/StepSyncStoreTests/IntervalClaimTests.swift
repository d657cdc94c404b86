import Foundation
import StepSyncCore
import StepSyncStore
import Testing
import StepSyncTestSupport

/// The sync engine's ledger writes for several intervals at once (one transaction each) and its one-transaction
/// read of a request's samples.
@Suite("Interval ledger: claims and marks of several intervals in one transaction")
struct IntervalClaimTests {
    @Test("a claim takes only the pending intervals, counts an attempt on each, and leaves the others as they were")
    func claimTakesOnlyPending() async throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let ids = try store.appendIntervals(IntervalLedgerTests.contiguous(5)).map(\.id)
        try store.markSynced(ids[1], atMs: 7)
        #expect(try store.markInFlight(ids[3]))
        let claimed = try await store.claim(ids)
        #expect(claimed == [ids[0], ids[2], ids[4]])
        #expect(try await store.claim(ids).isEmpty, "nothing is pending any more")
        let after = try Dictionary(uniqueKeysWithValues: store.intervals().map { ($0.id, $0) })
        #expect(after[ids[0]]?.status == .inFlight && after[ids[0]]?.attempts == 1)
        #expect(after[ids[1]]?.status == .synced && after[ids[1]]?.attempts == 0 && after[ids[1]]?.syncedAtMs == 7)
        #expect(after[ids[3]]?.status == .inFlight && after[ids[3]]?.attempts == 1, "claimed once, by markInFlight")
        #expect(after[ids[4]]?.status == .inFlight && after[ids[4]]?.attempts == 1)
    }

    @Test("marking several intervals synced commits all of them, or none when one id is unknown")
    func markSyncedIsAllOrNothing() async throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let ids = try store.appendIntervals(IntervalLedgerTests.contiguous(4)).map(\.id)
        _ = try await store.claim(ids)
        let error = await #expect(throws: StoreError.self) {
            try await store.markSynced([ids[0], 999_999], atMs: 5)
        }
        #expect(error?.description.contains("999999") == true)
        #expect(try store.interval(id: ids[0]).status == .inFlight, "the failed transaction committed nothing")
        try await store.markSynced([ids[0], ids[1], ids[2]], atMs: 42)
        let summary = try store.intervalSummary()
        #expect((summary.synced, summary.inFlight, summary.pending) == (3, 1, 0))
        #expect(try store.intervals(status: [.synced]).map(\.syncedAtMs) == [42, 42, 42])
    }

    @Test("requeueing claims puts back only in-flight intervals, keeping their attempts and recording the error")
    func requeueClaimedTouchesOnlyInFlight() async throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let ids = try store.appendIntervals(IntervalLedgerTests.contiguous(3)).map(\.id)
        _ = try await store.claim(ids)
        try await store.markSynced([ids[0]], atMs: 1)
        try store.requeueClaimed(ids, error: "HTTP 503: busy")
        let after = try store.intervals()
        #expect(after.map(\.status) == [.synced, .pending, .pending])
        #expect(after.map(\.attempts) == [1, 1, 1])
        #expect(after.map(\.lastError) == [nil, "HTTP 503: busy", "HTTP 503: busy"])
        try store.requeueClaimed([ids[1]])  // not in flight any more: nothing changes, the error stays
        #expect(try store.interval(id: ids[1]).lastError == "HTTP 503: busy")
    }

    @Test("one read transaction returns each interval's samples exactly as reading the intervals one by one does",
          arguments: [1, 3, 5_000])
    func batchReadEqualsSingleReads(pageSize: Int) throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        let samples = StoreTestData.samples(count: 400, spanMs: 4 * Milliseconds.day, seed: 11)
        try store.insert(samples)
        let start = StoreTestData.origin
        let planned = (0..<8).map { i in
            SyncInterval(range: TimeRange(start: start + Int64(i) * Milliseconds.day / 2,
                                          end: start + Int64(i + 1) * Milliseconds.day / 2), steps: 0, samples: 0)
        }
        let intervals = try store.appendIntervals(planned)
        var batched: [Int64: [UUID]] = [:]
        try store.forEachSamplePage(of: intervals, pageSize: pageSize) { interval, page in
            batched[interval.id, default: []] += page.map(\.uuid)
        }
        var total = 0
        for interval in intervals {
            var single: [UUID] = []
            try store.forEachSamplePage(for: interval, pageSize: 5_000) { single += $0.map(\.uuid) }
            #expect(batched[interval.id, default: []] == single)
            let expected = samples.filter { interval.range.contains($0.startMs) }
            #expect(Set(single) == Set(expected.map(\.uuid)) && single.count == expected.count)
            total += single.count
        }
        #expect(total == 400)
    }
}
