import Foundation

/// The JSONL sink's uuid index: which file and line hold each live uuid, in 24 bytes a bucket.
///
/// An open-addressing hash table with linear probing and backward-shift deletion (no tombstones), keyed by the
/// uuid's 16 bytes as two `UInt64`s. A bucket holds the key, the slot (line number in its file) and the log (which
/// file; ``empty`` marks a free bucket) side by side, so a probe touches one cache line, not one in each of three
/// parallel arrays as before (that layout cost three cache misses per insert once the table outgrew the cache). It
/// grows ×2 past ¾ full, so it holds a uuid in 32–64 bytes, against 27–53 for `[UUID: Int32]` plus the hashing of
/// `Hasher` (SipHash) on every probe; the multiply-xorshift mix here costs a few instructions. Figures in
/// `Planning/sink.md`.
struct UUIDIndex {
    /// Where a uuid is stored.
    struct Location: Equatable {
        /// The log (file) number.
        var log: UInt16
        /// The line's slot in that log.
        var slot: UInt32
    }

    /// One bucket: the uuid's two halves, its slot and its log (``empty``: a free bucket).
    private struct Bucket {
        var hi: UInt64 = 0
        var lo: UInt64 = 0
        var slot: UInt32 = 0
        var log: UInt16 = UUIDIndex.empty
    }

    private var buckets: [Bucket] = []
    private var mask = 0
    /// The log number that marks an empty bucket (so logs are numbered below it).
    static let empty = UInt16.max
    /// The number of uuids held.
    private(set) var count = 0

    init(capacity: Int = 1024) {
        var buckets = 1
        while buckets * 3 < capacity * 4 || buckets < 16 { buckets *= 2 }
        allocate(buckets)
    }

    private mutating func allocate(_ count: Int) {
        buckets = [Bucket](repeating: Bucket(), count: count)
        mask = count - 1
        self.count = 0
    }

    @inline(__always)
    private static func split(_ uuid: UUID) -> (UInt64, UInt64) {
        withUnsafeBytes(of: uuid.uuid) { ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                                          $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
    }

    @inline(__always)
    private static func home(_ hi: UInt64, _ lo: UInt64, _ mask: Int) -> Int {
        var h = hi &* 0x9E37_79B9_7F4A_7C15 ^ lo
        h ^= h >> 32
        h = h &* 0xD6E8_FEB8_6659_FD93
        h ^= h >> 32
        return Int(truncatingIfNeeded: h) & mask
    }

    /// The bucket holding (`hi`, `lo`), or the free bucket where it would go.
    @inline(__always)
    private static func find(_ hi: UInt64, _ lo: UInt64, in table: UnsafeBufferPointer<Bucket>, mask: Int)
        -> (bucket: Int, found: Bool)
    {
        var b = home(hi, lo, mask)
        while true {
            let bucket = table[b]
            if bucket.log == empty { return (b, false) }
            if bucket.hi == hi, bucket.lo == lo { return (b, true) }
            b = (b + 1) & mask
        }
    }

    /// Where `uuid` is stored, or `nil`.
    func location(of uuid: UUID) -> Location? {
        let (hi, lo) = Self.split(uuid)
        let mask = mask
        return buckets.withUnsafeBufferPointer { table in
            let (b, found) = Self.find(hi, lo, in: table, mask: mask)
            return found ? Location(log: table[b].log, slot: table[b].slot) : nil
        }
    }

    /// Whether `uuid` is held.
    func contains(_ uuid: UUID) -> Bool { location(of: uuid) != nil }

    /// Records `uuid` at `location` unless it is held; returns whether it was inserted.
    @discardableResult
    mutating func insert(_ uuid: UUID, at location: Location) -> Bool {
        if (count + 1) * 4 > (mask + 1) * 3 { grow() }
        let (hi, lo) = Self.split(uuid)
        let mask = mask
        let inserted = buckets.withUnsafeMutableBufferPointer { table -> Bool in
            let (b, found) = Self.find(hi, lo, in: UnsafeBufferPointer(table), mask: mask)
            if found { return false }
            table[b] = Bucket(hi: hi, lo: lo, slot: location.slot, log: location.log)
            return true
        }
        if inserted { count += 1 }
        return inserted
    }

    /// Grows the table now, if needed, so that `count` uuids fit without growing again.
    mutating func reserve(_ count: Int) {
        while count * 4 > (mask + 1) * 3 { grow() }
    }

    /// Forgets `uuid`; returns where it was.
    @discardableResult
    mutating func remove(_ uuid: UUID) -> Location? {
        let (hi, lo) = Self.split(uuid)
        let mask = mask
        let location = buckets.withUnsafeMutableBufferPointer { table -> Location? in
            var (b, found) = Self.find(hi, lo, in: UnsafeBufferPointer(table), mask: mask)
            guard found else { return nil }
            let location = Location(log: table[b].log, slot: table[b].slot)
            // Backward-shift deletion: pull later members of the cluster into the hole when their home allows it.
            var next = (b + 1) & mask
            while table[next].log != Self.empty {
                let h = Self.home(table[next].hi, table[next].lo, mask)
                // Move `next` into the hole `b` if its home is not in (b, next] cyclically.
                if (next > b && (h <= b || h > next)) || (next < b && (h <= b && h > next)) {
                    table[b] = table[next]
                    b = next
                }
                next = (next + 1) & mask
            }
            table[b].log = Self.empty
            return location
        }
        if location != nil { count -= 1 }
        return location
    }

    /// Forgets every uuid stored in `log`.
    mutating func removeAll(inLog log: UInt16) {
        let kept = buckets.filter { $0.log != Self.empty && $0.log != log }
        var size = 16
        while size * 3 / 4 < max(kept.count, 768) { size *= 2 }
        allocate(size)
        for bucket in kept { insertFresh(bucket) }
    }

    private mutating func grow() {
        let old = buckets
        allocate((mask + 1) * 2)
        for bucket in old where bucket.log != Self.empty { insertFresh(bucket) }
    }

    private mutating func insertFresh(_ bucket: Bucket) {
        let mask = mask
        buckets.withUnsafeMutableBufferPointer { table in
            var b = Self.home(bucket.hi, bucket.lo, mask)
            while table[b].log != Self.empty { b = (b + 1) & mask }
            table[b] = bucket
        }
        count += 1
    }

    /// The bytes the table takes (for `Planning/sink.md`'s memory figures).
    var byteCount: Int { (mask + 1) * MemoryLayout<Bucket>.stride }
}
