import Foundation

/// One log's samples in (start, uuid) order — the order of every page and export, as on PostgreSQL and in the CLI —
/// beside its slots, which are in arrival (file) order.
///
/// Made on a log's first page and brought up to date before each later one: the slots made readable since are
/// sorted and merged in (linear in the log; appended as they are when they all start after the last, as a sync in
/// start order sends them), and deleted slots are dropped at a merge (a page skips them meanwhile). The uuids come
/// from the ``UUIDIndex`` (``UUIDIndex/forEach(inLog:_:)``), never from the file. 24 bytes a sample, only for the
/// types somebody paged.
final class StartOrder {
    /// A sample: its uuid's 16 bytes as two big-endian halves (comparing them compares the bytes, PostgreSQL's uuid
    /// order) and its slot.
    struct Entry: BitwiseCopyable {
        var hi: UInt64
        var lo: UInt64
        var slot: UInt32

        init(uuid: UUID, slot: UInt32) {
            (hi, lo) = withUnsafeBytes(of: uuid.uuid) {
                (UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                 UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
            }
            self.slot = slot
        }
    }

    /// The samples in order (deleted ones possibly among them until the next merge).
    private(set) var entries = PageBuffer<Entry>()
    /// The log's slots `0..<covered` are in `entries` (unless deleted).
    private(set) var covered = 0
    /// The slot table the entries point into (a `clear` or a reload gives the log a new one).
    private var slots: PageBuffer<TypeLog.Slot>?

    init() {}

    /// The bytes the entries take.
    var byteCount: Int { entries.byteCount }

    /// Brings the order up to `log.readable`: the samples of the slots made readable since the last call, sorted and
    /// merged in. `number` is the log's number in `index`.
    func update(_ log: TypeLog, number: UInt16, index: UUIDIndex) {
        if slots !== log.slots || covered > log.readable {
            entries = PageBuffer()
            covered = 0
            slots = log.slots
        }
        guard covered < log.readable else { return }
        let first = covered, end = log.readable
        let table = log.slots
        var fresh: [Entry] = []
        fresh.reserveCapacity(end - first)
        index.forEach(inLog: number) { uuid, slot in
            if Int(slot) >= first && Int(slot) < end && !table[Int(slot)].isDeleted {
                fresh.append(Entry(uuid: uuid, slot: slot))
            }
        }
        fresh.sort { Self.precedes($0, $1, table) }
        covered = end
        guard let head = fresh.first else { return }
        if entries.count == 0 || !Self.precedes(head, entries[entries.count - 1], table) {
            for entry in fresh { entries.append(entry) }
            return
        }
        let merged = PageBuffer<Entry>()
        merged.reserve(entries.count + fresh.count)
        var k = 0
        entries.withElements { old in
            for entry in old where !table[Int(entry.slot)].isDeleted {
                while k < fresh.count, Self.precedes(fresh[k], entry, table) {
                    merged.append(fresh[k])
                    k += 1
                }
                merged.append(entry)
            }
        }
        while k < fresh.count {
            merged.append(fresh[k])
            k += 1
        }
        entries = merged
    }

    /// The first position whose sample comes after `cursor` (all when nil) and starts at or after `lower`.
    func firstPosition(after cursor: StartCursor?, startingAtOrAfter lower: Int64) -> Int {
        guard let table = slots else { return 0 }
        var low = 0, high = entries.count
        let key = cursor.map { Entry(uuid: $0.uuid, slot: 0) }
        while low < high {
            let mid = (low + high) / 2
            let entry = entries[mid]
            let start = table[Int(entry.slot)].startMs
            let isBefore: Bool
            if start < lower {
                isBefore = true
            } else if let cursor, let key {
                isBefore = start < cursor.startMs
                    || (start == cursor.startMs && (entry.hi < key.hi || (entry.hi == key.hi && entry.lo <= key.lo)))
            } else {
                isBefore = false
            }
            if isBefore { low = mid + 1 } else { high = mid }
        }
        return low
    }

    @inline(__always)
    private static func precedes(_ a: Entry, _ b: Entry, _ table: PageBuffer<TypeLog.Slot>) -> Bool {
        let sa = table[Int(a.slot)].startMs, sb = table[Int(b.slot)].startMs
        if sa != sb { return sa < sb }
        return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo)
    }
}
