import AsyncHTTPClient
import Foundation
import Logging
import StepSyncCore
import StepSyncEngine
import StepSyncStore
import StepSyncTestSupport
import Testing

/// The engine in process against the real sink (and, for faults, the fault front in front of it). Every wait runs on
/// a ``TestClock``: no test sleeps for real or races the wall clock.
@Suite("Sync engine against the real sink", .timeLimit(.minutes(10)))
struct SyncEngineTests {
    static let noJitter = RetryPolicy(maxAttempts: 5, baseSeconds: 2, jitter: 0)
    static let outage = SinkOutageMachine.Policy(baseSeconds: 2, maxDelaySeconds: 30, jitter: 0, giveUpAfterSeconds: 300)

    func sync(
        _ fixture: SyncFixture, port: Int, concurrency: Int = 3, maxInFlight: Int? = nil, policy: RetryPolicy = noJitter,
        outage: SinkOutageMachine.Policy = outage, gzip: Bool = false, retryFailed: Bool = false,
        types: [SampleType]? = nil, maxSamplesPerRequest: Int = 0, clock: TestClock = TestClock(), stop: SyncStop = .never,
        progress: (SyncProgress) -> Void = { _ in }
    ) async throws -> SyncReport {
        try await HTTPUploader.withUploader(server: "http://127.0.0.1:\(port)", gzip: gzip, concurrency: concurrency,
                                           requestTimeout: .patient, connectTimeout: .patient, probeTimeout: .patient,
                                           time: .system, logger: SinkHarness.quiet) { uploader in
            let engine = SyncEngine(
                store: fixture.store, uploader: uploader,
                configuration: SyncConfiguration(concurrency: concurrency, maxInFlight: maxInFlight,
                                                 retryPolicy: policy, outagePolicy: outage,
                                                 retryFailed: retryFailed, types: types,
                                                 maxSamplesPerRequest: maxSamplesPerRequest),
                logger: SinkHarness.quiet, time: clock.time, randomSeed: 1)
            return try await engine.run(stop: stop, progress: progress)
        }
    }

    @Test("a plain sync leaves the sink holding exactly the store's uuids", arguments: [false, true])
    func plainSync(gzip: Bool) async throws {
        let fixture = try SyncFixture(intervals: 30, samplesPerInterval: 10)
        try await SinkHarness.withSink { port in
            var seen: [SyncProgress] = []
            let report = try await sync(fixture, port: port, gzip: gzip) { seen.append($0) }
            #expect(report.synced == 30 && report.samples == 300)
            #expect(report.inserted == 300 && report.duplicates == 0)
            #expect(report.isComplete && report.failed == 0 && report.pending == 0 && report.serverWaits == 0)
            #expect(seen.map(\.done) == Array(1...30) && seen.last?.samplesSent == 300)
            let stored = try await SinkHarness.storedUUIDs(port: port)
            #expect(stored.uuids == fixture.storeUUIDs && stored.count == 300)
            let summary = try fixture.store.intervalSummary()
            #expect(summary.synced == 30 && summary.syncedSamples == 300)
        }
    }

    @Test("no more than --max-in-flight N requests are ever in flight", arguments: [1, 3])
    func boundedConcurrency(limit: Int) async throws {
        let fixture = try SyncFixture(intervals: 12, samplesPerInterval: 5)
        // The front holds each POST until its whole batch of `limit` has arrived: N in flight, every time.
        try await FaultFront.withSink(plan: FaultPlan(batch: limit)) { port, counters, sinkPort in
            let report = try await sync(fixture, port: port, concurrency: limit, maxInFlight: limit)
            #expect(report.isComplete)
            #expect(await counters.maxInFlight == limit)
            #expect(await counters.posts == 12)
            #expect(try await SinkHarness.storedUUIDs(port: sinkPort).uuids == fixture.storeUUIDs)
        }
    }

    @Test("a 500 hits one interval: it is retried after 2, 4, 8 s on the clock and synced")
    func oneIntervalRetried() async throws {
        let fixture = try SyncFixture(intervals: 4, samplesPerInterval: 5)
        try await FaultFront.withSink(plan: FaultPlan(unavailableFirst: 3, failureStatus: 500)) { port, counters, sinkPort in
            let clock = TestClock(.instant)
            let report = try await sync(fixture, port: port, concurrency: 1, clock: clock)
            #expect(report.isComplete && report.synced == 4 && report.serverWaits == 0)
            #expect(clock.sleeps == [.seconds(2), .seconds(4), .seconds(8)])
            let (unavailableAnswers, posts) = (await counters.unavailableAnswers, await counters.posts)
            #expect(unavailableAnswers == 3 && posts == 7)
            #expect(try await SinkHarness.storedUUIDs(port: sinkPort).uuids == fixture.storeUUIDs)
        }
    }

    @Test("out of attempts on 500s marks the interval failed and the sync goes on")
    func outOfAttempts() async throws {
        let fixture = try SyncFixture(intervals: 4, samplesPerInterval: 5)
        try await FaultFront.withSink(plan: FaultPlan(unavailableFirst: 3, failureStatus: 500)) { port, _, _ in
            let report = try await sync(fixture, port: port, concurrency: 1,
                                        policy: RetryPolicy(maxAttempts: 3, baseSeconds: 2, jitter: 0))
            #expect(report.synced == 3 && report.failed == 1)
            #expect(report.failures.first?.message == "gave up after 3 attempts: HTTP 500: down for maintenance")
            #expect(report.failures.first?.intervalId == fixture.intervals[0].id)
        }
    }

    @Test("a 400 fails that interval with the server's message, the rest sync; --retry-failed sends it later")
    func rejectedInterval() async throws {
        let fixture = try SyncFixture(intervals: 20, samplesPerInterval: 5)
        let rejected = try #require(fixture.uuids(ofInterval: 7).first)
        try await FaultFront.withSink(plan: FaultPlan(rejectUUID: rejected)) { port, counters, sinkPort in
            let report = try await sync(fixture, port: port)
            #expect(report.synced == 19 && report.failedThisRun == 1 && report.failed == 1 && !report.isComplete)
            #expect(report.failures.map(\.intervalId) == [fixture.intervals[7].id])
            #expect(report.failures.first?.message == "HTTP 400: sample rejected by the test front")
            #expect(await counters.rejections == 1)
            let stored = try await SinkHarness.storedUUIDs(port: sinkPort)
            #expect(stored.uuids == fixture.storeUUIDs.subtracting(fixture.uuids(ofInterval: 7)))
            #expect(try fixture.store.interval(id: fixture.intervals[7].id).status == .failed)

            // Without --retry-failed the failed interval stays failed; with it, it goes through.
            let again = try await sync(fixture, port: sinkPort)
            #expect(again.synced == 0 && again.failed == 1)
            let retried = try await sync(fixture, port: sinkPort, retryFailed: true)
            #expect(retried.synced == 1 && retried.isComplete && retried.inserted == 5)
            #expect(try await SinkHarness.storedUUIDs(port: sinkPort).uuids == fixture.storeUUIDs)
        }
    }

    @Test("a graceful stop lets the intervals in flight finish, leaves the rest pending, and a resume completes")
    func gracefulStopAndResume() async throws {
        let fixture = try SyncFixture(intervals: 20, samplesPerInterval: 5)
        try await FaultFront.withSink(plan: FaultPlan(delay: .milliseconds(30))) { port, _, sinkPort in
            let stop = SyncStop()
            let report = try await sync(fixture, port: port, concurrency: 2, stop: stop) { progress in
                if progress.done == 3 { stop.request() }
            }
            #expect(report.stopped && !report.isComplete)
            #expect(report.synced >= 3 && report.synced <= 5)  // the 3 done plus at most the 2 in flight
            #expect(report.requeued == 0)
            let summary = try fixture.store.intervalSummary()
            #expect(summary.inFlight == 0 && summary.pending == 20 - report.synced && summary.synced == report.synced)

            let resumed = try await sync(fixture, port: port, concurrency: 2)
            #expect(resumed.isComplete && resumed.synced == 20 - report.synced && resumed.duplicates == 0)
            let stored = try await SinkHarness.storedUUIDs(port: sinkPort)
            #expect(stored.uuids == fixture.storeUUIDs && stored.count == 100)
        }
    }

    @Test("a second stop cancels the intervals in flight; they go back to pending")
    func secondStopCancels() async throws {
        let fixture = try SyncFixture(intervals: 10, samplesPerInterval: 5)
        try await SinkHarness.withSink { sinkPort in
            // The front holds every POST until a fourth arrives, which never happens: 3 stay in flight until cancelled.
            try await FaultFront.withFront(sinkPort: sinkPort, plan: FaultPlan(batch: 4)) { port, counters in
                let stop = SyncStop()
                let report = try await withThrowingTaskGroup(of: SyncReport?.self) { group in
                    group.addTask { try await sync(fixture, port: port, concurrency: 3, stop: stop) }
                    group.addTask {
                        try await counters.waitForPosts(3)
                        stop.request()
                        stop.request()
                        return nil
                    }
                    var report: SyncReport?
                    for try await result in group { if let result { report = result } }
                    return try #require(report)
                }
                #expect(report.stopped && report.synced == 0 && report.requeued == 3)
                let summary = try fixture.store.intervalSummary()
                #expect(summary.inFlight == 0 && summary.pending == 10)
            }
            let resumed = try await sync(fixture, port: sinkPort)
            #expect(resumed.isComplete && resumed.synced == 10)
            #expect(try await SinkHarness.storedUUIDs(port: sinkPort).uuids == fixture.storeUUIDs)
        }
    }

    @Test("intervals a crash left in flight are resent at startup; the sink counts them as duplicates")
    func crashRecovery() async throws {
        let fixture = try SyncFixture(intervals: 10, samplesPerInterval: 5)
        try await SinkHarness.withSink { port in
            #expect(try await sync(fixture, port: port).isComplete)
            // What a kill -9 between the sink's ack and markSynced leaves: acknowledged, but inFlight in the ledger.
            for interval in fixture.intervals.prefix(4) {
                try fixture.store.markPending(interval.id)
                #expect(try fixture.store.markInFlight(interval.id))
            }
            let report = try await sync(fixture, port: port)
            #expect(report.recoveredInFlight == 4 && report.synced == 4)
            #expect(report.inserted == 0 && report.duplicates == 20)
            let stored = try await SinkHarness.storedUUIDs(port: port)
            #expect(stored.uuids == fixture.storeUUIDs && stored.count == 50)
        }
    }

    @Test("a second sync on the same data directory is refused at once")
    func oneSyncPerDataDirectory() async throws {
        let fixture = try SyncFixture(intervals: 1, samplesPerInterval: 1)
        let lock = fixture.dataDirectory.syncLockPath
        let inner: Result<Int, any Error> = try await SyncLock.withLock(path: lock) {
            do {
                return .success(try await SyncLock.withLock(path: lock) { 1 })
            } catch {
                return .failure(error)
            }
        }
        guard case .failure(let error) = inner, let syncError = error as? SyncError else {
            Issue.record("the second lock was granted")
            return
        }
        #expect(syncError.isAlreadyRunning)
        #expect(syncError.description.contains("already running") && syncError.description.contains("pid \(getpid())"))
        // Released afterwards.
        #expect(try await SyncLock.withLock(path: lock) { 2 } == 2)
    }

    @Test("a deletions interval sends the window's tombstones to /steps/delete; the sink ends holding the store")
    func deletions() async throws {
        let fixture = try SyncFixture(intervals: 5, samplesPerInterval: 4)
        try await SinkHarness.withSink { port in
            #expect(try await sync(fixture, port: port).isComplete)
            let before = try fixture.store.changeSequence()
            let doomed = Array(fixture.uuids(ofInterval: 2).prefix(3))
            _ = try fixture.store.deleteSamples(uuids: doomed)
            let after = try fixture.store.changeSequence()
            try fixture.store.appendIntervals([SyncInterval(
                range: fixture.intervals[2].range, kind: .deletions, seqAfter: before, seqThrough: after,
                steps: 0, samples: 3)])
            let report = try await sync(fixture, port: port)
            #expect(report.synced == 1 && report.deletionsSent == 3 && report.deleted == 3 && report.isComplete)
            let stored = try await SinkHarness.storedUUIDs(port: port)
            #expect(stored.uuids == fixture.storeUUIDs.subtracting(doomed) && stored.count == 17)
        }
    }
}
