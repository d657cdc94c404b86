import Foundation
import StepSyncCore
import StepSyncStore

/// A data directory in a fresh temp dir, with a store of `intervals × samplesPerInterval` samples of each of `types`
/// (step counts unless given) and a ledger of contiguous one-hour intervals over them per type; removed when the
/// fixture goes away.
public final class SyncFixture: Sendable {
    public static let origin: Int64 = 1_600_000_000_000

    public let path: String
    public let dataDirectory: DataDirectory
    public let store: StepStore
    /// Every sample, type by type in the order of `types`.
    public let samples: [HealthSample]
    /// Every interval, type by type in the order of `types`.
    public let intervals: [SyncInterval]

    public init(intervals intervalCount: Int = 30, samplesPerInterval: Int = 10, types: [SampleType] = [.stepCount]) throws {
        path = TemporaryDirectory.uniquePath("stepsync-sync")
        dataDirectory = DataDirectory(path: path)
        store = try StepStore(dataDirectory: dataDirectory)
        var samples: [HealthSample] = []
        var stored: [SyncInterval] = []
        for type in types {
            var planned: [SyncInterval] = []
            for i in 0..<intervalCount {
                let start = Self.origin + Int64(i) * Milliseconds.hour
                var sum = 0.0
                for j in 0..<samplesPerInterval {
                    let sample = Self.sample(type: type, at: start + Int64(j) * 60_000, index: j)
                    sum += sample.value
                    samples.append(sample)
                }
                planned.append(SyncInterval(type: type, range: TimeRange(start: start, end: start + Milliseconds.hour),
                                            steps: sum, samples: samplesPerInterval))
            }
            stored += try store.appendIntervals(planned)
        }
        _ = try store.insert(samples)
        self.samples = samples
        self.intervals = stored
    }

    /// The `index`th sample of an interval of `type` starting at `t`: step counts `10 + index` from the iPhone,
    /// heart rates `60 + index` bpm from the Watch (every other one with metadata in `details`), sleep stages (category
    /// codes `index % 3`, unit `""`), anything else `1.5 + index` of unit `u`.
    public static func sample(type: SampleType, at t: Int64, index j: Int) -> HealthSample {
        switch type {
        case .stepCount:
            return HealthSample(
                uuid: UUID(), type: type, startMs: t, endMs: t + 59_000, utcOffsetSeconds: 3600,
                value: Double(10 + j), unit: "count", sourceName: "iPhone",
                sourceBundleId: "com.apple.health.phone", deviceName: "iPhone", deviceModel: "iPhone14,5")
        case .heartRate:
            return HealthSample(
                uuid: UUID(), type: type, startMs: t, endMs: t, utcOffsetSeconds: 3600, value: Double(60 + j),
                unit: "count/min", sourceName: "Anna's Apple Watch", sourceBundleId: "com.apple.health.watch",
                sourceVersion: "10.1", deviceName: "Apple Watch", deviceModel: "Watch6,2",
                details: j % 2 == 0 ? #"{"metadata":{"HKMetadataKeyHeartRateMotionContext":"1"}}"# : nil)
        case .sleepAnalysis:
            return HealthSample(
                uuid: UUID(), type: type, startMs: t, endMs: t + 30_000, value: Double(j % 3), unit: "",
                sourceName: "Anna's Apple Watch", sourceBundleId: "com.apple.health.watch")
        default:
            return HealthSample(
                uuid: UUID(), type: type, startMs: t, endMs: t + 1_000, value: 1.5 + Double(j), unit: "u",
                sourceName: "Scale", sourceBundleId: "com.example.scale")
        }
    }

    /// The uuids of every sample in the store.
    public var storeUUIDs: Set<UUID> { Set(samples.map(\.uuid)) }

    /// The uuids of the samples of one type.
    public func storeUUIDs(of type: SampleType) -> Set<UUID> { Set(samples.filter { $0.type == type }.map(\.uuid)) }

    /// The uuids of the samples of one interval.
    public func uuids(ofInterval index: Int) -> Set<UUID> {
        let interval = intervals[index]
        return Set(samples.filter { $0.type == interval.type && interval.range.contains($0.startMs) }.map(\.uuid))
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
