import Foundation
import Testing
@testable import StepSyncCore

@Suite("UUIDSetDigest: comparing two sides' uuids in constant memory")
struct UUIDSetDigestTests {
    static func uuids(_ n: Int, seed: UInt64 = 1) -> [UUID] {
        var rng = Xoshiro256StarStar(seed: seed)
        return (0..<n).map { _ in rng.uuid() }
    }

    static func digest(_ uuids: some Sequence<UUID>) -> UUIDSetDigest {
        var d = UUIDSetDigest()
        for u in uuids { d.add(u) }
        return d
    }

    @Test("The same uuids in any order give the same digest")
    func orderIndependent() {
        let u = Self.uuids(10_000)
        var rng = Xoshiro256StarStar(seed: 9)
        var shuffled = u
        for i in stride(from: shuffled.count - 1, to: 0, by: -1) { shuffled.swapAt(i, rng.int(0...i)) }
        #expect(shuffled != u)
        #expect(Self.digest(u) == Self.digest(shuffled))
        #expect(Self.digest(u).count == 10_000)
    }

    @Test("A missing, extra, doubled or swapped uuid changes the digest")
    func detectsDifferences() {
        let u = Self.uuids(5_000)
        let reference = Self.digest(u)
        let other = Self.uuids(1, seed: 2)[0]
        let cases: [[UUID]] = [
            Array(u.dropLast()),                          // missing
            u + [other],                                  // extra
            Array(u.dropLast()) + [u[0]],                 // one doubled, one missing: same count
            Array(u.dropLast()) + [other],                // one swapped for another: same count
        ]
        for c in cases { #expect(Self.digest(c) != reference) }
        #expect(Self.digest([]) == UUIDSetDigest())
    }
}
