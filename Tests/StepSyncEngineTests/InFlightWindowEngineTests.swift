import Foundation
import StepSyncCore
import StepSyncEngine
import StepSyncStore
import StepSyncTestSupport
import Testing

/// The in-flight window in the engine, over a long link played on the test clock: more requests in flight than
/// lanes, the sink still exact, and a body limit still kept.
@Suite("Sync engine: the in-flight window over a long link", .timeLimit(.minutes(10)))
struct InFlightWindowEngineTests {
    /// Syncs `fixture` through `port` with a 75 ms link each way on an instant test clock.
    func sync(_ fixture: SyncFixture, port: Int, concurrency: Int = 3, maxInFlight: Int? = nil,
              maxSamplesPerRequest: Int = 0) async throws -> (SyncReport, Int) {
        let clock = TestClock(.instant)
        return try await HTTPUploader.withUploader(
            server: "http://127.0.0.1:\(port)", concurrency: 64, requestTimeout: .patient, connectTimeout: .patient,
            probeTimeout: .patient, time: .system, logger: SinkHarness.quiet
        ) { uploader in
            let link = LinkDelayUploader(base: uploader, clock: clock, oneWay: .milliseconds(75))
            let report = try await SyncEngine(
                store: fixture.store, uploader: link,
                configuration: SyncConfiguration(concurrency: concurrency, maxInFlight: maxInFlight,
                                                 retryPolicy: RetryPolicy(baseSeconds: 0.01),
                                                 maxSamplesPerRequest: maxSamplesPerRequest),
                logger: SinkHarness.quiet, time: clock.time, randomSeed: 1
            ).run()
            return (report, await link.counter.peak)
        }
    }

    @Test("three lanes over a 150 ms round trip: the window opens past three, every sample stored once")
    func windowOpens() async throws {
        let fixture = try SyncFixture(intervals: 60, samplesPerInterval: 20)
        try await SinkHarness.withSink { port in
            let (report, peak) = try await sync(fixture, port: port)
            #expect(report.isComplete && report.synced == 60 && report.failed == 0 && report.pending == 0)
            #expect(report.samples == 1_200 && report.inserted == 1_200 && report.duplicates == 0)
            #expect(report.peakInFlight >= 6 && report.window > 3, "peak \(report.peakInFlight), window \(report.window)")
            #expect(peak > 3, "requests inside the uploader at once: \(peak)")
            #expect(report.roundTripMs.map { $0 >= 150 } == true)
            let stored = try await SinkHarness.storedUUIDs(port: port)
            #expect(stored.uuids == fixture.storeUUIDs && stored.count == 1_200)
        }
        #expect(try fixture.store.ledgerSummary().overall.synced == 60)
    }

    @Test("--max-in-flight equal to --concurrency: one request a lane, as before")
    func windowClosed() async throws {
        let fixture = try SyncFixture(intervals: 30, samplesPerInterval: 10)
        try await SinkHarness.withSink { port in
            let (report, peak) = try await sync(fixture, port: port, maxInFlight: 3)
            #expect(report.isComplete && report.synced == 30 && report.peakInFlight == 3 && report.window == 3)
            #expect(peak <= 3)
            let stored = try await SinkHarness.storedUUIDs(port: port)
            #expect(stored.uuids == fixture.storeUUIDs && stored.count == 300)
        }
    }

    @Test("a 413 behind the long link: every body under the limit, more requests in flight than lanes, exact")
    func bodyLimitWithWindow() async throws {
        // Heart-rate intervals of 20 samples (≈ 8 KB), packed five to a request (≈ 40 KB): an 8,000-byte limit cuts
        // each request into parts, and the window still opens.
        let fixture = try SyncFixture(intervals: 60, samplesPerInterval: 20, types: [.heartRate])
        try await FaultFront.withSink(plan: FaultPlan(maxBodyBytes: 8_000)) { port, counters, sinkPort in
            let (report, _) = try await sync(fixture, port: port, maxSamplesPerRequest: 100)
            #expect(report.isComplete && report.synced == 60 && report.failed == 0 && report.pending == 0)
            #expect(report.samples == 1_200 && report.inserted == 1_200 && report.duplicates == 0)
            let refused = await counters.tooLargeAnswers
            #expect(refused >= 1 && report.tooLarge == refused)
            #expect(try #require(report.requestLimitBytes) < 8_000)
            #expect(await counters.forwardedSizes.allSatisfy { $0 <= 8_000 })
            #expect(report.peakInFlight > 3, "peak \(report.peakInFlight)")
            let hearts = try await SinkSamples.stored(port: sinkPort, type: .heartRate)
            #expect(try SinkSamples.uuids(hearts) == fixture.storeUUIDs(of: .heartRate) && hearts.count == 1_200)
        }
    }
}

/// Plays a long link on the test clock: each body waits `oneWay` before it is sent and its answer `oneWay` after,
/// then goes to the real uploader. Counts the sends inside it at once.
struct LinkDelayUploader: Uploader {
    let base: HTTPUploader
    let clock: TestClock
    let oneWay: Duration
    let counter = PeakCounter()
    var server: String { base.server }

    func send(_ body: [UInt8], to endpoint: SinkEndpoint, itemCount: Int) async throws -> UploadOutcome {
        await counter.enter()
        do {
            try await clock.time.sleep(oneWay)
            let outcome = try await base.send(body, to: endpoint, itemCount: itemCount)
            try await clock.time.sleep(oneWay)
            await counter.leave()
            return outcome
        } catch {
            await counter.leave()
            throw error
        }
    }

    func probe() async -> SinkFailure? { await base.probe() }
}

/// The most callers inside at once.
actor PeakCounter {
    private(set) var inside = 0
    private(set) var peak = 0

    func enter() {
        inside += 1
        peak = max(peak, inside)
    }

    func leave() { inside -= 1 }
}
