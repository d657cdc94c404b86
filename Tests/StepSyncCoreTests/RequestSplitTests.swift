import StepSyncCore
import Testing

/// The decisions of fitting a body limit (issue 22): where a request is cut, what a 413 teaches, and when an
/// interval fails for size — pure, no concurrency, no clock.
@Suite("Request splitting on 413")
struct RequestSplitTests {
    struct SplitCase: CustomTestStringConvertible, Sendable {
        var name: String
        var sizes: [Int]
        var owners: [Int64]
        var limit: Int?
        var parts: [Range<Int>]
        var testDescription: String { name }
    }

    static let overhead = 14

    static let splitCases: [SplitCase] = [
        .init(name: "no limit known: one part", sizes: [10, 10, 10, 10], owners: [1, 1, 2, 2], limit: nil,
              parts: [0..<4]),
        .init(name: "everything fits: one part", sizes: [10, 10, 10, 10], owners: [1, 1, 2, 2], limit: 100,
              parts: [0..<4]),
        .init(name: "exactly at the limit: one part (14 + 4×10 + 3 commas = 57)", sizes: [10, 10, 10, 10],
              owners: [1, 1, 2, 2], limit: 57, parts: [0..<4]),
        .init(name: "one byte under: packed intervals apart first", sizes: [10, 10, 10, 10], owners: [1, 1, 2, 2],
              limit: 56, parts: [0..<2, 2..<4]),
        .init(name: "small intervals still share parts", sizes: [10, 10, 10, 10, 10, 10], owners: [1, 2, 3, 4, 5, 6],
              limit: 40, parts: [0..<2, 2..<4, 4..<6]),
        .init(name: "one interval over the limit: its samples cut greedily", sizes: [30, 30, 30], owners: [1, 1, 1],
              limit: 50, parts: [0..<1, 1..<2, 2..<3]),
        .init(name: "two samples a part (14 + 30 + 1 + 30 = 75)", sizes: [30, 30, 30, 30, 30], owners: [7, 7, 7, 7, 7],
              limit: 75, parts: [0..<2, 2..<4, 4..<5]),
        .init(name: "a large interval between small ones: small ones are not cut", sizes: [10, 40, 40, 40, 10],
              owners: [1, 2, 2, 2, 3], limit: 100, parts: [0..<1, 1..<3, 3..<5]),
        .init(name: "a sample over the limit goes alone (the sink decides)", sizes: [10, 90, 10], owners: [1, 1, 1],
              limit: 50, parts: [0..<1, 1..<2, 2..<3]),
        .init(name: "every sample over the limit: one a part", sizes: [90, 90], owners: [1, 2], limit: 50,
              parts: [0..<1, 1..<2]),
        .init(name: "nothing to send", sizes: [], owners: [], limit: 50, parts: []),
    ]

    @Test("parts: packed intervals apart first, then one interval's samples", arguments: splitCases)
    func parts(_ c: SplitCase) {
        let parts = RequestSplit.parts(sizes: c.sizes, owners: c.owners, overhead: Self.overhead, limit: c.limit)
        #expect(parts == c.parts)
        // Every sample once, in order; every part of more than one sample within the limit.
        #expect(parts.flatMap { Array($0) } == Array(c.sizes.indices))
        for part in parts where part.count > 1 {
            #expect(RequestSplit.bodyBytes(sizes: c.sizes, range: part, overhead: Self.overhead) <= c.limit ?? .max)
        }
    }

    @Test("parts of seeded random bodies: cover every sample in order, fit unless alone, and never cut an interval that fits")
    func randomBodies() {
        var rng = SplitMix64(seed: 22)
        for _ in 0..<300 {
            let intervals = Int.random(in: 1...12, using: &rng)
            var sizes: [Int] = []
            var owners: [Int64] = []
            for owner in 0..<intervals {
                for _ in 0..<Int.random(in: 1...20, using: &rng) {
                    sizes.append(Int.random(in: 50...400, using: &rng))
                    owners.append(Int64(owner))
                }
            }
            let limit = Int.random(in: 100...8_000, using: &rng)
            let parts = RequestSplit.parts(sizes: sizes, owners: owners, overhead: Self.overhead, limit: limit)
            #expect(parts.flatMap { Array($0) } == Array(sizes.indices))
            for part in parts where part.count > 1 {
                #expect(RequestSplit.bodyBytes(sizes: sizes, range: part, overhead: Self.overhead) <= limit)
            }
            // An interval whose body fits alone is never spread over two parts.
            for owner in Set(owners) {
                let mine = owners.indices.filter { owners[$0] == owner }
                let range = mine.first!..<(mine.last! + 1)
                guard RequestSplit.bodyBytes(sizes: sizes, range: range, overhead: Self.overhead) <= limit else { continue }
                #expect(parts.filter { $0.overlaps(range) }.count == 1)
            }
        }
    }

    struct LimitCase: CustomTestStringConvertible, Sendable {
        var name: String
        var configured: Int?
        var accepted: [Int]
        var refused: Int
        var limit: Int
        var testDescription: String { name }
    }

    static let limitCases: [LimitCase] = [
        .init(name: "nothing accepted yet: half the refused body", configured: nil, accepted: [], refused: 1_500_000,
              limit: 750_000),
        .init(name: "a larger body was accepted: not below it", configured: nil, accepted: [900_000],
              refused: 1_500_000, limit: 900_000),
        .init(name: "a body larger than the refused one was accepted: halve anyway", configured: nil,
              accepted: [900_000], refused: 800_000, limit: 400_000),
        .init(name: "a configured limit already lower stays", configured: 200_000, accepted: [],
              refused: 1_500_000, limit: 200_000),
        .init(name: "a configured limit higher than the refused body is lowered", configured: 2_000_000, accepted: [],
              refused: 1_500_000, limit: 750_000),
        .init(name: "never below the minimum", configured: nil, accepted: [], refused: 70,
              limit: BodySizeLimit.minimum),
    ]

    @Test("what a 413 teaches: half the refused body, not below a size accepted, always below the refused one",
          arguments: limitCases)
    func limit(_ c: LimitCase) {
        var limit = BodySizeLimit(configured: c.configured)
        for bytes in c.accepted { limit.accepted(bodyBytes: bytes) }
        #expect(limit.refused(bodyBytes: c.refused) == c.limit)
        #expect(limit.limit == c.limit && limit.refusals == 1)
    }

    @Test("behind a 1 MiB limit, 1.5 MB bodies: one 413, then every part fits")
    func learnsNginxDefault() {
        var limit = BodySizeLimit()
        #expect(limit.limit == nil)
        let refused = limit.refused(bodyBytes: 1_500_000)
        #expect(refused == 750_000 && refused < 1 << 20)
        // The next refusal of a smaller body goes on halving.
        limit.accepted(bodyBytes: 700_000)
        #expect(limit.refused(bodyBytes: 740_000) == 700_000)
        #expect(limit.refusals == 2)
    }

    // MARK: - The interval's machine on 413

    @Test("413 on a body of several samples: split and resend, using no attempt")
    func splitUsesNoAttempt() {
        var rng = SplitMix64(seed: 3)
        var machine = IntervalSendMachine(policy: RetryPolicy(maxAttempts: 1))
        let tooLarge = UploadOutcome.rejected(status: 413, message: "Request Entity Too Large", retryAfterSeconds: nil)
        var actions: [IntervalSendMachine.Action] = []
        for samples in [4_000, 2_000, 1_000] {
            machine.startSend(samples: samples)
            actions.append(machine.received(tooLarge, stopping: false, using: &rng))
        }
        #expect(actions == Array(repeating: .split("HTTP 413: Request Entity Too Large"), count: 3))
        machine.startSend(samples: 500)
        let ack = SinkAcknowledgement(saved: 500, inserted: 500, duplicates: 0)
        #expect(machine.received(.accepted(ack), stopping: false, using: &rng) == .markSynced(ack))
        #expect(machine.splits == 3 && machine.transientFailures == 0)
    }

    @Test("413 on a body of one sample: the interval fails, naming the limit")
    func oneSampleTooLarge() {
        var rng = SplitMix64(seed: 3)
        var machine = IntervalSendMachine(policy: .default)
        machine.startSend(samples: 1)
        let action = machine.received(.rejected(status: 413, message: "too large", retryAfterSeconds: nil),
                                      stopping: false, using: &rng)
        #expect(action == .markFailed(
            "HTTP 413: too large (one sample alone is over the body limit of the sink or a proxy in front of it)"))
        #expect(machine.isDone)
    }

    @Test("413 is its own class: neither the sink's outage nor a permanent refusal")
    func classification() {
        #expect(UploadOutcome.rejected(status: 413, message: "big", retryAfterSeconds: 3).classification
            == .tooLarge("HTTP 413: big"))
    }

    @Test("an untrusted certificate stops the run at once, whatever the give-up deadline")
    func untrustedGivesUpAtOnce() {
        var rng = SplitMix64(seed: 1)
        var outage = SinkOutageMachine(policy: .init(giveUpAfterSeconds: 0))
        let failure = SinkFailure(.untrusted, detail: "certificate verify failed")
        outage.failed(failure, at: .seconds(1))
        #expect(outage.nextStep(at: .seconds(1), using: &rng) == .giveUp(failure, afterSeconds: 0))
        #expect(failure.message(server: "https://127.0.0.1:8443").contains("--cacert"))
        #expect(UploadOutcome.untrusted("certificate verify failed").classification == .serverUnavailable(failure))
    }
}
