import Foundation

/// The JSONL sink's uuid index: which file and line hold each live uuid, in ≈ 25 bytes a uuid however many there are.
///
/// **Shape.** Two parts, as in a log-structured merge tree of two levels:
/// - a **sorted run**: every uuid as a 24-byte entry (the key's two `UInt64`s, the slot, the log) in key order, in
///   one ``PageBuffer`` — no empty buckets, so 24 bytes a uuid, plus a directory of one `UInt32` per ≈ 2 entries
///   (the first entry of each range of the key's top bits) so a lookup is one directory read and a scan of ≈ 2
///   adjacent entries;
/// - a **recent table**: an open-addressing hash table (linear probing, backward-shift deletion) of the uuids
///   inserted since the last merge: ⅛ of the run's size (at least 4,096) rounded up to a power of two, at most ¾
///   full, allocated at each merge so it never grows.
///
/// When the recent table is full its entries are sorted and merged into the run from the back, in place (the run's
/// buffer grows with `mremap`: no second copy of the run, ever). A uuid removed from the run is marked (its log
/// set to ``empty``) and dropped at the next merge. Each uuid is moved ≈ 9 times over the run's growth (⅛ a merge);
/// in exchange the index holds 2.3 M uuids in ≈ 60 MB where the former hash table alone (32–64 bytes a uuid,
/// doubling past ¾ full) took 100 MB and, while doubling, 150 MB. Figures in `Planning/sink.md`.
///
/// **Keys.** A uuid's 16 bytes are mixed by a two-round Feistel network (a bijection, so two keys are equal exactly
/// when their uuids are) so that keys are spread evenly over the directory even when uuids share their first bytes.
struct UUIDIndex {
    /// Where a uuid is stored.
    struct Location: Equatable {
        /// The log (file) number.
        var log: UInt16
        /// The line's slot in that log.
        var slot: UInt32
    }

    /// One entry: the mixed key's two halves, its slot and its log (``empty``: a free bucket or a removed entry).
    fileprivate struct Entry: BitwiseCopyable {
        var k0: UInt64 = 0
        var k1: UInt64 = 0
        var slot: UInt32 = 0
        var log: UInt16 = UUIDIndex.empty

        @inline(__always)
        func precedes(_ other: Entry) -> Bool { k0 < other.k0 || (k0 == other.k0 && k1 < other.k1) }
    }

    /// The log number that marks an empty bucket or a removed entry (so logs are numbered below it).
    static let empty = UInt16.max
    /// The fewest entries the recent table takes before a merge.
    static let minimumRecent = 4_096

    /// The sorted run (removed entries included, marked).
    private var run = PageBuffer<Entry>()
    /// Marked (removed) entries in the run.
    private var removedInRun = 0
    /// Per range of the key's top `directoryBits` bits, the first entry of the run in it; one more at the end.
    private var directory: [UInt32] = [0, 0]
    private var directoryBits = 0
    /// The recent table.
    private var recent: [Entry] = []
    private var recentMask = 0
    /// A key's home bucket is its top bits (`k0 >> recentShift`): the table is then in key order but for its
    /// clusters, so a merge's sort finds it nearly sorted.
    private var recentShift: UInt64 = 63
    private var recentCount = 0
    /// The recent table's most entries (¾ of its buckets at most; 0 until the first insert).
    private var recentLimit = 0
    /// The number of uuids held.
    private(set) var count = 0

    /// An index expecting about `capacity` uuids (it reserves address space for the run; pages are taken as used).
    /// Nothing else is allocated before the first insert.
    init(capacity: Int = 0) {
        if capacity > 0 { run.reserve(capacity) }
    }

    // MARK: - Keys

    @inline(__always)
    private static func mix(_ x: UInt64) -> UInt64 {
        var h = x ^ (x >> 33)
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h = h &* 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 33)
    }

    @inline(__always)
    private static func key(_ uuid: UUID) -> (UInt64, UInt64) {
        let (hi, lo) = withUnsafeBytes(of: uuid.uuid) {
            ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        let k1 = lo ^ mix(hi)
        return (hi ^ mix(k1 ^ 0x9E37_79B9_7F4A_7C15), k1)
    }

    // MARK: - Lookups

    /// Where `uuid` is stored, or `nil`.
    func location(of uuid: UUID) -> Location? {
        let (k0, k1) = Self.key(uuid)
        if let b = findRecent(k0, k1) {
            return recent.withUnsafeBufferPointer { Location(log: $0[b].log, slot: $0[b].slot) }
        }
        guard let i = findInRun(k0, k1) else { return nil }
        let entry = run[i]
        return entry.log == Self.empty ? nil : Location(log: entry.log, slot: entry.slot)
    }

    /// Calls `body` with every uuid held in `log` and its slot, in no particular order (the keys are turned back
    /// into uuids: the mixing is a bijection).
    func forEach(inLog log: UInt16, _ body: (UUID, UInt32) -> Void) {
        run.withElements { entries in
            for entry in entries where entry.log == log { body(Self.uuid(entry.k0, entry.k1), entry.slot) }
        }
        guard recentCount > 0 else { return }
        for entry in recent where entry.log == log { body(Self.uuid(entry.k0, entry.k1), entry.slot) }
    }

    /// The uuid whose key is `(k0, k1)`: ``key(_:)`` undone.
    private static func uuid(_ k0: UInt64, _ k1: UInt64) -> UUID {
        let hi = k0 ^ mix(k1 ^ 0x9E37_79B9_7F4A_7C15)
        let lo = k1 ^ mix(hi)
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) {
            $0.storeBytes(of: hi, toByteOffset: 0, as: UInt64.self)
            $0.storeBytes(of: lo, toByteOffset: 8, as: UInt64.self)
        }
        return UUID(uuid: bytes)
    }

    /// Whether `uuid` is held.
    func contains(_ uuid: UUID) -> Bool { location(of: uuid) != nil }

    /// The recent bucket holding the key, or nil.
    @inline(__always)
    private func findRecent(_ k0: UInt64, _ k1: UInt64) -> Int? {
        guard recentCount > 0 else { return nil }
        let mask = recentMask, shift = recentShift
        return recent.withUnsafeBufferPointer { table -> Int? in
            var b = Int(truncatingIfNeeded: k0 >> shift)
            while true {
                let entry = table[b]
                if entry.log == Self.empty { return nil }
                if entry.k0 == k0, entry.k1 == k1 { return b }
                b = (b + 1) & mask
            }
        }
    }

    /// The run's entry with the key (live or marked), or nil: the directory names the ≈ 2 entries whose keys share
    /// the key's top bits, scanned in order.
    @inline(__always)
    private func findInRun(_ k0: UInt64, _ k1: UInt64) -> Int? {
        guard let entries = run.base else { return nil }
        let (low, high) = directory.withUnsafeBufferPointer { dir -> (Int, Int) in
            let d = directoryBits == 0 ? 0 : Int(k0 >> UInt64(64 - directoryBits))
            return (Int(dir[d]), Int(dir[d + 1]))
        }
        var i = low
        while i < high {
            let entry = entries[i]
            if entry.k0 == k0, entry.k1 == k1 { return i }
            if entry.k0 > k0 { return nil }
            i += 1
        }
        return nil
    }

    // MARK: - Changes

    /// Records `uuid` at `location` unless it is held; returns whether it was inserted.
    @discardableResult
    mutating func insert(_ uuid: UUID, at location: Location) -> Bool {
        let (k0, k1) = Self.key(uuid)
        if findRecent(k0, k1) != nil { return false }
        if let i = findInRun(k0, k1) {
            guard run[i].log == Self.empty else { return false }
            // Removed earlier: live again, in place.
            makeRunUnique()
            run[i].log = location.log
            run[i].slot = location.slot
            removedInRun -= 1
            count += 1
            return true
        }
        if recentCount >= recentLimit { merge() }
        insertRecent(Entry(k0: k0, k1: k1, slot: location.slot, log: location.log))
        count += 1
        return true
    }

    /// Kept for callers that size the index before a batch; the index never needs it (it grows as it goes).
    mutating func reserve(_ count: Int) {}

    /// Forgets `uuid`; returns where it was.
    @discardableResult
    mutating func remove(_ uuid: UUID) -> Location? {
        let (k0, k1) = Self.key(uuid)
        if let b = findRecent(k0, k1) {
            let location = recent.withUnsafeBufferPointer { Location(log: $0[b].log, slot: $0[b].slot) }
            removeRecent(at: b)
            count -= 1
            return location
        }
        guard let i = findInRun(k0, k1), run[i].log != Self.empty else { return nil }
        makeRunUnique()
        let location = Location(log: run[i].log, slot: run[i].slot)
        run[i].log = Self.empty
        removedInRun += 1
        count -= 1
        return location
    }

    /// Forgets every uuid stored in `log`.
    mutating func removeAll(inLog log: UInt16) {
        merge()
        makeRunUnique()
        var kept = 0
        run.withElements { entries in
            for i in entries.indices where entries[i].log != Self.empty && entries[i].log != log {
                entries[kept] = entries[i]
                kept += 1
            }
        }
        run.resize(to: kept)
        removedInRun = 0
        count = kept
        rebuildDirectory()
        makeRecent(for: kept)
    }

    // MARK: - Recent table

    private mutating func makeRecent(for runCount: Int) {
        let limit = max(Self.minimumRecent, runCount / 8)
        var buckets = 16
        while buckets * 3 < limit * 4 { buckets *= 2 }
        if recent.count == buckets {
            recent.withUnsafeMutableBufferPointer { table in
                for b in table.indices { table[b].log = Self.empty }
            }
        } else {
            recent = []  // freed before its successor is allocated
            recent = [Entry](repeating: Entry(), count: buckets)
        }
        recentMask = buckets - 1
        recentShift = UInt64(64 - buckets.trailingZeroBitCount)
        recentCount = 0
        recentLimit = buckets / 4 * 3
    }

    private mutating func insertRecent(_ entry: Entry) {
        let mask = recentMask, shift = recentShift
        recent.withUnsafeMutableBufferPointer { table in
            var b = Int(truncatingIfNeeded: entry.k0 >> shift)
            while table[b].log != Self.empty { b = (b + 1) & mask }
            table[b] = entry
        }
        recentCount += 1
    }

    private mutating func removeRecent(at bucket: Int) {
        let mask = recentMask, shift = recentShift
        recent.withUnsafeMutableBufferPointer { table in
            // Backward-shift deletion: pull later members of the cluster into the hole when their home allows it.
            var b = bucket
            var next = (b + 1) & mask
            while table[next].log != Self.empty {
                let h = Int(truncatingIfNeeded: table[next].k0 >> shift)
                // Move `next` into the hole `b` if its home is not in (b, next] cyclically.
                if (next > b && (h <= b || h > next)) || (next < b && (h <= b && h > next)) {
                    table[b] = table[next]
                    b = next
                }
                next = (next + 1) & mask
            }
            table[b].log = Self.empty
        }
        recentCount -= 1
    }

    // MARK: - Merging

    /// Moves the recent table's entries into the run (sorted, in place from the back) and drops marked entries.
    ///
    /// The recent entries are gathered and sorted at the front of the recent table itself, so a merge allocates
    /// nothing but the run's growth (which `mremap` makes without a copy).
    private mutating func merge() {
        makeRunUnique()
        let run = run
        if removedInRun > 0 {
            var kept = 0
            run.withElements { entries in
                for i in entries.indices where entries[i].log != Self.empty {
                    entries[kept] = entries[i]
                    kept += 1
                }
            }
            run.resize(to: kept)
            removedInRun = 0
        }
        let old = run.count
        run.reserve(old + recentCount)
        run.resize(to: old + recentCount)
        recent.withUnsafeMutableBufferPointer { table in
            var n = 0
            for b in table.indices where table[b].log != Self.empty {
                table[n] = table[b]
                n += 1
            }
            var fresh = UnsafeMutableBufferPointer(rebasing: table[0..<n])
            fresh.sort { $0.precedes($1) }
            run.withElements { entries in
                var i = old - 1, j = n - 1, w = old + n - 1
                while j >= 0 {
                    if i >= 0, fresh[j].precedes(entries[i]) {
                        entries[w] = entries[i]
                        i -= 1
                    } else {
                        entries[w] = fresh[j]
                        j -= 1
                    }
                    w -= 1
                }
            }
        }
        rebuildDirectory()
        makeRecent(for: run.count)
    }

    /// One directory range per ≈ 2 entries of the run (2 bytes a uuid: a lookup reads one directory word and,
    /// usually, one cache line of entries).
    private mutating func rebuildDirectory() {
        var bits = 0
        while bits < 32, (1 << (bits + 1)) * 2 <= run.count { bits += 1 }
        var directory = [UInt32](repeating: 0, count: (1 << bits) + 1)
        run.withElements { entries in
            directory.withUnsafeMutableBufferPointer { dir in
                var d = 0
                for i in entries.indices {
                    let top = bits == 0 ? 0 : Int(entries[i].k0 >> UInt64(64 - bits))
                    while d <= top {
                        dir[d] = UInt32(i)
                        d += 1
                    }
                }
                while d < dir.count {
                    dir[d] = UInt32(entries.count)
                    d += 1
                }
            }
        }
        self.directory = directory
        directoryBits = bits
    }

    private mutating func makeRunUnique() {
        if !isKnownUniquelyReferenced(&run) { run = run.copy() }
    }

    // MARK: - Accounting

    /// The bytes the index takes: the run's entries, its directory and the recent table (for `Planning/sink.md`'s
    /// memory figures and the test that holds it to ≈ 25 bytes a uuid).
    var byteCount: Int {
        run.byteCount + directory.count * MemoryLayout<UInt32>.stride + recent.count * MemoryLayout<Entry>.stride
    }
}
