import Foundation
import Testing
@testable import StepSyncCore

/// The step histories the benchmarks and `stepsync demo --types steps` are measured on must never change: their
/// counts, sums and a digest of every field of every sample, measured on main's generator (commit f62db06, before
/// other types existed) on 2026-11-23, are pinned here.
@Suite("SampleGenerator: the step histories stay bit for bit")
struct GeneratorPinTests {
    struct Pinned: Sendable, CustomTestStringConvertible {
        var profile: GeneratorProfile
        var end: CivilDate
        var samples: Int
        var steps: Int64
        var digest: UInt64
        var testDescription: String { "\(profile.rawValue), seed 42, ten years ending \(end)" }
    }

    static let pinned: [Pinned] = [
        // The benchmarks' decade.
        Pinned(profile: .realistic, end: CivilDate(year: 2025, month: 6, day: 30), samples: 623_645, steps: 52_526_375,
               digest: 0x0B4F_0F38_D1CD_87C5),
        // Issue 14's decade: `stepsync demo --types steps` on 2026-11-23.
        Pinned(profile: .realistic, end: CivilDate(year: 2026, month: 11, day: 23), samples: 624_752, steps: 52_444_019,
               digest: 0x62D5_0ADB_9138_E6D7),
        Pinned(profile: .seed, end: CivilDate(year: 2025, month: 6, day: 30), samples: 43_446, steps: 18_680_745,
               digest: 0xA06C_2CA1_9DF9_3B30),
    ]

    @Test("--types steps (the default) gives today's step history: same count, sum and every field of every sample, in order",
          arguments: pinned)
    func stepsBitForBit(_ pin: Pinned) {
        var digest = SampleDigest()
        var samples = 0
        var steps = 0.0
        for day in SampleGenerator(profile: pin.profile, seed: 42, years: 10, end: pin.end) {
            for sample in day {
                samples += 1
                steps += sample.value
                digest.add(sample)
            }
        }
        #expect(samples == pin.samples)
        #expect(Int64(steps) == pin.steps)
        #expect(digest.value == pin.digest, "digest 0x\(String(digest.value, radix: 16))")
    }

    @Test("Asking for every type leaves the step samples of a day as they were (same set)")
    func stepsUnchangedAmongAllTypes() {
        let days = CivilDate(year: 2024, month: 3, day: 28)...CivilDate(year: 2024, month: 4, day: 2)
        let alone = Array(SampleGenerator(profile: .realistic, seed: 42, days: days))
        let all = Array(SampleGenerator(profile: .realistic, seed: 42, days: days, types: Set(GeneratedType.allCases)))
        #expect(alone.count == all.count)
        for (a, b) in zip(alone, all) {
            #expect(Set(a) == Set(b.filter { $0.type == .stepCount }))
            #expect(!a.isEmpty)
        }
    }
}

/// An order-dependent digest of every field of a sequence of samples (SplitMix64 over the fields, FNV-1a over the
/// strings), the one the pinned values were measured with.
struct SampleDigest {
    private(set) var value: UInt64 = 0
    private var strings: [String: UInt64] = [:]

    private static func fnv(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return h
    }

    private mutating func hash(_ text: String?) -> UInt64 {
        guard let text else { return 0xFFFF }
        if let known = strings[text] { return known }
        let h = Self.fnv(text)
        if strings.count < 10_000 { strings[text] = h }
        return h
    }

    private mutating func mix(_ x: UInt64) { value = SplitMix64.mix(value ^ x) }

    mutating func add(_ s: HealthSample) {
        let hi = withUnsafeBytes(of: s.uuid.uuid) { raw in raw.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        let lo = withUnsafeBytes(of: s.uuid.uuid) { raw in raw.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        mix(hi)
        mix(lo)
        mix(UInt64(bitPattern: s.startMs))
        mix(UInt64(bitPattern: s.endMs))
        mix(UInt64(bitPattern: Int64(s.utcOffsetSeconds ?? 99_999)))
        mix(s.value.bitPattern)
        mix(hash(s.type.rawValue))
        mix(hash(s.unit))
        mix(hash(s.sourceName))
        mix(hash(s.sourceBundleId))
        mix(hash(s.sourceVersion))
        mix(hash(s.deviceName))
        mix(hash(s.deviceModel))
        mix(hash(s.details))
    }
}
