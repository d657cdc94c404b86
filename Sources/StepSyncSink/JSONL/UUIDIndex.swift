import Foundation

/// The JSONL sink's uuid index: which file and line hold each live uuid, in 22 bytes a bucket.
///
/// An open-addressing hash table with linear probing and backward-shift deletion (no tombstones), keyed by the
/// uuid's 16 bytes as two `UInt64`s, with parallel arrays for the slot (line number in its file) and the log
/// (which file; ``empty`` marks a free bucket). It grows ×2 past ¾ full, so it holds a uuid in 29–59 bytes, against 27–53 for
/// `[UUID: Int32]` plus the hashing of `Hasher` (SipHash) on every probe; the multiply-xorshift mix here costs a few
/// instructions. Figures in `Planning/sink.md`.
struct UUIDIndex {
    /// Where a uuid is stored.
    struct Location: Equatable {
        /// The log (file) number.
        var log: UInt16
        /// The line's slot in that log.
        var slot: UInt32
    }

    private var keys: [UInt64] = [] // 2 per bucket: high, low
    private var slots: [UInt32] = []
    private var logs: [UInt16] = []
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

    private mutating func allocate(_ buckets: Int) {
        keys = [UInt64](repeating: 0, count: buckets * 2)
        slots = [UInt32](repeating: 0, count: buckets)
        logs = [UInt16](repeating: Self.empty, count: buckets)
        mask = buckets - 1
        count = 0
    }

    @inline(__always)
    private static func split(_ uuid: UUID) -> (UInt64, UInt64) {
        withUnsafeBytes(of: uuid.uuid) { ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                                          $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
    }

    @inline(__always)
    private func home(_ hi: UInt64, _ lo: UInt64) -> Int {
        var h = hi &* 0x9E37_79B9_7F4A_7C15 ^ lo
        h ^= h >> 32
        h = h &* 0xD6E8_FEB8_6659_FD93
        h ^= h >> 32
        return Int(truncatingIfNeeded: h) & mask
    }

    @inline(__always)
    private func find(_ hi: UInt64, _ lo: UInt64) -> (bucket: Int, found: Bool) {
        var b = home(hi, lo)
        while logs[b] != Self.empty {
            if keys[2 * b] == hi, keys[2 * b + 1] == lo { return (b, true) }
            b = (b + 1) & mask
        }
        return (b, false)
    }

    /// Where `uuid` is stored, or `nil`.
    func location(of uuid: UUID) -> Location? {
        let (hi, lo) = Self.split(uuid)
        let (b, found) = find(hi, lo)
        return found ? Location(log: logs[b], slot: slots[b]) : nil
    }

    /// Whether `uuid` is held.
    func contains(_ uuid: UUID) -> Bool { location(of: uuid) != nil }

    /// Records `uuid` at `location` unless it is held; returns whether it was inserted.
    @discardableResult
    mutating func insert(_ uuid: UUID, at location: Location) -> Bool {
        if (count + 1) * 4 > (mask + 1) * 3 { grow() }
        let (hi, lo) = Self.split(uuid)
        let (b, found) = find(hi, lo)
        if found { return false }
        keys[2 * b] = hi
        keys[2 * b + 1] = lo
        slots[b] = location.slot
        logs[b] = location.log
        count += 1
        return true
    }

    /// Grows the table now, if needed, so that `count` uuids fit without growing again.
    mutating func reserve(_ count: Int) {
        while count * 4 > (mask + 1) * 3 { grow() }
    }

    /// Forgets `uuid`; returns where it was.
    @discardableResult
    mutating func remove(_ uuid: UUID) -> Location? {
        let (hi, lo) = Self.split(uuid)
        var (b, found) = find(hi, lo)
        guard found else { return nil }
        let location = Location(log: logs[b], slot: slots[b])
        // Backward-shift deletion: pull later members of the cluster into the hole when their home allows it.
        var next = (b + 1) & mask
        while logs[next] != Self.empty {
            let h = home(keys[2 * next], keys[2 * next + 1])
            // Move `next` into the hole `b` if its home is not in (b, next] cyclically.
            if (next > b && (h <= b || h > next)) || (next < b && (h <= b && h > next)) {
                keys[2 * b] = keys[2 * next]
                keys[2 * b + 1] = keys[2 * next + 1]
                slots[b] = slots[next]
                logs[b] = logs[next]
                b = next
            }
            next = (next + 1) & mask
        }
        logs[b] = Self.empty
        count -= 1
        return location
    }

    /// Forgets every uuid stored in `log`.
    mutating func removeAll(inLog log: UInt16) {
        var kept: [(UInt64, UInt64, UInt32, UInt16)] = []
        for b in 0...mask where logs[b] != Self.empty && logs[b] != log {
            kept.append((keys[2 * b], keys[2 * b + 1], slots[b], logs[b]))
        }
        var buckets = 16
        while buckets * 3 / 4 < max(kept.count, 768) { buckets *= 2 }
        allocate(buckets)
        for (hi, lo, slot, l) in kept { insertFresh(hi, lo, slot, l) }
    }

    private mutating func grow() {
        let oldKeys = keys, oldSlots = slots, oldLogs = logs
        allocate((mask + 1) * 2)
        for b in 0..<oldLogs.count where oldLogs[b] != Self.empty {
            insertFresh(oldKeys[2 * b], oldKeys[2 * b + 1], oldSlots[b], oldLogs[b])
        }
    }

    private mutating func insertFresh(_ hi: UInt64, _ lo: UInt64, _ slot: UInt32, _ log: UInt16) {
        var b = home(hi, lo)
        while logs[b] != Self.empty { b = (b + 1) & mask }
        keys[2 * b] = hi
        keys[2 * b + 1] = lo
        slots[b] = slot
        logs[b] = log
        count += 1
    }

    /// The bytes the table's arrays take (for `Planning/sink.md`'s memory figures).
    var byteCount: Int { (mask + 1) * (16 + 4 + 2) }
}
