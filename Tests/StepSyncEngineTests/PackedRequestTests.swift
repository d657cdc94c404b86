import Foundation
import StepSyncCore
import StepSyncEngine
import StepSyncStore
import StepSyncTestSupport
import Testing

/// Consecutive small intervals share one request (``RequestPacking``); the ledger stays per interval.
@Suite("Sync engine: small intervals packed into shared requests", .timeLimit(.minutes(10)))
struct PackedRequestTests {
    func sync(_ fixture: SyncFixture, port: Int, maxSamplesPerRequest: Int = SyncConfiguration.defaultMaxSamplesPerRequest,
              concurrency: Int = 3, types: [SampleType]? = nil) async throws -> SyncReport {
        try await HTTPUploader.withUploader(server: "http://127.0.0.1:\(port)", concurrency: concurrency,
                                           requestTimeout: .patient, connectTimeout: .patient, probeTimeout: .patient,
                                           time: .system, logger: SinkHarness.quiet) { uploader in
            try await SyncEngine(
                store: fixture.store, uploader: uploader,
                configuration: SyncConfiguration(concurrency: concurrency, retryPolicy: RetryPolicy(baseSeconds: 2, jitter: 0),
                                                 types: types, maxSamplesPerRequest: maxSamplesPerRequest),
                logger: SinkHarness.quiet, time: TestClock(.instant).time, randomSeed: 1).run()
        }
    }

    /// The uuids of each body received at `path`, in order of arrival.
    static func bodies(_ counters: FrontCounters, path: String) async throws -> [[String]] {
        try (await counters.bodies[path] ?? []).map { body in
            let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            let samples = try #require(object["samples"] as? [[String: Any]])
            return samples.map { $0["uuid"] as? String ?? "" }
        }
    }

    @Test("30 intervals of 10 samples: the bound decides how many requests carry them; every interval is synced",
          arguments: [(5_000, [300]), (100, [100, 100, 100]), (25, Array(repeating: 20, count: 15)),
                      (0, Array(repeating: 10, count: 30))])
    func boundDecidesRequests(maxSamples: Int, expected: [Int]) async throws {
        let fixture = try SyncFixture(intervals: 30, samplesPerInterval: 10)
        try await FaultFront.withSink(plan: FaultPlan()) { port, counters, sinkPort in
            let report = try await sync(fixture, port: port, maxSamplesPerRequest: maxSamples, concurrency: 1)
            #expect(report.isComplete && report.synced == 30 && report.samples == 300 && report.inserted == 300)
            let bodies = try await Self.bodies(counters, path: "/steps")
            #expect(bodies.map(\.count) == expected)
            // In order, interval after interval: the store's (start, uuid) order, each uuid once.
            let sent = bodies.flatMap { $0 }
            #expect(sent == fixture.samples.sorted { ($0.startMs, $0.uuid.uuidString) < ($1.startMs, $1.uuid.uuidString) }
                .map(\.uuid.uuidString))
            #expect(try await SinkHarness.storedUUIDs(port: sinkPort).uuids == fixture.storeUUIDs)
            let ledger = try fixture.store.intervals()
            #expect(ledger.allSatisfy { $0.status == .synced && $0.attempts == 1 && $0.syncedAtMs != nil })
        }
    }

    @Test("types never share a request: step counts go to /steps, heart rates to /samples")
    func typesApart() async throws {
        let fixture = try SyncFixture(intervals: 6, samplesPerInterval: 4, types: [.stepCount, .heartRate])
        try await FaultFront.withSink(plan: FaultPlan()) { port, counters, sinkPort in
            let report = try await sync(fixture, port: port)
            #expect(report.isComplete && report.synced == 12 && report.inserted == 48)
            #expect(await counters.posts == 2)
            let steps = try await Self.bodies(counters, path: "/steps")
            let others = try await Self.bodies(counters, path: "/samples")
            #expect(steps.map(\.count) == [24] && others.map(\.count) == [24])
            #expect(Set(steps.flatMap { $0 }) == Set(fixture.storeUUIDs(of: .stepCount).map(\.uuidString)))
            #expect(Set(others.flatMap { $0 }) == Set(fixture.storeUUIDs(of: .heartRate).map(\.uuidString)))
            #expect(try await SinkHarness.storedUUIDs(port: sinkPort, type: SampleType.heartRate.rawValue).uuids
                    == fixture.storeUUIDs(of: .heartRate))
        }
    }

    @Test("a packed request refused with a 400 that names no sample is split: the bad interval fails alone, the rest sync")
    func permanentFailureIsSplit() async throws {
        let fixture = try SyncFixture(intervals: 6, samplesPerInterval: 5)
        let bad = try #require(fixture.uuids(ofInterval: 4).first)
        try await FaultFront.withSink(plan: FaultPlan(rejectUUID: bad)) { port, counters, sinkPort in
            let report = try await sync(fixture, port: port, concurrency: 1)
            #expect(report.synced == 5 && report.failed == 1 && report.samples == 25)
            #expect(report.failures.map(\.intervalId) == [fixture.intervals[4].id])
            // 1 packed request (400), then each of the six alone: five accepted, the bad one refused once more.
            let (posts, rejections) = (await counters.posts, await counters.rejections)
            #expect(posts == 7 && rejections == 2)
            #expect(try await SinkHarness.storedUUIDs(port: sinkPort).uuids
                    == fixture.storeUUIDs.subtracting(fixture.uuids(ofInterval: 4)))
            let ledger = try fixture.store.intervals()
            #expect(ledger.map(\.status) == [.synced, .synced, .synced, .synced, .failed, .synced])
            #expect(ledger[4].attempts == 2 && ledger[4].lastError?.contains("400") == true)
        }
    }
}
