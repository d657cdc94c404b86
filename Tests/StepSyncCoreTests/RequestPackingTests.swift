import StepSyncCore
import Testing

@Suite("Request packing: which consecutive intervals share one request")
struct RequestPackingTests {
    static func interval(_ samples: Int, type: SampleType = .stepCount, kind: IntervalKind = .samples,
                         at i: Int = 0) -> SyncInterval {
        SyncInterval(id: Int64(i + 1), type: type, range: TimeRange(start: Int64(i) * 1_000, end: Int64(i + 1) * 1_000),
                     kind: kind, steps: 0, samples: samples)
    }

    static func run(_ samples: [Int]) -> [SyncInterval] {
        samples.enumerated().map { interval($1, at: $0) }
    }

    @Test("intervals are taken while their samples fit the bound", arguments: [
        ([10, 10, 10], 5_000, 3),
        ([10, 10, 10], 20, 2),
        ([10, 10, 10], 30, 3),
        ([4_999, 1, 1], 5_000, 2),
        ([6_000, 1], 5_000, 1),  // larger than the bound: alone, never split
        ([1, 6_000], 5_000, 1),
        ([0, 0, 0], 1, 3),  // empty intervals (deleted since layering) ride along
        ([10], 5_000, 1),
    ])
    func takesWhileTheyFit(samples: [Int], maxSamples: Int, expected: Int) {
        #expect(RequestPacking.count(Self.run(samples), maxSamples: maxSamples) == expected)
    }

    @Test("0 sends every interval alone, and an empty queue takes nothing")
    func aloneAndEmpty() {
        #expect(RequestPacking.count(Self.run([1, 1, 1]), maxSamples: 0) == 1)
        #expect(RequestPacking.count([SyncInterval](), maxSamples: 5_000) == 0)
    }

    @Test("a deletions interval goes alone, and ends a run of samples intervals")
    func deletionsGoAlone() {
        let deletions = Self.interval(3, kind: .deletions, at: 1)
        #expect(RequestPacking.count([deletions, Self.interval(3, at: 2)], maxSamples: 5_000) == 1)
        #expect(RequestPacking.count([Self.interval(3, at: 0), deletions, Self.interval(3, at: 2)], maxSamples: 5_000) == 1)
    }

    @Test("a run stops at the next type")
    func typesApart() {
        let queue = [Self.interval(3, at: 0), Self.interval(3, at: 1), Self.interval(3, type: .heartRate, at: 2),
                     Self.interval(3, at: 3)]
        #expect(RequestPacking.count(queue, maxSamples: 5_000) == 2)
        #expect(RequestPacking.count(queue.dropFirst(2), maxSamples: 5_000) == 1)
    }

    @Test("at most maxIntervals intervals share a request")
    func intervalCap() {
        #expect(RequestPacking.count(Self.run(Array(repeating: 0, count: 50)), maxSamples: 5_000, maxIntervals: 8) == 8)
    }
}
