import Foundation
import StepSyncCore
import StepSyncEngine
import StepSyncStore
import StepSyncTestSupport
import Testing

/// Every sample type in the ledger moves: step counts to `POST /steps`, the others to `POST /samples`, deletions of
/// the others to `POST /samples/delete` with their type.
@Suite("Sync engine: every type moves, into the real sink", .timeLimit(.minutes(10)))
struct EveryTypeTests {
    static let types: [SampleType] = [.heartRate, .stepCount, .sleepAnalysis]
    /// The front forwards everything to the real sink and records every body.
    static let plan = FaultPlan()

    func sync(_ fixture: SyncFixture, port: Int, types: [SampleType]? = nil) async throws -> SyncReport {
        try await HTTPUploader.withUploader(server: "http://127.0.0.1:\(port)",
                                           requestTimeout: .patient, connectTimeout: .patient, probeTimeout: .patient,
                                           time: .system, logger: SinkHarness.quiet) { uploader in
            try await SyncEngine(store: fixture.store, uploader: uploader, configuration: SyncConfiguration(types: types),
                                 logger: SinkHarness.quiet, time: TestClock().time, randomSeed: 1).run()
        }
    }

    /// The samples the front received on `path`, as JSON objects.
    static func received(_ counters: FrontCounters, path: String) async throws -> [[String: Any]] {
        var samples: [[String: Any]] = []
        for body in await counters.bodies[path] ?? [] {
            let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            samples += try #require(object["samples"] as? [[String: Any]])
        }
        return samples
    }

    static func uuids(_ samples: [[String: Any]], type: SampleType? = nil) -> Set<UUID> {
        Set(samples.filter { type == nil || $0["type"] as? String == type?.rawValue }
            .compactMap { ($0["uuid"] as? String).flatMap(UUID.init(uuidString:)) })
    }

    @Test("every type in the ledger is sent: steps to /steps, the others to /samples with every field's exact value")
    func everyType() async throws {
        let fixture = try SyncFixture(intervals: 3, samplesPerInterval: 4, types: Self.types)
        try await FaultFront.withSink(plan: Self.plan) { port, counters, sinkPort in
            let report = try await sync(fixture, port: port)
            #expect(report.isComplete && report.synced == 9 && report.samples == 36 && report.failed == 0)
            #expect(report.types == [.stepCount, .sleepAnalysis, .heartRate])
            let others = try await Self.received(counters, path: "/samples")
            #expect(others.count == 24)
            #expect(Self.uuids(others, type: .heartRate) == fixture.storeUUIDs(of: .heartRate))
            #expect(Self.uuids(others, type: .sleepAnalysis) == fixture.storeUUIDs(of: .sleepAnalysis))
            #expect(Self.uuids(try await Self.received(counters, path: "/steps")) == fixture.storeUUIDs(of: .stepCount))

            // One heart-rate sample, field by field, against the store's.
            let sample = try #require(fixture.samples.first { $0.type == .heartRate && $0.details != nil })
            let wire = try #require(others.first { $0["uuid"] as? String == sample.uuid.uuidString })
            #expect(wire["type"] as? String == "HKQuantityTypeIdentifierHeartRate")
            #expect(wire["startDate"] as? String == ISO8601Millis.format(sample.startMs))
            #expect(wire["endDate"] as? String == ISO8601Millis.format(sample.endMs))
            #expect((wire["value"] as? NSNumber)?.doubleValue == sample.value)
            #expect(wire["unit"] as? String == "count/min" && wire["sourceName"] as? String == "Anna's Apple Watch")
            #expect(wire["sourceBundleId"] as? String == "com.apple.health.watch")
            #expect(wire["sourceDeviceName"] as? String == "Apple Watch" && wire["sourceVersion"] as? String == "10.1")
            #expect(wire["deviceModel"] as? String == "Watch6,2")
            let details = try #require(wire["details"] as? [String: Any])
            #expect(details["metadata"] as? [String: String] == ["HKMetadataKeyHeartRateMotionContext": "1"])
            let sleep = try #require(others.first { $0["type"] as? String == SampleType.sleepAnalysis.rawValue })
            #expect(sleep["unit"] as? String == "" && sleep["details"] == nil && sleep["sourceDeviceName"] == nil)
            // The sink holds exactly the store's samples of each type, step counts through /steps, unchanged.
            let stored = try await SinkHarness.storedUUIDs(port: sinkPort)
            #expect(stored.uuids == fixture.storeUUIDs(of: .stepCount) && stored.count == 12)
            for type in [SampleType.heartRate, .sleepAnalysis] {
                let served = try await SinkSamples.stored(port: sinkPort, type: type)
                #expect(try SinkSamples.uuids(served) == fixture.storeUUIDs(of: type) && served.count == 12)
            }
            // …and serves that heart rate back as the store holds it.
            let served = try await SinkSamples.stored(port: sinkPort, type: .heartRate)
            let back = try #require(served.first { ($0["uuid"] as? String)?.uppercased() == sample.uuid.uuidString })
            #expect((back["value"] as? NSNumber)?.doubleValue == sample.value && back["unit"] as? String == "count/min")
            #expect(back["startDate"] as? String == ISO8601Millis.format(sample.startMs))
            #expect((back["details"] as? [String: Any])?["metadata"] as? [String: String]
                == ["HKMetadataKeyHeartRateMotionContext": "1"])
        }
    }

    @Test("--type restricts the sync to the types named; the others stay pending")
    func onlyTheTypesNamed() async throws {
        let fixture = try SyncFixture(intervals: 3, samplesPerInterval: 2, types: Self.types)
        try await FaultFront.withSink(plan: Self.plan) { port, counters, _ in
            let report = try await sync(fixture, port: port, types: [.heartRate])
            #expect(report.synced == 3 && report.totalIntervals == 3 && report.isComplete)
            #expect(await counters.bodies["/steps"] == nil)
            #expect(Self.uuids(try await Self.received(counters, path: "/samples")) == fixture.storeUUIDs(of: .heartRate))
            #expect(try fixture.store.intervalSummary(of: .stepCount).pending == 3)
            #expect(try fixture.store.intervalSummary(of: .sleepAnalysis).pending == 3)
            #expect(try fixture.store.intervalSummary(of: .heartRate).synced == 3)
        }
    }

    @Test("a deletions interval of a non-step type goes to /samples/delete with its type")
    func nonStepDeletions() async throws {
        let fixture = try SyncFixture(intervals: 2, samplesPerInterval: 3, types: [.heartRate])
        let doomed = Array(fixture.uuids(ofInterval: 1).prefix(2))
        try await FaultFront.withSink(plan: Self.plan) { port, counters, sinkPort in
            #expect(try await sync(fixture, port: port).isComplete)
            let before = try fixture.store.changeSequence()
            _ = try fixture.store.deleteSamples(uuids: doomed)
            let after = try fixture.store.changeSequence()
            try fixture.store.appendIntervals([SyncInterval(
                type: .heartRate, range: fixture.intervals[1].range, kind: .deletions, seqAfter: before,
                seqThrough: after, steps: 0, samples: 2)])
            let report = try await sync(fixture, port: port)
            #expect(report.synced == 1 && report.deletionsSent == 2 && report.deleted == 2 && report.isComplete)
            let bodies = await counters.bodies["/samples/delete"] ?? []
            #expect(bodies.count == 1)
            let body = try #require(bodies.first)
            let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect(object["type"] as? String == SampleType.heartRate.rawValue)
            #expect(Set((object["uuids"] as? [String] ?? []).compactMap(UUID.init(uuidString:))) == Set(doomed))
            let served = try await SinkSamples.stored(port: sinkPort, type: .heartRate)
            #expect(try SinkSamples.uuids(served) == fixture.storeUUIDs(of: .heartRate).subtracting(doomed))
        }
    }

    @Test("a sink without /samples (HealthStepsSync): step counts sync; the other types stay pending, one message, none failed")
    func sinkWithoutSamples() async throws {
        let fixture = try SyncFixture(intervals: 4, samplesPerInterval: 2, types: Self.types)
        try await SinkHarness.withSink { sinkPort in
            let plan = FaultPlan(missingPaths: ["/samples", "/samples/delete"])
            try await FaultFront.withFront(sinkPort: sinkPort, plan: plan) { port, counters in
                let report = try await sync(fixture, port: port)
                #expect(report.synced == 4 && report.failed == 0 && report.skipped == 8 && !report.isComplete)
                #expect(report.unsupported == [
                    "the sink at http://127.0.0.1:\(port) does not take POST /samples (HTTP 404: no endpoint /samples): "
                        + "the intervals of types other than step counts stay pending — update the sink, or sync only "
                        + "step counts with --type HKQuantityTypeIdentifierStepCount",
                ])
                // Only the intervals already in flight when the first 404 came back were tried (concurrency 3).
                let tried = await counters.bodies["/samples"]?.count ?? 0
                #expect((1...3).contains(tried))
            }
            #expect(try fixture.store.intervalSummary(of: .heartRate).pending == 4)
            #expect(try fixture.store.intervalSummary(of: .sleepAnalysis).pending == 4)
            #expect(try await SinkHarness.storedUUIDs(port: sinkPort).uuids == fixture.storeUUIDs(of: .stepCount))
        }
    }
}
