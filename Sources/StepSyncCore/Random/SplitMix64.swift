/// SplitMix64 (Steele, Lea, Flood 2014): a tiny seedable generator, used to expand one 64-bit seed into the state
/// of ``Xoshiro256StarStar`` and to hash (seed, salt, index) triples into independent streams.
///
/// The output for a given seed is fixed forever, unlike Swift's `SystemRandomNumberGenerator`.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator from a seed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// The SplitMix64 finaliser: a bijective 64-bit mix.
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A well-mixed 64-bit value for `(seed, salt, index)`: the seed of an independent stream, e.g. one per day.
    public static func hash(_ seed: UInt64, _ salt: UInt64, _ index: Int) -> UInt64 {
        mix(mix(seed &+ salt &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(bitPattern: Int64(index)) &* 0xD1B5_4A32_D192_ED03)
    }
}
