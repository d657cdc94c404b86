import Foundation
import StepSyncCore
import Testing
@testable import StepSyncSink

@Suite("UUIDIndex")
struct UUIDIndexTests {
    /// A uuid from the generator; `clustered` uuids differ only in their last bytes (like the tests' `uuid(i)`), which
    /// a weak hash would pile into one cluster.
    static func makeUUID(_ generator: inout SplitMix64, clustered: Bool) -> UUID {
        let a = generator.next(), b = generator.next()
        let hi: UInt64 = clustered ? 0x0000_0000_0000_4000 : a
        let lo: UInt64 = clustered ? 0x8000_0000_0000_0000 | (b & 0xFFFF) : b
        var bytes = (hi, lo)
        return withUnsafeBytes(of: &bytes) { raw in
            UUID(uuid: raw.load(as: uuid_t.self))
        }
    }

    @Test("random inserts and removals agree with a Dictionary, through growth and backward-shift deletion",
          arguments: [false, true])
    func agreesWithDictionary(clustered: Bool) {
        var generator = SplitMix64(seed: clustered ? 7 : 11)
        var index = UUIDIndex(capacity: 4)
        var reference: [UUID: UUIDIndex.Location] = [:]
        var pool: [UUID] = []
        for step in 0..<60_000 {
            let roll = generator.next() % 10
            if roll < 6 || pool.isEmpty {
                let uuid = roll == 0 && !pool.isEmpty ? pool[Int(generator.next() % UInt64(pool.count))]
                    : Self.makeUUID(&generator, clustered: clustered)
                let location = UUIDIndex.Location(log: UInt16(step % 7), slot: UInt32(step))
                let inserted = index.insert(uuid, at: location)
                #expect(inserted == (reference[uuid] == nil))
                if inserted { reference[uuid] = location; pool.append(uuid) }
            } else {
                let uuid = pool.remove(at: Int(generator.next() % UInt64(pool.count)))
                #expect(index.remove(uuid) == reference.removeValue(forKey: uuid))
                #expect(index.remove(uuid) == nil)
            }
        }
        #expect(index.count == reference.count)
        for (uuid, location) in reference { #expect(index.location(of: uuid) == location) }
        index.removeAll(inLog: 3)
        #expect(index.count == reference.values.filter { $0.log != 3 }.count)
        for (uuid, location) in reference { #expect(index.location(of: uuid) == (location.log == 3 ? nil : location)) }
    }

    @Test("a million uuids take ≈ 30 bytes each: 24 in the sorted run, the rest directory and recent table")
    func size() {
        var generator = SplitMix64(seed: 3)
        var index = UUIDIndex()
        var uuids: [UUID] = []
        for i in 0..<1_000_000 {
            let uuid = Self.makeUUID(&generator, clustered: false)
            uuids.append(uuid)
            index.insert(uuid, at: .init(log: 0, slot: UInt32(i)))
        }
        #expect(index.count == 1_000_000)
        // The former hash table took (1 << 21) * 24 bytes here: 50 bytes a uuid (and 75 while doubling).
        #expect(index.byteCount <= 1_000_000 * 32)
        #expect(index.byteCount >= 1_000_000 * 24)
        for i in stride(from: 0, to: uuids.count, by: 997) {
            #expect(index.location(of: uuids[i]) == .init(log: 0, slot: UInt32(i)))
        }
    }

    @Test("removed uuids leave the sorted run at the next merge; a removed uuid can come back")
    func removeAndReinsert() {
        var generator = SplitMix64(seed: 5)
        var index = UUIDIndex()
        let uuids = (0..<20_000).map { _ in Self.makeUUID(&generator, clustered: false) }
        var inserted = 0, removed = 0
        for (i, uuid) in uuids.enumerated() where index.insert(uuid, at: .init(log: 1, slot: UInt32(i))) { inserted += 1 }
        for uuid in uuids[0..<10_000] where index.remove(uuid) != nil { removed += 1 }
        #expect(inserted == 20_000)
        #expect(removed == 10_000)
        #expect(index.count == 10_000)
        for uuid in uuids[0..<10_000] { #expect(index.location(of: uuid) == nil) }
        let back = index.insert(uuids[5], at: .init(log: 2, slot: 7))
        let again = index.insert(uuids[5], at: .init(log: 3, slot: 8))
        #expect(back)
        #expect(!again)
        #expect(index.location(of: uuids[5]) == .init(log: 2, slot: 7))
        // Enough new uuids to force merges past the removed ones.
        for i in 0..<50_000 { index.insert(Self.makeUUID(&generator, clustered: true), at: .init(log: 4, slot: UInt32(i))) }
        #expect(index.location(of: uuids[5]) == .init(log: 2, slot: 7))
        for (i, uuid) in uuids.enumerated().dropFirst(10_000) { #expect(index.location(of: uuid) == .init(log: 1, slot: UInt32(i))) }
        #expect(index.byteCount < index.count * 40)
    }
}
