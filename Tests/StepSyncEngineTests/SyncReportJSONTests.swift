import Foundation
import StepSyncCore
@testable import StepSyncEngine
import Testing

/// `sync --json` is the report's own encoding (`SyncReport+JSON.swift`), its counters the run machine's tally.
@Suite("The sync report: one copy of the run's counters, encoded as sync --json")
struct SyncReportJSONTests {
    /// Every field set; the bytes as `JSONOutput` writes them (sorted keys as JSONSerialization sorts them).
    @Test("the report encodes every key of docs/json/sync.schema.json, byte for byte as the dictionary it replaced")
    func bytes() throws {
        var report = SyncReport()
        report.server = "http://127.0.0.1:8000"
        report.totalIntervals = 12
        report.totalSynced = 9
        report.failed = 2
        report.pending = 1
        report.synced = 5
        report.failedThisRun = 1
        report.requeued = 3
        report.skipped = 2
        report.samples = 1234
        report.inserted = 1200
        report.duplicates = 34
        report.deletionsSent = 7
        report.deleted = 6
        report.recoveredInFlight = 2
        report.rejectedThisRun = 3
        report.rejectedTotal = 9
        report.tooLarge = 1
        report.requestLimitBytes = 4096
        report.peakInFlight = 4
        report.window = 3
        report.roundTripMs = 12
        report.stopped = true
        report.serverWaits = 2
        report.serverWaitSeconds = 3.25
        report.seconds = 1.2345678
        report.types = [.stepCount, .heartRate]
        report.run.unsupported = [.init(
            interval: SyncInterval(id: 3, type: .heartRate, range: TimeRange(start: 0, end: 1000), kind: .samples,
                                   steps: 0, samples: 4),
            message: "HTTP 404: no")]
        report.failures = [SyncFailure(intervalId: 7, range: TimeRange(start: 1_743_298_200_000, end: 1_743_298_800_000),
                                       attempts: 2, message: "HTTP 400: x/y é")]
        report.rejected = [
            RejectedSample(uuid: UUID(uuidString: "2EFC34E7-BFE4-42EB-8FA1-E9532F4DCFBF")!, type: .stepCount,
                           reason: "negative_value", field: "count", detail: "d", intervalId: 4, foundBy: .sink,
                           atMs: 1_743_298_200_123),
            RejectedSample(uuid: UUID(uuidString: "E2A3D162-2D5A-4D19-9569-293B1CABFE14")!, type: .heartRate,
                           reason: "r", field: nil, detail: "d2", intervalId: nil, foundBy: .engine, atMs: 5),
        ]
        #expect(report.run.synced == 5 && report.run.failed == 1 && report.run.rejectedCount == 3)
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report))
        let bytes = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(String(decoding: bytes, as: UTF8.self) == #"""
            {"complete":false,"deleted":6,"deletionsSent":7,"duplicates":34,"failed":2,"failedThisRun":1,"failures":[{"attempts":2,"end":"2025-03-30T01:40:00.000Z","id":7,"message":"HTTP 400: x/y é","start":"2025-03-30T01:30:00.000Z","type":"HKQuantityTypeIdentifierStepCount"}],"gaveUp":null,"inserted":1200,"intervals":12,"peakInFlight":4,"pending":1,"recoveredInFlight":2,"rejected":[{"at":"2025-03-30T01:30:00.123Z","detail":"d","field":"count","foundBy":"sink","interval":4,"reason":"negative_value","type":"HKQuantityTypeIdentifierStepCount","uuid":"2EFC34E7-BFE4-42EB-8FA1-E9532F4DCFBF"},{"at":"1970-01-01T00:00:00.005Z","detail":"d2","field":null,"foundBy":"engine","interval":null,"reason":"r","type":"HKQuantityTypeIdentifierHeartRate","uuid":"E2A3D162-2D5A-4D19-9569-293B1CABFE14"}],"rejectedThisRun":3,"rejectedTotal":9,"requestLimitBytes":4096,"requeued":3,"roundTripMs":12,"samples":1234,"samplesPerSecond":1000,"seconds":1.2345678,"serverWaits":2,"serverWaitSeconds":3.25,"skipped":2,"stopped":true,"synced":5,"tooLarge":1,"totalSynced":9,"types":["HKQuantityTypeIdentifierStepCount","HKQuantityTypeIdentifierHeartRate"],"unsupported":["the sink at http://127.0.0.1:8000 does not take POST /samples (HTTP 404: no): the intervals of types other than step counts stay pending — update the sink, or sync only step counts with --type HKQuantityTypeIdentifierStepCount"],"window":3}
            """#)
    }
}
