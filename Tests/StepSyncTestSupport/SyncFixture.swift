import Foundation
import StepSyncCore
import StepSyncStore

/// A data directory in a fresh temp dir, with a store of `intervals × samplesPerInterval` step samples and a ledger
/// of contiguous one-hour intervals over them; removed when the fixture goes away.
public final class SyncFixture: Sendable {
    public static let origin: Int64 = 1_600_000_000_000

    public let path: String
    public let dataDirectory: DataDirectory
    public let store: StepStore
    public let samples: [HealthSample]
    public let intervals: [SyncInterval]

    public init(intervals intervalCount: Int = 30, samplesPerInterval: Int = 10) throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("stepsync-sync-\(UUID().uuidString)")
        dataDirectory = DataDirectory(path: path)
        store = try StepStore(dataDirectory: dataDirectory)
        var samples: [HealthSample] = []
        var planned: [SyncInterval] = []
        for i in 0..<intervalCount {
            let start = Self.origin + Int64(i) * Milliseconds.hour
            for j in 0..<samplesPerInterval {
                let t = start + Int64(j) * 60_000
                samples.append(HealthSample(
                    uuid: UUID(), type: .stepCount, startMs: t, endMs: t + 59_000, utcOffsetSeconds: 3600,
                    value: Double(10 + j), unit: "count", sourceName: "iPhone",
                    sourceBundleId: "com.apple.health.phone", deviceName: "iPhone", deviceModel: "iPhone14,5"))
            }
            planned.append(SyncInterval(
                range: TimeRange(start: start, end: start + Milliseconds.hour),
                steps: Double((0..<samplesPerInterval).reduce(0) { $0 + 10 + $1 }), samples: samplesPerInterval))
        }
        _ = try store.insert(samples)
        self.samples = samples
        self.intervals = try store.appendIntervals(planned)
    }

    /// The uuids of every sample in the store.
    public var storeUUIDs: Set<UUID> { Set(samples.map(\.uuid)) }

    /// The uuids of the samples of one interval.
    public func uuids(ofInterval index: Int) -> Set<UUID> {
        let range = intervals[index].range
        return Set(samples.filter { range.contains($0.startMs) }.map(\.uuid))
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
