import Foundation
import StepSyncCore
@testable import StepSyncPostgres
import StepSyncTestSupport
import Testing

/// Issue 31: a page sums its samples' stored lines exactly only once a cheap upper bound could pass `maxBytes`; the
/// pages end at the same rows as when every line was written.
@Suite("PostgreSQL pages capped in bytes", .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"))
struct PostgresPageBytesTests {
    /// Samples of every size: plain, text needing escapes (the worst, control characters), long details.
    static func samples() -> [HealthSample] {
        var random = SplitMix64(seed: 7)
        return (0..<60).map { i in
            var sample = stepSamples(1, first: i, type: .workout)[0]
            sample.unit = "s"
            switch i % 4 {
            case 0: sample.sourceName = String(repeating: "\u{01}\"\\", count: Int.random(in: 1...300, using: &random))
            case 1: sample.details = #"{"blob":""# + String(repeating: "x", count: Int.random(in: 1...4_000, using: &random)) + #""}"#
            case 2: sample.deviceName = String(repeating: "⌚️", count: Int.random(in: 1...200, using: &random))
            default: break
            }
            return sample
        }
    }

    @Test("the bound of a stored line is never below its length, for plain, escaped, multi-byte and detailed samples")
    func boundAboveLength() {
        var line: [UInt8] = []
        for sample in Self.samples() + awkwardSamples() + stepSamples(5) {
            let length = PostgresSampleStorage.storedLineLength(sample, buffer: &line)
            #expect(PostgresSampleStorage.storedLineBound(sample) >= length, "\(sample)")
        }
    }

    @Test("for 30 byte caps from 1 to 40,000, every page ends where the exact sum of the stored lines says (the first sample always; then none past the cap)")
    func pagesEndWhereTheExactSumSays() async throws {
        try await withStorage { storage, _ in
            let owner = try await storage.addClient(name: "anna", token: .random())
            let samples = Self.samples()
            _ = try await storage.insert(samples, client: owner.id)
            let ordered = samples.sorted { ($0.startMs, $0.uuid.uuidString) < ($1.startMs, $1.uuid.uuidString) }
            var line: [UInt8] = []
            let lengths = ordered.map { PostgresSampleStorage.storedLineLength($0, buffer: &line) }
            var random = SplitMix64(seed: 11)
            for _ in 0..<30 {
                let cap = Int.random(in: 1...40_000, using: &random)
                var cursor: PostgresSampleStorage.PageCursor?
                var at = 0
                repeat {
                    // The reference: the first sample, then each while the sum stays within the cap.
                    var end = at + 1
                    var sum = lengths[at]
                    while end < ordered.count, end - at < 25, sum + lengths[end] <= cap { sum += lengths[end]; end += 1 }
                    let page = try await storage.page(client: owner.id, type: .workout, after: cursor, from: nil, to: nil,
                                                      limit: 25, maxBytes: cap)
                    #expect(page.samples.map(\.uuid) == ordered[at..<end].map(\.uuid), "cap \(cap), from \(at)")
                    guard page.samples.count == end - at else { break }
                    at = end
                    cursor = page.next
                } while cursor != nil
                #expect(at == ordered.count, "cap \(cap)")
            }
        }
    }
}
