import Foundation

/// A set of uuids for the bulk load (``SampleInserter``): open addressing with linear probing over two `UInt64`
/// words a slot, at most half full, growing by doubling. 16 bytes a slot, so 500k uuids take 16 MB; a
/// `Set<UUID>` takes about three times that and hashes each uuid with SipHash.
///
/// The all-zero uuid marks an empty slot, so it is kept apart in ``containsZero``. A class: the inserter (a struct)
/// holds one and the table is never copied.
final class UUIDSet {
    private var slots: UnsafeMutablePointer<UInt64>
    /// Slots (a power of two); each is two words.
    private var capacity: Int
    /// Uuids held (the zero uuid included).
    private(set) var count = 0
    private var containsZero = false

    /// Creates an empty set with room for `expected` uuids before it grows.
    init(expected: Int = 1 << 14) {
        var capacity = 16
        while capacity < expected * 2 { capacity <<= 1 }
        self.capacity = capacity
        slots = Self.allocate(capacity)
    }

    deinit {
        free(slots)
    }

    /// Bytes the table holds now.
    var bytes: Int { capacity * 16 }

    /// Inserts `uuid`; returns false when it was there already.
    func insert(_ uuid: UUID) -> Bool {
        let (hi, lo) = Self.words(uuid)
        if hi == 0, lo == 0 {
            defer { containsZero = true }
            if containsZero { return false }
            count += 1
            return true
        }
        if (count + 1) * 2 > capacity { grow() }
        let mask = capacity - 1
        var i = Self.hash(hi, lo) & mask
        while true {
            let a = slots[2 * i], b = slots[2 * i + 1]
            if a == 0, b == 0 {
                slots[2 * i] = hi
                slots[2 * i + 1] = lo
                count += 1
                return true
            }
            if a == hi, b == lo { return false }
            i = (i + 1) & mask
        }
    }

    /// What ``warm(_:)`` read, kept so that its loads are not optimised away.
    private var warmed: UInt64 = 0

    /// Reads the first slot each of `uuids` would probe, so that the ``insert(_:)``s that follow find them in the
    /// cache: the loads are independent, so the core has many cache misses in flight at once, where one insert after
    /// another waits for each miss in turn (the table is 16 MB of random slots). Changes nothing in the set.
    func warm(_ uuids: some Sequence<UUID>) {
        let mask = capacity - 1
        var seen: UInt64 = 0
        for uuid in uuids {
            let (hi, lo) = Self.words(uuid)
            seen ^= slots[2 * (Self.hash(hi, lo) & mask)]
        }
        warmed ^= seen
    }

    /// Whether `uuid` is in the set.
    func contains(_ uuid: UUID) -> Bool {
        let (hi, lo) = Self.words(uuid)
        if hi == 0, lo == 0 { return containsZero }
        let mask = capacity - 1
        var i = Self.hash(hi, lo) & mask
        while true {
            let a = slots[2 * i], b = slots[2 * i + 1]
            if a == 0, b == 0 { return false }
            if a == hi, b == lo { return true }
            i = (i + 1) & mask
        }
    }

    private func grow() {
        let old = slots, oldCapacity = capacity
        capacity *= 2
        slots = Self.allocate(capacity)
        let mask = capacity - 1
        for j in 0..<oldCapacity {
            let hi = old[2 * j], lo = old[2 * j + 1]
            if hi == 0, lo == 0 { continue }
            var i = Self.hash(hi, lo) & mask
            while slots[2 * i] != 0 || slots[2 * i + 1] != 0 { i = (i + 1) & mask }
            slots[2 * i] = hi
            slots[2 * i + 1] = lo
        }
        free(old)
    }

    /// Zeroed memory, written rather than only mapped, in huge pages when the table spans one.
    ///
    /// `calloc`'s fresh pages were mapped to the kernel's zero page on the first probe (a read) and copied on the
    /// first insert into them (a write), and every such copy flushed the TLB of both cores (an inter-processor
    /// interrupt): 4 % of the writer's time while an export was read. Written zeros fault each page in once. A table
    /// of 16 MB in 4 KiB pages also missed the TLB on nearly every probe; in 2 MiB pages (`MADV_HUGEPAGE`: the
    /// kernel's transparent huge pages are usually enabled "on madvise") it spans 8 entries. Figures:
    /// `Planning/import.md`.
    private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<UInt64> {
        let bytes = capacity * 2 * MemoryLayout<UInt64>.stride
        let hugePage = 2 << 20
        var raw: UnsafeMutableRawPointer?
        if bytes >= hugePage {
            guard posix_memalign(&raw, hugePage, bytes) == 0 else { fatalError("UUIDSet: out of memory") }
            #if os(Linux)
            _ = madvise(raw, bytes, MADV_HUGEPAGE)
            #endif
        } else {
            raw = malloc(bytes)
        }
        guard let raw else { fatalError("UUIDSet: out of memory") }
        memset(raw, 0, bytes)
        return raw.assumingMemoryBound(to: UInt64.self)
    }

    @inline(__always)
    private static func words(_ uuid: UUID) -> (UInt64, UInt64) {
        withUnsafeBytes(of: uuid.uuid) { ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                                         $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
    }

    /// Derived uuids are SHA-1 output, but the store takes any uuid: mix both words (a multiply-xorshift).
    @inline(__always)
    private static func hash(_ hi: UInt64, _ lo: UInt64) -> Int {
        var x = hi &* 0x9E37_79B9_7F4A_7C15 ^ lo
        x ^= x >> 32
        x = x &* 0xD6E8_FEB8_6659_FD93
        x ^= x >> 32
        return Int(truncatingIfNeeded: x)
    }
}
