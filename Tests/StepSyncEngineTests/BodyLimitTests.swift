import Foundation
import StepSyncCore
import StepSyncEngine
import StepSyncStore
import StepSyncTestSupport
import Testing

/// A body limit in front of the sink (nginx's `client_max_body_size`, played by the fault front answering 413 with
/// nginx's HTML): the sync splits, remembers the limit, and fails an interval for size only when one sample alone is
/// refused.
@Suite("Sync engine: fitting a body limit (413)", .timeLimit(.minutes(10)))
struct BodyLimitTests {
    func sync(_ fixture: SyncFixture, port: Int, maxRequestBytes: Int? = nil) async throws -> SyncReport {
        try await HTTPUploader.withUploader(server: "http://127.0.0.1:\(port)",
                                           requestTimeout: .patient, connectTimeout: .patient, probeTimeout: .patient,
                                           time: .system, logger: SinkHarness.quiet) { uploader in
            try await SyncEngine(
                store: fixture.store, uploader: uploader,
                configuration: SyncConfiguration(backoffFree: true, maxRequestBytes: maxRequestBytes),
                logger: SinkHarness.quiet, time: TestClock().time, randomSeed: 1
            ).run()
        }
    }

    /// The uuids of each body the front forwarded to the sink on `path` (not those it refused).
    static func bodies(_ counters: FrontCounters, path: String) async throws -> [Set<UUID>] {
        try await (counters.forwarded[path] ?? []).map { body in
            let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            let samples = try #require(object["samples"] as? [[String: Any]])
            return Set(samples.compactMap { ($0["uuid"] as? String).flatMap(UUID.init(uuidString:)) })
        }
    }

    @Test("packed step counts and heart rates behind an 8,000-byte limit: all synced, the limit learnt, packed intervals split apart but never cut")
    func learnsTheLimit() async throws {
        // Step intervals ≈ 2.5 KB, heart-rate ones ≈ 4 KB: each type's six fit one packed request of 15–24 KB.
        let fixture = try SyncFixture(intervals: 6, samplesPerInterval: 10, types: [.stepCount, .heartRate])
        try await FaultFront.withSink(plan: FaultPlan(maxBodyBytes: 8_000)) { port, counters, sinkPort in
            let report = try await sync(fixture, port: port)
            #expect(report.isComplete && report.synced == 12 && report.failed == 0 && report.pending == 0)
            #expect(report.samples == 120 && report.inserted == 120 && report.duplicates == 0)
            let refused = await counters.tooLargeAnswers
            #expect(refused >= 1 && report.tooLarge == refused)
            let limit = try #require(report.requestLimitBytes)
            #expect(limit < 8_000)
            #expect(await counters.forwardedSizes.allSatisfy { $0 <= 8_000 })
            // Each type's packed request went in several parts, each of whole intervals: an interval that fits
            // alone is never cut.
            for (path, type) in [("/steps", SampleType.stepCount), ("/samples", .heartRate)] {
                let parts = try await Self.bodies(counters, path: path)
                #expect(parts.count >= 2 && parts.count <= 6, "\(path)")
                #expect(parts.reduce(0) { $0 + $1.count } == 60, "\(path): every sample forwarded once")
                let intervals = fixture.intervals.indices.filter { fixture.intervals[$0].type == type }
                for index in intervals {
                    let interval = fixture.uuids(ofInterval: index)
                    #expect(parts.filter { !$0.isDisjoint(with: interval) }.count == 1, "\(path) interval \(index)")
                }
            }
            let steps = try await SinkHarness.storedUUIDs(port: sinkPort)
            #expect(steps.uuids == fixture.storeUUIDs(of: .stepCount) && steps.count == 60)
            let hearts = try await SinkSamples.stored(port: sinkPort, type: .heartRate)
            #expect(try SinkSamples.uuids(hearts) == fixture.storeUUIDs(of: .heartRate) && hearts.count == 60)
        }
        #expect(try fixture.store.ledgerSummary().overall.synced == 12)
    }

    @Test("--max-request-bytes up front: no 413 at all, every body within it")
    func configuredLimit() async throws {
        let fixture = try SyncFixture(intervals: 4, samplesPerInterval: 40, types: [.heartRate])
        try await FaultFront.withSink(plan: FaultPlan(maxBodyBytes: 8_000)) { port, counters, sinkPort in
            let report = try await sync(fixture, port: port, maxRequestBytes: 8_000)
            #expect(report.isComplete && report.synced == 4 && report.failed == 0)
            #expect(report.tooLarge == 0 && report.requestLimitBytes == 8_000)
            #expect(await counters.tooLargeAnswers == 0)
            let forwarded = await counters.forwardedSizes
            #expect(forwarded.count >= 4 * 2 && forwarded.allSatisfy { $0 <= 8_000 })
            let hearts = try await SinkSamples.stored(port: sinkPort, type: .heartRate)
            #expect(try SinkSamples.uuids(hearts) == fixture.storeUUIDs(of: .heartRate) && hearts.count == 160)
        }
    }

    @Test("the default limit (2 MiB): one interval of 80 samples with 60 KB of details each (≈ 4.9 MB) goes in parts of at most 2 MiB, no 413, the sink exact; plain intervals go whole")
    func defaultLimitCutsLargeBodies() async throws {
        let hrv = SampleType("HKQuantityTypeIdentifierHeartRateVariabilitySDNN")
        // One hour-long interval of each type; the HRV one's samples are written here, with large `details`.
        let fixture = try SyncFixture(intervals: 1, samplesPerInterval: 0, types: [hrv])
        let filler = String(repeating: "7", count: 60_000)
        let large = (0..<80).map { i in
            HealthSample(uuid: UUID(), type: hrv, startMs: SyncFixture.origin + Int64(i) * 30_000,
                         endMs: SyncFixture.origin + Int64(i) * 30_000, value: 40 + Double(i), unit: "ms",
                         sourceName: "Anna's Apple Watch", sourceBundleId: "com.apple.health.watch",
                         details: #"{"metadata":{"beats":"\#(filler)"}}"#)
        }
        _ = try fixture.store.insert(large)
        let plain = try SyncFixture(intervals: 3, samplesPerInterval: 50, types: [.heartRate])
        try await SinkHarness.withSink { sinkPort in
            // The front refuses nothing below 64 MiB: any cut is the sync's own.
            try await FaultFront.withFront(sinkPort: sinkPort, plan: FaultPlan(maxBodyBytes: 64 << 20)) { port, counters in
                let config = SyncConfiguration(retryPolicy: RetryPolicy(baseSeconds: 0.01))
                #expect(config.maxRequestBytes == 2 << 20)
                let report = try await HTTPUploader.withUploader(
                    server: "http://127.0.0.1:\(port)", requestTimeout: .patient, connectTimeout: .patient,
                    probeTimeout: .patient, time: .system, logger: SinkHarness.quiet
                ) { uploader in
                    try await SyncEngine(store: fixture.store, uploader: uploader, configuration: config,
                                         logger: SinkHarness.quiet, time: TestClock().time, randomSeed: 1).run()
                }
                #expect(report.isComplete && report.synced == 1 && report.failed == 0 && report.samples == 80)
                #expect(report.tooLarge == 0 && report.requestLimitBytes == 2 << 20)
                #expect(await counters.tooLargeAnswers == 0)
                let sizes = await counters.forwardedSizes
                #expect(sizes.count >= 3 && sizes.allSatisfy { $0 <= 2 << 20 }, "\(sizes)")
                #expect(sizes.reduce(0, +) > 80 * 60_000)
                let parts = try await Self.bodies(counters, path: "/samples")
                #expect(parts.reduce(0) { $0 + $1.count } == 80 && Set(parts.flatMap { $0 }) == Set(large.map(\.uuid)))
            }
            let stored = try await SinkSamples.stored(port: sinkPort, type: hrv)
            #expect(try SinkSamples.uuids(stored) == Set(large.map(\.uuid)))
            // Plain heart-rate intervals, each alone in a request: under the default, each goes whole.
            try await FaultFront.withFront(sinkPort: sinkPort, plan: FaultPlan(maxBodyBytes: 64 << 20)) { port, counters in
                let report = try await HTTPUploader.withUploader(
                    server: "http://127.0.0.1:\(port)", requestTimeout: .patient, connectTimeout: .patient,
                    probeTimeout: .patient, time: .system, logger: SinkHarness.quiet
                ) { uploader in
                    try await SyncEngine(store: plain.store, uploader: uploader,
                                         configuration: SyncConfiguration(maxSamplesPerRequest: 0),
                                         logger: SinkHarness.quiet, time: TestClock().time, randomSeed: 1).run()
                }
                #expect(report.isComplete && report.synced == 3 && report.samples == 150)
                let parts = try await Self.bodies(counters, path: "/samples")
                #expect(parts.count == 3 && parts.allSatisfy { $0.count == 50 })
            }
        }
    }

    @Test("a limit that fits one sample but not two: every sample alone, nothing failed")
    func oneSampleFits() async throws {
        let fixture = try SyncFixture(intervals: 2, samplesPerInterval: 3, types: [.heartRate])
        try await FaultFront.withSink(plan: FaultPlan(maxBodyBytes: 600)) { port, counters, sinkPort in
            let report = try await sync(fixture, port: port)
            #expect(report.isComplete && report.synced == 2 && report.failed == 0 && report.samples == 6)
            let bodies = try await Self.bodies(counters, path: "/samples").filter { !$0.isEmpty }
            #expect(bodies.count == 6 && bodies.allSatisfy { $0.count == 1 })
            let hearts = try await SinkSamples.stored(port: sinkPort, type: .heartRate)
            #expect(try SinkSamples.uuids(hearts) == fixture.storeUUIDs(of: .heartRate))
        }
    }

    @Test("a limit under one sample: the interval fails for size, naming it, and nothing of it is stored")
    func oneSampleTooLarge() async throws {
        let fixture = try SyncFixture(intervals: 2, samplesPerInterval: 3, types: [.heartRate])
        try await FaultFront.withSink(plan: FaultPlan(maxBodyBytes: 200)) { port, _, sinkPort in
            let report = try await sync(fixture, port: port)
            #expect(report.synced == 0 && report.failed == 2 && report.pending == 0)
            #expect(report.failures.allSatisfy {
                $0.message.hasPrefix("HTTP 413: ") && $0.message.hasSuffix(
                    "(one sample alone is over the body limit of the sink or a proxy in front of it)")
            })
            #expect(try await SinkSamples.stored(port: sinkPort, type: .heartRate).isEmpty)
        }
    }
}

/// Forwards to the real uploader and requests a stop once the first body is acknowledged.
struct StopAfterFirstAcknowledgement: Uploader {
    let base: HTTPUploader
    let stop: SyncStop
    var server: String { base.server }

    func send(_ body: [UInt8], to endpoint: SinkEndpoint, itemCount: Int) async throws -> UploadOutcome {
        let outcome = try await base.send(body, to: endpoint, itemCount: itemCount)
        if case .accepted = outcome { stop.request() }
        return outcome
    }

    func probe() async -> SinkFailure? { await base.probe() }
}

extension BodyLimitTests {
    @Test("a pause between the parts of a split interval puts it back to pending; the next run resends it, exact")
    func pauseBetweenParts() async throws {
        let fixture = try SyncFixture(intervals: 1, samplesPerInterval: 40, types: [.heartRate])
        try await SinkHarness.withSink { port in
            let stop = SyncStop()
            let paused = try await HTTPUploader.withUploader(server: "http://127.0.0.1:\(port)",
                                           requestTimeout: .patient, connectTimeout: .patient, probeTimeout: .patient,
                                           time: .system, logger: SinkHarness.quiet) {
                try await SyncEngine(
                    store: fixture.store, uploader: StopAfterFirstAcknowledgement(base: $0, stop: stop),
                    configuration: SyncConfiguration(backoffFree: true, maxRequestBytes: 4_096),
                    logger: SinkHarness.quiet, time: TestClock().time, randomSeed: 1
                ).run(stop: stop)
            }
            #expect(paused.stopped && paused.synced == 0 && paused.requeued == 1 && paused.pending == 1)
            let first = try await SinkSamples.stored(port: port, type: .heartRate).count
            #expect(first > 0 && first < 40)
            let resumed = try await sync(fixture, port: port, maxRequestBytes: 4_096)
            #expect(resumed.isComplete && resumed.synced == 1 && resumed.samples == 40)
            #expect(resumed.duplicates == first && resumed.inserted == 40 - first)
            let hearts = try await SinkSamples.stored(port: port, type: .heartRate)
            #expect(try SinkSamples.uuids(hearts) == fixture.storeUUIDs(of: .heartRate) && hearts.count == 40)
        }
    }
}

extension SyncConfiguration {
    /// The tests' configuration: retries without real waits (the clock is a `TestClock` anyway).
    init(backoffFree: Bool, maxRequestBytes: Int?) {
        self.init(retryPolicy: RetryPolicy(baseSeconds: 0.01), maxRequestBytes: maxRequestBytes)
    }
}
