import Foundation
import StepSyncCore

/// Random but reproducible samples for store tests.
enum StoreTestData {
    static let origin: Int64 = 1_600_000_000_000  // 2020-09-13

    /// `count` step samples spread over `spanMs` from `origin`, some sharing a start millisecond, some on exact
    /// hour boundaries, from two sources.
    static func samples(count: Int, spanMs: Int64 = 30 * Milliseconds.day, seed: UInt64) -> [HealthSample] {
        var rng = SplitMix64(seed: seed)
        var out: [HealthSample] = []
        var previousStart = origin
        for i in 0..<count {
            let start: Int64
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: start = previousStart  // same millisecond as the previous one
            case 1: start = origin + Int64.random(in: 0..<(spanMs / Milliseconds.hour), using: &rng) * Milliseconds.hour
            default: start = origin + Int64.random(in: 0..<spanMs, using: &rng)
            }
            previousStart = start
            let watch = i % 3 == 0
            out.append(HealthSample(
                uuid: UUID(uuid: uuidBytes(&rng)),
                type: .stepCount,
                startMs: start,
                endMs: start + Int64.random(in: 0...600_000, using: &rng),
                utcOffsetSeconds: 3600,
                value: Double(Int.random(in: 0...2_000, using: &rng)),
                unit: "count",
                sourceName: watch ? "Apple Watch" : "iPhone",
                sourceBundleId: watch ? "com.apple.health.watch" : "com.apple.health.phone",
                deviceName: watch ? "Apple Watch" : nil,
                deviceModel: watch ? "Watch6,2" : nil))
        }
        return out
    }

    /// `count` samples of `type` spread over `spanMs` from `origin` with values that mean something for its kind:
    /// heart rates 50–180, distances in eighths of a km (exact sums), sleep codes 0–5 over 1–3 h, workouts of
    /// 20–90 min; some share a start millisecond.
    static func samples(of type: SampleType, count: Int, spanMs: Int64 = 30 * Milliseconds.day, seed: UInt64) -> [HealthSample] {
        var rng = SplitMix64(seed: seed)
        var previous = origin
        return (0..<count).map { _ in
            let start = Int.random(in: 0..<10, using: &rng) == 0 ? previous : origin + Int64.random(in: 0..<spanMs, using: &rng)
            previous = start
            let (value, unit, length): (Double, String, Int64) = switch type.kind {
            case .cumulative: (Double(Int.random(in: 0...40, using: &rng)) / 8, "km", 60_000)
            case .discrete: (Double(Int.random(in: 50...180, using: &rng)), "count/min", 0)
            case .category: (Double(Int.random(in: 0...5, using: &rng)), "", Int64.random(in: 1...3, using: &rng) * Milliseconds.hour)
            case .workout:
                (Double(Int.random(in: 20...90, using: &rng) * 60), "s", Int64.random(in: 20...90, using: &rng) * Milliseconds.minute)
            case .series: (Double(Int.random(in: 1...600, using: &rng)), "count", Int64.random(in: 1...600, using: &rng) * 1000)
            }
            return HealthSample(uuid: UUID(uuid: uuidBytes(&rng)), type: type, startMs: start, endMs: start + length,
                                utcOffsetSeconds: 3600, value: value, unit: unit, sourceName: "Apple Watch",
                                sourceBundleId: "com.apple.health.watch", deviceName: "Apple Watch")
        }
    }

    static func uuidBytes(_ rng: inout SplitMix64) -> uuid_t {
        let a = rng.next(), b = rng.next()
        return (UInt8(truncatingIfNeeded: a), UInt8(truncatingIfNeeded: a >> 8), UInt8(truncatingIfNeeded: a >> 16),
                UInt8(truncatingIfNeeded: a >> 24), UInt8(truncatingIfNeeded: a >> 32), UInt8(truncatingIfNeeded: a >> 40),
                UInt8(truncatingIfNeeded: a >> 48) & 0x0F | 0x40, UInt8(truncatingIfNeeded: a >> 56),
                UInt8(truncatingIfNeeded: b) & 0x3F | 0x80, UInt8(truncatingIfNeeded: b >> 8), UInt8(truncatingIfNeeded: b >> 16),
                UInt8(truncatingIfNeeded: b >> 24), UInt8(truncatingIfNeeded: b >> 32), UInt8(truncatingIfNeeded: b >> 40),
                UInt8(truncatingIfNeeded: b >> 48), UInt8(truncatingIfNeeded: b >> 56))
    }
}
