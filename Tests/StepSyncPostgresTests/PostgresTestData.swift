import Foundation
import Logging
import StepSyncCore
import StepSyncPostgres
import StepSyncTestSupport

let quietLogger = Logger(label: "pg-test") { _ in SwiftLogNoOpLogHandler() }

/// Runs `body` with a migrated storage on a fresh database of the shared test server.
func withStorage<R: Sendable>(
    ingest: PostgresSampleStorage.IngestMethod = .copy,
    _ body: @Sendable (PostgresSampleStorage, _ url: String) async throws -> R
) async throws -> R {
    try await PostgresHarness.withDatabase { url in
        let configuration = PostgresSampleStorage.Configuration(url: try DatabaseURL(url), ingest: ingest,
                                                                leaseTimeout: PostgresHarness.patientLeaseTimeout, time: .system)
        return try await PostgresSampleStorage.withStorage(configuration: configuration, logger: quietLogger) { storage in
            try await body(storage, url)
        }
    }
}

/// `n` step samples ten minutes apart from 2025-05-11, with fixed uuids from `first` (see ``fixedUUID(_:)``).
func stepSamples(_ n: Int, first: Int = 0, type: SampleType = .stepCount) -> [HealthSample] {
    let base = ISO8601Millis.parse("2025-05-11T00:00:00.000Z")!
    return (first..<(first + n)).map { i in
        HealthSample(uuid: fixedUUID(i), type: type, startMs: base + Int64(i) * 600_000,
                     endMs: base + Int64(i) * 600_000 + 60_000, utcOffsetSeconds: 7200, value: Double(i % 500 + 1),
                     unit: "count", sourceName: "Anna's iPhone", sourceBundleId: "com.apple.health.A1",
                     deviceName: i % 3 == 0 ? nil : "iPhone", deviceModel: "iPhone14,5")
    }
}

/// A fixed uuid for index `i`.
func fixedUUID(_ i: Int) -> UUID {
    UUID(uuidString: String(format: "00000000-0000-4000-8000-%012X", i))!
}

/// Samples whose fields test every edge the storage must keep exactly: text needing COPY escapes, Unicode, absent
/// optionals, the first and last representable milliseconds, fractional and tiny values, details JSON verbatim.
func awkwardSamples() -> [HealthSample] {
    [
        HealthSample(uuid: fixedUUID(9001), type: .heartRate, startMs: Instants.min, endMs: Instants.min,
                     value: 72.5, unit: "count/min", sourceName: "tab\there", sourceBundleId: "back\\slash",
                     sourceVersion: "line\nbreak", deviceName: "cr\rhere", deviceModel: "\\N"),
        HealthSample(uuid: fixedUUID(9002), type: .heartRate, startMs: Instants.max, endMs: Instants.max,
                     utcOffsetSeconds: -34_200, value: 0.000_001, unit: "count/min", sourceName: "Ännas Uhr ⌚️",
                     sourceBundleId: "com.apple.health.ß", details: #"{"b":1, "a":[1.0,"x\"y"],"c":{"HKMetadataKeyHeartRateMotionContext":"1"}}"#),
        HealthSample(uuid: fixedUUID(9003), type: .workout, startMs: 1_700_000_000_123, endMs: 1_700_003_600_456,
                     utcOffsetSeconds: 50_400, value: 3600.25, unit: "s", sourceName: "", sourceBundleId: "",
                     details: #"{"activityType":"HKWorkoutActivityTypeRunning","totalDistance":10.5}"#),
        HealthSample(uuid: fixedUUID(9004), type: .heartRate, startMs: -62_135_596_799_999, endMs: 0,
                     value: 1e-300, unit: "count/min", sourceName: "\u{1F3C3}", sourceBundleId: "x"),
    ]
}
