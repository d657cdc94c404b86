import Foundation
import StepSyncCore
import StepSyncEngine
import StepSyncStore
import StepSyncTestSupport
import Testing

/// A dead or overloaded sink is one fact about the server: the engine waits for it with one shared backoff on the
/// injected clock, says so, and gives up with every unsent interval pending — never marks intervals failed for it.
/// A stop ends any wait at once.
@Suite("Sync engine: waiting for the sink, and pausing at once", .timeLimit(.minutes(10)))
struct SinkOutageEngineTests {
    static let outage = SinkOutageMachine.Policy(baseSeconds: 2, maxDelaySeconds: 30, jitter: 0, giveUpAfterSeconds: 60)

    func engine(_ fixture: SyncFixture, port: Int, concurrency: Int = 3,
                policy: RetryPolicy = RetryPolicy(baseSeconds: 2, jitter: 0),
                outage: SinkOutageMachine.Policy = outage, clock: TestClock,
                _ body: (SyncEngine) async throws -> SyncReport) async throws -> SyncReport {
        try await HTTPUploader.withUploader(server: "http://127.0.0.1:\(port)", concurrency: concurrency,
                                           requestTimeout: .patient, connectTimeout: .patient, probeTimeout: .patient,
                                           time: .system, logger: SinkHarness.quiet) { uploader in
            try await body(SyncEngine(
                store: fixture.store, uploader: uploader,
                configuration: SyncConfiguration(concurrency: concurrency, retryPolicy: policy, outagePolicy: outage,
                                                 maxSamplesPerRequest: 0),
                logger: SinkHarness.quiet, time: clock.time, randomSeed: 1))
        }
    }


    @Test("a closed port: waits 2, 4, 8, 16, 30 s on the clock, gives up at 60 s with the ledger untouched and one message")
    func closedPortGivesUp() async throws {
        let fixture = try SyncFixture(intervals: 12, samplesPerInterval: 3)
        let closed = try ClosedPort()
        defer { closed.release() }
        let port = closed.port
        let clock = TestClock(.instant)
        var waits: [SyncProgress.ServerWait] = []
        let report = try await engine(fixture, port: port, clock: clock) { engine in
            try await engine.run { if let wait = $0.serverWait { waits.append(wait) } }
        }
        let message = "cannot reach http://127.0.0.1:\(port): connection refused — is stepsync serve running?"
        #expect(report.gaveUp == message)
        #expect(report.gaveUpAfterSeconds == 60)
        #expect(clock.sleeps == [.seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30)])
        #expect(waits.map(\.message) == Array(repeating: message, count: 5))
        #expect(waits.map(\.retryInSeconds) == [2, 4, 8, 16, 30])
        #expect(report.serverWaits == 5 && report.synced == 0 && report.failed == 0 && report.pending == 12)
        #expect(!report.isComplete)
        // The probe found the sink dead before any claim: nothing was even attempted.
        let ledger = try fixture.store.intervals()
        #expect(ledger.count == 12 && ledger.allSatisfy { $0.status == .pending && $0.attempts == 0 })
    }

    @Test("the run's task cancelled while it waits for a dead sink: it ends at once with every interval pending (a manual clock that never moves: no spin through waits until the give-up deadline)")
    func cancelledWhileWaitingForTheSink() async throws {
        let fixture = try SyncFixture(intervals: 6, samplesPerInterval: 2)
        let closed = try ClosedPort()
        defer { closed.release() }
        let port = closed.port
        let clock = TestClock(.manual)
        let run = Task { try await engine(fixture, port: port, clock: clock) { try await $0.run() } }
        await clock.waitForSleepers(1)
        run.cancel()
        let report = try await run.value
        #expect(report.synced == 0 && report.failed == 0 && report.pending == 6 && !report.isComplete)
        #expect(clock.sleeps == [.seconds(2)])
        let ledger = try fixture.store.intervals()
        #expect(ledger.count == 6 && ledger.allSatisfy { $0.status == .pending && $0.attempts == 0 })
    }

    @Test("the sink comes up during the shared wait: the same run carries on and completes")
    func sinkComesUpDuringTheWait() async throws {
        let fixture = try SyncFixture(intervals: 9, samplesPerInterval: 4)
        try await SinkHarness.withSink { sinkPort in
            let closed = try ClosedPort()
            let port = closed.port
            let clock = TestClock(.manual)
            let run = Task { try await engine(fixture, port: port, clock: clock) { try await $0.run() } }
            await clock.waitForSleepers(1)
            #expect(clock.sleeps == [.seconds(2)])
            closed.release()
            let report = try await FaultFront.withFront(sinkPort: sinkPort, plan: FaultPlan(), port: port) { _, counters in
                clock.advance(by: .seconds(2))
                let report = try await run.value
                let (healthProbes, posts) = (await counters.healthProbes, await counters.posts)
                #expect(healthProbes == 1 && posts == 9)
                return report
            }
            #expect(report.isComplete && report.synced == 9 && report.failed == 0 && report.gaveUp == nil)
            #expect(report.serverWaits == 1 && report.serverWaitSeconds == 2)
            let stored = try await SinkHarness.storedUUIDs(port: sinkPort)
            #expect(stored.uuids == fixture.storeUUIDs && stored.count == 36)
        }
    }

    @Test("503 to everything for a while is ridden out with one backoff (or the sink's Retry-After), no interval failed",
          arguments: [
              (nil, [2, 4, 8, 16, 30, 30, 30, 30]),
              ("7", [7, 7, 7, 7, 7, 7, 7, 7]),
          ] as [(String?, [Int])])
    func unavailableForAWhile(retryAfter: String?, expectedWaits: [Int]) async throws {
        let fixture = try SyncFixture(intervals: 10, samplesPerInterval: 5)
        try await SinkHarness.withSink { sinkPort in
            let plan = FaultPlan(unavailableFirst: 8, retryAfter: retryAfter)
            try await FaultFront.withFront(sinkPort: sinkPort, plan: plan) { port, counters in
                let clock = TestClock(.instant)
                let report = try await engine(fixture, port: port, concurrency: 1,
                                              outage: .init(baseSeconds: 2, jitter: 0, giveUpAfterSeconds: 300),
                                              clock: clock) { try await $0.run() }
                #expect(report.isComplete && report.synced == 10 && report.samples == 50)
                #expect(report.failed == 0 && report.failedThisRun == 0 && report.gaveUp == nil)
                #expect(clock.sleeps == expectedWaits.map { .seconds($0) })
                let (unavailableAnswers, posts) = (await counters.unavailableAnswers, await counters.posts)
                #expect(unavailableAnswers == 8 && posts == 18)
            }
            #expect(try await SinkHarness.storedUUIDs(port: sinkPort).uuids == fixture.storeUUIDs)
        }
    }

    @Test("503s to every request in flight: no interval failed, however few attempts are allowed")
    func unavailableNeverFails() async throws {
        let fixture = try SyncFixture(intervals: 12, samplesPerInterval: 2)
        try await FaultFront.withSink(plan: FaultPlan(unavailableFirst: 20)) { port, counters, sinkPort in
            let report = try await engine(fixture, port: port, concurrency: 3, policy: RetryPolicy(maxAttempts: 1),
                                          outage: .init(baseSeconds: 2, jitter: 0.1, giveUpAfterSeconds: 0),
                                          clock: TestClock(.instant)) { try await $0.run() }
            #expect(report.isComplete && report.synced == 12 && report.failed == 0)
            #expect(await counters.unavailableAnswers == 20)
            #expect(try await SinkHarness.storedUUIDs(port: sinkPort).uuids == fixture.storeUUIDs)
        }
    }

    @Test("a stop during the wait for the sink ends it at once: nothing in flight or failed, the clock never moved")
    func stopDuringTheSharedWait() async throws {
        let fixture = try SyncFixture(intervals: 8, samplesPerInterval: 2)
        try await FaultFront.withSink(plan: FaultPlan(unavailableFirst: 1_000)) { port, counters, _ in
            let clock = TestClock(.manual)
            let stop = SyncStop()
            let run = Task {
                try await engine(fixture, port: port, outage: .init(baseSeconds: 30, jitter: 0), clock: clock) {
                    try await $0.run(stop: stop)
                }
            }
            await clock.waitForSleepers(1)
            stop.request()
            let report = try await run.value
            #expect(report.stopped && report.synced == 0 && report.failed == 0 && report.pending == 8)
            #expect(clock.sleeps == [.seconds(30)] && clock.now == TestClock.Instant(offset: .zero))
            #expect(await counters.posts == 3)
            let summary = try fixture.store.intervalSummary()
            #expect(summary.inFlight == 0 && summary.failed == 0 && summary.pending == 8)
        }
    }

    @Test("a stop during one interval's retry backoff ends it at once: the interval goes back to pending")
    func stopDuringARetryWait() async throws {
        let fixture = try SyncFixture(intervals: 5, samplesPerInterval: 2)
        try await SinkHarness.withSink { sinkPort in
            let plan = FaultPlan(unavailableFirst: 1_000, failureStatus: 500)
            try await FaultFront.withFront(sinkPort: sinkPort, plan: plan) { port, _ in
                let clock = TestClock(.manual)
                let stop = SyncStop()
                let run = Task {
                    try await engine(fixture, port: port, concurrency: 1, policy: RetryPolicy(baseSeconds: 30, jitter: 0),
                                     clock: clock) { try await $0.run(stop: stop) }
                }
                await clock.waitForSleepers(1)
                stop.request()
                let report = try await run.value
                #expect(report.stopped && report.requeued == 1 && report.failed == 0 && report.synced == 0)
                #expect(clock.sleeps == [.seconds(30)] && clock.now == TestClock.Instant(offset: .zero))
            }
            let first = try fixture.store.interval(id: fixture.intervals[0].id)
            #expect(first.status == .pending && first.attempts == 1)
            #expect(first.lastError == "HTTP 500: down for maintenance (paused during a retry wait)")
            #expect(try fixture.store.intervalSummary().pending == 5)
        }
    }
}
