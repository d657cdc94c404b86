import Foundation
import StepSyncCore
import StepSyncEngine
import StepSyncStore
import StepSyncTestSupport
import Testing

/// A body limit in front of the sink (nginx's `client_max_body_size`, played by the fault front answering 413 with
/// nginx's HTML): the sync splits, remembers the limit, and fails an interval for size only when one sample alone is
/// refused.
@Suite("Sync engine: fitting a body limit (413)", .timeLimit(.minutes(2)))
struct BodyLimitTests {
    func sync(_ fixture: SyncFixture, port: Int, maxRequestBytes: Int? = nil) async throws -> SyncReport {
        try await HTTPUploader.withUploader(server: "http://127.0.0.1:\(port)", logger: SinkHarness.quiet) { uploader in
            try await SyncEngine(
                store: fixture.store, uploader: uploader,
                configuration: SyncConfiguration(backoffFree: true, maxRequestBytes: maxRequestBytes),
                logger: SinkHarness.quiet, clock: TestClock(), randomSeed: 1
            ).run()
        }
    }

    /// The uuids of each body the front forwarded on `path`.
    static func bodies(_ counters: FrontCounters, path: String) async throws -> [Set<UUID>] {
        try await (counters.bodies[path] ?? []).map { body in
            let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            let samples = try #require(object["samples"] as? [[String: Any]])
            return Set(samples.compactMap { ($0["uuid"] as? String).flatMap(UUID.init(uuidString:)) })
        }
    }

    @Test("heart rates and packed step counts behind an 8,000-byte limit: all synced, every body forwarded fits, packed intervals kept whole")
    func learnsTheLimit() async throws {
        let fixture = try SyncFixture(intervals: 6, samplesPerInterval: 40, types: [.stepCount, .heartRate])
        try await SinkHarness.withSink { sinkPort in
            try await FaultFront.withFront(sinkPort: sinkPort, plan: FaultPlan(maxBodyBytes: 8_000)) { port, counters in
                let report = try await sync(fixture, port: port)
                #expect(report.isComplete && report.synced == 12 && report.failed == 0 && report.pending == 0)
                #expect(report.samples == 480 && report.inserted == 480 && report.duplicates == 0)
                let refused = await counters.tooLargeAnswers
                #expect(refused >= 1 && report.tooLarge == refused)
                let limit = try #require(report.requestLimitBytes)
                #expect(limit < 8_000)
                let forwarded = await counters.forwardedSizes
                #expect(forwarded.allSatisfy { $0 <= limit })
                // Every heart-rate interval (≈ 15 KB) went in several parts.
                let heartParts = try await Self.bodies(counters, path: "/samples").filter { !$0.isEmpty }
                #expect(heartParts.count > 6)
                // Step intervals (≈ 7 KB each here) fit alone: none was cut into parts.
                let stepBodies = try await Self.bodies(counters, path: "/steps")
                for index in 0..<6 {
                    let interval = fixture.uuids(ofInterval: index)
                    #expect(stepBodies.filter { !$0.isDisjoint(with: interval) }.allSatisfy { interval.isSubset(of: $0) })
                }
            }
            let steps = try await SinkHarness.storedUUIDs(port: sinkPort)
            #expect(steps.uuids == fixture.storeUUIDs(of: .stepCount) && steps.count == 240)
            let hearts = try await SinkSamples.stored(port: sinkPort, type: .heartRate)
            #expect(try SinkSamples.uuids(hearts) == fixture.storeUUIDs(of: .heartRate) && hearts.count == 240)
        }
        #expect(try fixture.store.intervalSummary().synced == 12)
    }

    @Test("--max-request-bytes up front: no 413 at all, every body within it")
    func configuredLimit() async throws {
        let fixture = try SyncFixture(intervals: 4, samplesPerInterval: 40, types: [.heartRate])
        try await SinkHarness.withSink { sinkPort in
            try await FaultFront.withFront(sinkPort: sinkPort, plan: FaultPlan(maxBodyBytes: 8_000)) { port, counters in
                let report = try await sync(fixture, port: port, maxRequestBytes: 8_000)
                #expect(report.isComplete && report.synced == 4 && report.failed == 0)
                #expect(report.tooLarge == 0 && report.requestLimitBytes == 8_000)
                #expect(await counters.tooLargeAnswers == 0)
                let forwarded = await counters.forwardedSizes
                #expect(forwarded.count >= 4 * 2 && forwarded.allSatisfy { $0 <= 8_000 })
            }
            let hearts = try await SinkSamples.stored(port: sinkPort, type: .heartRate)
            #expect(try SinkSamples.uuids(hearts) == fixture.storeUUIDs(of: .heartRate) && hearts.count == 160)
        }
    }

    @Test("a limit that fits one sample but not two: every sample alone, nothing failed")
    func oneSampleFits() async throws {
        let fixture = try SyncFixture(intervals: 2, samplesPerInterval: 3, types: [.heartRate])
        try await SinkHarness.withSink { sinkPort in
            try await FaultFront.withFront(sinkPort: sinkPort, plan: FaultPlan(maxBodyBytes: 600)) { port, counters in
                let report = try await sync(fixture, port: port)
                #expect(report.isComplete && report.synced == 2 && report.failed == 0 && report.samples == 6)
                let bodies = try await Self.bodies(counters, path: "/samples").filter { !$0.isEmpty }
                #expect(bodies.count == 6 && bodies.allSatisfy { $0.count == 1 })
            }
            let hearts = try await SinkSamples.stored(port: sinkPort, type: .heartRate)
            #expect(try SinkSamples.uuids(hearts) == fixture.storeUUIDs(of: .heartRate))
        }
    }

    @Test("a limit under one sample: the interval fails for size, naming it, and nothing of it is stored")
    func oneSampleTooLarge() async throws {
        let fixture = try SyncFixture(intervals: 2, samplesPerInterval: 3, types: [.heartRate])
        try await SinkHarness.withSink { sinkPort in
            try await FaultFront.withFront(sinkPort: sinkPort, plan: FaultPlan(maxBodyBytes: 200)) { port, _ in
                let report = try await sync(fixture, port: port)
                #expect(report.synced == 0 && report.failed == 2 && report.pending == 0)
                #expect(report.failures.allSatisfy {
                    $0.message.hasPrefix("HTTP 413: ") && $0.message.hasSuffix(
                        "(one sample alone is over the body limit of the sink or a proxy in front of it)")
                })
            }
            #expect(try await SinkSamples.stored(port: sinkPort, type: .heartRate).isEmpty)
        }
    }
}

extension SyncConfiguration {
    /// The tests' configuration: retries without real waits (the clock is a `TestClock` anyway).
    init(backoffFree: Bool, maxRequestBytes: Int?) {
        self.init(retryPolicy: RetryPolicy(baseSeconds: 0.01), maxRequestBytes: maxRequestBytes)
    }
}
