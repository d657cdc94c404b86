import Foundation
import StepSyncCore
import StepSyncEngine
import StepSyncStore
import StepSyncTestSupport
import Testing

/// One bad sample is not sent and does not hold back the others of its interval.
@Suite("Sync engine: a bad sample is not sent and does not block the others", .timeLimit(.minutes(10)))
struct RejectedSampleTests {
    func sync(_ fixture: SyncFixture, port: Int,
              maxSamplesPerRequest: Int = SyncConfiguration.defaultMaxSamplesPerRequest) async throws -> SyncReport {
        try await HTTPUploader.withUploader(server: "http://127.0.0.1:\(port)",
                                           requestTimeout: .patient, connectTimeout: .patient, probeTimeout: .patient,
                                           time: .system, logger: SinkHarness.quiet) { uploader in
            try await SyncEngine(store: fixture.store, uploader: uploader,
                                 configuration: SyncConfiguration(maxSamplesPerRequest: maxSamplesPerRequest),
                                 logger: SinkHarness.quiet, time: TestClock().time, randomSeed: 1).run()
        }
    }

    @Test("invalid samples in the store are left out and recorded with uuid, type, reason and field; the rest is acknowledged")
    func invalidSamplesInTheStore() async throws {
        let fixture = try SyncFixture(intervals: 4, samplesPerInterval: 5)
        let negative = try #require(fixture.uuids(ofInterval: 1).sorted { $0.uuidString < $1.uuidString }.first)
        let longSource = try #require(fixture.uuids(ofInterval: 2).sorted { $0.uuidString < $1.uuidString }.first)
        let farEnd = try #require(fixture.uuids(ofInterval: 2).sorted { $0.uuidString < $1.uuidString }.last)
        // What a store written by an older, less strict stepsync may hold.
        let path = fixture.dataDirectory.storePath
        try RawStore.setSample(negative, column: "value", to: -5.0, storePath: path)
        try RawStore.setSample(longSource, column: "source_bundle_id", to: String(repeating: "x", count: 2_000), storePath: path)
        try RawStore.setSample(farEnd, column: "end_ms", to: Int64(253_402_300_800_000), storePath: path)  // year 10000

        try await SinkHarness.withSink { port in
            let report = try await sync(fixture, port: port)
            #expect(report.isComplete && report.synced == 4 && report.failed == 0)
            #expect(report.samples == 17 && report.inserted == 17)
            #expect(report.rejectedThisRun == 3 && report.rejectedTotal == 3)
            #expect(Set(report.rejected.map(\.uuid)) == [negative, longSource, farEnd])
            let stored = try await SinkHarness.storedUUIDs(port: port)
            #expect(stored.uuids == fixture.storeUUIDs.subtracting([negative, longSource, farEnd]) && stored.count == 17)

            let records = Dictionary(uniqueKeysWithValues: try fixture.store.rejectedSamples().map { ($0.uuid, $0) })
            #expect(records.count == 3)
            #expect(records[negative]?.reason == "negative_value" && records[negative]?.field == "value")
            #expect(records[negative]?.intervalId == fixture.intervals[1].id)
            #expect(records[longSource]?.reason == "field_too_long" && records[longSource]?.field == "sourceBundleId")
            #expect(records[farEnd]?.reason == "instant_out_of_range" && records[farEnd]?.field == "endDate")
            #expect(records.values.allSatisfy { $0.foundBy == .engine && $0.type == .stepCount })
            #expect(records[longSource]?.detail.contains("xxx") == false)  // never echoes the value

            // A second run has nothing to send and counts nothing twice.
            let again = try await sync(fixture, port: port)
            #expect(again.synced == 0 && again.rejectedThisRun == 0 && again.rejectedTotal == 3 && again.isComplete)
            #expect(try fixture.store.rejectedCounts() == [.stepCount: 3])
        }
    }

    @Test("a sink that refuses a sample by index: it is recorded against its interval, and the request is resent without it",
          arguments: [(0, 7), (SyncConfiguration.defaultMaxSamplesPerRequest, 2)])
    func sinkRefusesOneSample(maxSamplesPerRequest: Int, expectedPosts: Int) async throws {
        let fixture = try SyncFixture(intervals: 6, samplesPerInterval: 5)
        let refused = try #require(fixture.uuids(ofInterval: 3).first)
        try await FaultFront.withSink(plan: FaultPlan(refuseUUIDByIndex: refused)) { port, counters, sinkPort in
            // One interval a request: 6 posts and the refused one again; all six packed: 1 post and its resend.
            let report = try await sync(fixture, port: port, maxSamplesPerRequest: maxSamplesPerRequest)
            #expect(report.isComplete && report.synced == 6 && report.failed == 0 && report.samples == 29)
            #expect(report.rejectedThisRun == 1 && report.rejected.first?.uuid == refused)
            let (rejections, posts) = (await counters.rejections, await counters.posts)
            #expect(rejections == 1 && posts == expectedPosts)
            let stored = try await SinkHarness.storedUUIDs(port: sinkPort)
            #expect(stored.uuids == fixture.storeUUIDs.subtracting([refused]) && stored.count == 29)
            let record = try #require(try fixture.store.rejectedSamples().first)
            #expect(record.uuid == refused && record.foundBy == .sink && record.reason == "negative_value")
            #expect(record.field == "count" && record.intervalId == fixture.intervals[3].id)
            #expect(record.detail.hasPrefix("HTTP 400: sample ") && record.detail.hasSuffix(#"field "count" -5 is negative"#))
        }
    }
}
