import Foundation

/// A recording source of the generator (iPhone, Apple Watch, manual entries in Health) and how it stamps samples.
struct DeviceSource: Sendable {
    let sourceName: String
    let bundleId: String
    let deviceName: String?
    let deviceModel: String?
    /// The OS major version in 2007 + n, e.g. iOS 17 in 2024 is `2007`; `nil` for no version.
    let versionBaseYear: Int?
    let minVersion: Int
    /// Version strings per year, precomputed so samples share them.
    private let versions: [String]
    private static let firstYear = 1990

    init(sourceName: String, bundleId: String, deviceName: String?, deviceModel: String?, versionBaseYear: Int?, minVersion: Int) {
        self.sourceName = sourceName
        self.bundleId = bundleId
        self.deviceName = deviceName
        self.deviceModel = deviceModel
        self.versionBaseYear = versionBaseYear
        self.minVersion = minVersion
        if let base = versionBaseYear {
            versions = (Self.firstYear...2200).map { "\(max(minVersion, $0 - base)).0" }
        } else {
            versions = []
        }
    }

    /// The iPhone of a seed: `com.apple.health.<uuid from the seed>`, model iPhone14,5.
    static func iPhone(seed: UInt64) -> DeviceSource {
        var rng = Xoshiro256StarStar(seed: SplitMix64.hash(seed, 0xD3_71CE, 0))
        return DeviceSource(sourceName: "iPhone", bundleId: "com.apple.health.\(rng.uuid().uuidString)",
                            deviceName: "iPhone", deviceModel: "iPhone14,5", versionBaseYear: 2007, minVersion: 9)
    }

    /// The Apple Watch of a seed: `com.apple.health.<uuid from the seed>`, model Watch6,2.
    static func watch(seed: UInt64) -> DeviceSource {
        var rng = Xoshiro256StarStar(seed: SplitMix64.hash(seed, 0xD3_71CE, 1))
        return DeviceSource(sourceName: "Apple Watch", bundleId: "com.apple.health.\(rng.uuid().uuidString)",
                            deviceName: "Apple Watch", deviceModel: "Watch6,2", versionBaseYear: 2014, minVersion: 2)
    }

    /// Entries typed into the Health app.
    static let manual = DeviceSource(sourceName: "Health", bundleId: "com.apple.Health", deviceName: nil,
                                     deviceModel: nil, versionBaseYear: nil, minVersion: 0)

    @inline(__always)
    func sample(uuid: UUID, startMs: Int64, endMs: Int64, offset: Int32, steps: Int, year: Int) -> HealthSample {
        let index = year - Self.firstYear
        return HealthSample(
            uuid: uuid, type: .stepCount, startMs: startMs, endMs: endMs, utcOffsetSeconds: offset,
            value: Double(steps), unit: "count", sourceName: sourceName, sourceBundleId: bundleId,
            sourceVersion: versions.indices.contains(index) ? versions[index] : nil,
            deviceName: deviceName, deviceModel: deviceModel)
    }

    /// A sample of any type from this source, its version that of `year`.
    func sample(_ type: GeneratedType, uuid: UUID, startMs: Int64, endMs: Int64, value: Double, year: Int,
                details: String? = nil) -> HealthSample {
        let index = year - Self.firstYear
        return HealthSample(
            uuid: uuid, type: type.sampleType, startMs: startMs, endMs: endMs,
            utcOffsetSeconds: EuropeBerlinTime.utcOffsetSeconds(atMs: startMs), value: value, unit: type.unit,
            sourceName: sourceName, sourceBundleId: bundleId,
            sourceVersion: versions.indices.contains(index) ? versions[index] : nil,
            deviceName: deviceName, deviceModel: deviceModel, details: details)
    }
}
