import Foundation

/// An order-independent fingerprint of a multiset of uuids — how many, and two 64-bit sums of independent mixes of
/// each — so two sides holding millions of samples can be compared in constant memory (`stepsync demo` checks that the
/// sink holds exactly the store's uuids of each type this way).
///
/// Equal sets always give equal digests, whatever the order they are added in. Different ones give different digests
/// except with a probability of about 2⁻¹²⁸ for uuids not chosen to collide: a missing uuid, an extra one, one held
/// twice, or one swapped for another changes both sums (SplitMix64's finaliser is a bijection, so no single uuid mixes
/// to zero change).
///
/// ```swift
/// var store = UUIDSetDigest(), sink = UUIDSetDigest()
/// for s in storeSamples { store.add(s.uuid) }
/// for s in sinkSamples { sink.add(s.uuid) }
/// let exact = store == sink
/// ```
public struct UUIDSetDigest: Hashable, Sendable {
    /// How many uuids were added.
    public private(set) var count = 0
    private var sumA: UInt64 = 0
    private var sumB: UInt64 = 0

    /// An empty digest.
    public init() {}

    /// Adds one uuid.
    @inline(__always)
    public mutating func add(_ uuid: UUID) {
        let (hi, lo) = withUnsafeBytes(of: uuid.uuid) { raw in
            (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        count += 1
        sumA &+= SplitMix64.mix(hi ^ SplitMix64.mix(lo))
        sumB &+= SplitMix64.mix((lo &+ 0x9E37_79B9_7F4A_7C15) ^ SplitMix64.mix(hi &+ 0xD1B5_4A32_D192_ED03))
    }

    /// Adds the uuids of `samples`.
    public mutating func add(_ samples: some Sequence<HealthSample>) {
        for sample in samples { add(sample.uuid) }
    }
}
