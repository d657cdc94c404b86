import Foundation

/// xoshiro256** (Blackman, Vigna 2018): a fast seedable generator whose output for a given seed is fixed forever.
///
/// The helpers here (``int(_:)``, ``unit()``, ``chance(_:)``) are defined on its raw bits rather than through the
/// standard library's `random(in:using:)`, whose algorithm is not promised to stay the same across Swift releases;
/// the generator's output must not change when the toolchain does.
public struct Xoshiro256StarStar: RandomNumberGenerator, Sendable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// Creates a generator whose state is expanded from `seed` with ``SplitMix64``.
    public init(seed: UInt64) {
        var mixer = SplitMix64(seed: seed)
        s0 = mixer.next()
        s1 = mixer.next()
        s2 = mixer.next()
        s3 = mixer.next()
    }

    /// The next 64 random bits.
    @inline(__always)
    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// A uniform integer in `range` (multiply-shift; the bias is below 2⁻³² for the small ranges used here).
    @inline(__always)
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next().multipliedFullWidth(by: width).high)
    }

    /// A uniform double in `[0, 1)`.
    @inline(__always)
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A uniform double in `[range.lowerBound, range.upperBound)`.
    @inline(__always)
    public mutating func double(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * unit()
    }

    /// `true` with probability `p`.
    @inline(__always)
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// A random version-4 UUID (RFC 9562 version and variant bits set) drawn from this generator.
    public mutating func uuid() -> UUID {
        let a = next()
        let b = next()
        let hi = (a & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let lo = (b & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return UUID(uuid: (
            UInt8(truncatingIfNeeded: hi >> 56), UInt8(truncatingIfNeeded: hi >> 48),
            UInt8(truncatingIfNeeded: hi >> 40), UInt8(truncatingIfNeeded: hi >> 32),
            UInt8(truncatingIfNeeded: hi >> 24), UInt8(truncatingIfNeeded: hi >> 16),
            UInt8(truncatingIfNeeded: hi >> 8), UInt8(truncatingIfNeeded: hi),
            UInt8(truncatingIfNeeded: lo >> 56), UInt8(truncatingIfNeeded: lo >> 48),
            UInt8(truncatingIfNeeded: lo >> 40), UInt8(truncatingIfNeeded: lo >> 32),
            UInt8(truncatingIfNeeded: lo >> 24), UInt8(truncatingIfNeeded: lo >> 16),
            UInt8(truncatingIfNeeded: lo >> 8), UInt8(truncatingIfNeeded: lo)))
    }
}
