import StepSyncCore
import Testing

/// The in-flight window as values: the measures it takes from each acknowledgement, the window they ask for, and how
/// it moves over simulated links (a fixed delay, a bandwidth ceiling) — with the times given, no clock, no task.
@Suite("In-flight window: as many requests in flight as the link holds")
struct InFlightWindowTests {
    typealias Window = InFlightWindow

    static func ms(_ value: Double) -> Duration { .microseconds(Int64((value * 1_000).rounded())) }

    @Test("the target: ⌈gain × bandwidth-delay ÷ mean request⌉, clamped to lanes … maxInFlight", arguments: [
        // (bandwidth × delay in samples, mean request samples, lanes, max, expected)
        (0.0, 5_000.0, 3, 24, 3),             // nothing measured: the lanes
        (5_000.0, 0.0, 3, 24, 3),             // no request measured: the lanes
        (5_000.0, 5_000.0, 3, 24, 3),         // 2 requests asked, floor 3
        (15_000.0, 5_000.0, 3, 24, 6),        // three requests in the link: six in flight
        (15_001.0, 5_000.0, 3, 24, 7),        // rounded up
        (50_000.0, 5_000.0, 3, 24, 20),       // 300k samples/s × 0.1667 s
        (1_000_000.0, 5_000.0, 3, 24, 24),    // the ceiling
        (50_000.0, 1_000.0, 3, 512, 100),     // small requests (a 413 cut them): more of them
        (.infinity, 5_000.0, 3, 24, 3),       // not a measure
    ])
    func target(bdp: Double, mean: Double, lanes: Int, max: Int, expected: Int) {
        let policy = Window.Policy(lanes: lanes, maxInFlight: max)
        #expect(Window.target(bandwidthDelay: bdp, meanRequestSamples: mean, policy: policy) == expected)
    }

    @Test("the policy's bounds: at least one lane, a ceiling no lower than the lanes, eight a lane by default")
    func policyBounds() {
        #expect(Window.Policy(lanes: 0, maxInFlight: 0).lanes == 1)
        #expect(Window.Policy(lanes: 4, maxInFlight: 2).maxInFlight == 4)
        #expect(Window.Policy.defaultMaxInFlight(lanes: 3) == 24)
        #expect(Window(policy: .init(lanes: 3, maxInFlight: 24)).limit == 3)
    }

    @Test("one round trip of three requests over a 150 ms link: the measures, and the window opening one per ack")
    func firstRoundTrip() throws {
        var window = Window(policy: .init(lanes: 3, maxInFlight: 24))
        let tickets = (0..<3).map { _ in window.send(at: .zero) }
        #expect(tickets.allSatisfy { $0.deliveredAtSend == 0 && $0.sentAt == .zero })
        var limits: [Int] = []
        var rates: [Double] = []
        for ticket in tickets {
            window.acknowledged(ticket, samples: 5_000, at: Self.ms(150))
            limits.append(window.limit)
            rates.append(window.rates.last ?? 0)
        }
        #expect(rates.map { $0.rounded() } == [33_333, 66_667, 100_000])
        #expect(limits == [3, 4, 5])  // targets 3, 4, 6: at most one more per acknowledgement
        #expect(window.delivered == 15_000 && window.minRoundTrip == Self.ms(150))
        #expect(window.bandwidthDelay.rounded() == 15_000 && window.meanRequestSamples == 5_000)
    }

    @Test("an acknowledgement of nothing (every sample deleted) or at the send's own instant measures nothing")
    func emptyAcknowledgements() {
        var window = Window(policy: .init(lanes: 2, maxInFlight: 16))
        let first = window.send(at: .seconds(1))
        window.acknowledged(first, samples: 0, at: .seconds(2))
        #expect(window.rates.isEmpty && window.minRoundTrip == nil && window.limit == 2 && window.delivered == 0)
        let second = window.send(at: .seconds(2))
        window.acknowledged(second, samples: 100, at: .seconds(2))
        #expect(window.rates.isEmpty && window.minRoundTrip == nil && window.limit == 2 && window.delivered == 100)
    }

    @Test("maxInFlight equal to the lanes: the window never moves")
    func fixedWindow() {
        let link = LinkSimulation(oneWay: Self.ms(75), samplesPerSecond: .infinity)
        let run = link.run(policy: .init(lanes: 3, maxInFlight: 3), requests: 60)
        #expect(run.limits.allSatisfy { $0 == 3 } && run.peakInFlight == 3)
    }

    @Test("a 150 ms link with no bandwidth limit: the window opens to the ceiling, and the rate with it")
    func delayOnly() {
        let link = LinkSimulation(oneWay: Self.ms(75), samplesPerSecond: .infinity)
        let run = link.run(policy: .init(lanes: 3, maxInFlight: 24), requests: 200)
        #expect(run.limits.last == 24 && run.peakInFlight == 24)
        // 24 × 5,000 samples a round trip: 800k samples/s, against 100k for one request a lane.
        #expect(run.lastRate > 790_000)
        let fixed = link.run(policy: .init(lanes: 3, maxInFlight: 3), requests: 200)
        #expect(fixed.lastRate < 110_000)  // 3 × 5,000 ÷ 0.15 s, measured over whole round trips
    }

    @Test("a 150 ms link into a sink of 300k samples/s: the window settles at 2 × bandwidth × delay, the link full",
          arguments: [(75.0, 300_000.0, 20), (25.0, 300_000.0, 8), (0.5, 500_000.0, 3)])
    func bandwidthCeiling(oneWayMs: Double, samplesPerSecond: Double, settled: Int) {
        // Round trip 150 ms + 16.7 ms of the sink's work on one request: 2 × 300k × 0.1667 s ÷ 5,000 = 20 requests;
        // at 25 ms one way: 2 × 300k × 0.0667 ÷ 5,000 = 8; on loopback the sink's work alone, ⌈2 × 500k × 0.011 ÷
        // 5,000⌉ = 3: the lanes.
        let link = LinkSimulation(oneWay: Self.ms(oneWayMs), samplesPerSecond: samplesPerSecond)
        let run = link.run(policy: .init(lanes: 3, maxInFlight: 24), requests: 300)
        #expect(run.limits.suffix(100).allSatisfy { $0 == settled }, "\(run.limits.suffix(20))")
        #expect(run.lastRate > 0.97 * samplesPerSecond)
    }

    @Test("the sink slows down: the old rate ages out and the window closes again")
    func sinkSlowsDown() {
        var link = LinkSimulation(oneWay: Self.ms(75), samplesPerSecond: 300_000)
        var window = Window(policy: .init(lanes: 3, maxInFlight: 24))
        link.drive(&window, requests: 200)
        #expect(window.limit == 20)
        link.samplesPerSecond = 100_000
        link.drive(&window, requests: 200)
        // 2 × 100k × (0.15 + 0.05) ÷ 5,000 = 8 (the shortest round trip seen stays 0.1667 s: 7 requests ≤ 8).
        #expect(window.limit <= 8 && window.limit >= 6)
    }
}

/// A link for the window's tests, simulated event by event: each request of `requestSamples` samples travels
/// `oneWay`, waits its turn at a sink that works through `samplesPerSecond` (one request at a time, in arrival
/// order), and its acknowledgement travels `oneWay` back. The client sends whenever fewer than the window are in
/// flight. Pure and deterministic: the times are computed, nothing sleeps.
struct LinkSimulation {
    var oneWay: Duration
    var samplesPerSecond: Double
    var requestSamples = 5_000
    /// The time reached, and when the sink is next free.
    var now = Duration.zero
    var sinkFree = Duration.zero

    struct Run {
        var limits: [Int] = []
        var peakInFlight = 0
        /// Samples a second over the last quarter of the run.
        var lastRate: Double = 0
    }

    init(oneWay: Duration, samplesPerSecond: Double) {
        self.oneWay = oneWay
        self.samplesPerSecond = samplesPerSecond
    }

    func run(policy: InFlightWindow.Policy, requests: Int) -> Run {
        var copy = self
        var window = InFlightWindow(policy: policy)
        return copy.drive(&window, requests: requests)
    }

    /// Sends `requests` requests through the link under `window`; returns the window after each acknowledgement.
    @discardableResult
    mutating func drive(_ window: inout InFlightWindow, requests: Int) -> Run {
        var run = Run()
        var flying: [(ack: Duration, ticket: InFlightWindow.Ticket)] = []
        var sent = 0
        var acked: [(at: Duration, samples: Int)] = []
        let service: Duration = samplesPerSecond.isInfinite ? .zero
            : .microseconds(Int64((Double(requestSamples) / samplesPerSecond * 1e6).rounded()))
        while acked.count < requests {
            while flying.count < window.limit, sent < requests {
                let ticket = window.send(at: now)
                let start = max(now + oneWay, sinkFree)
                sinkFree = start + service
                flying.append((sinkFree + oneWay, ticket))
                sent += 1
            }
            run.peakInFlight = max(run.peakInFlight, flying.count)
            let next = flying.indices.min { flying[$0].ack < flying[$1].ack }!
            let (ack, ticket) = flying.remove(at: next)
            now = ack
            window.acknowledged(ticket, samples: requestSamples, at: now)
            acked.append((now, requestSamples))
            run.limits.append(window.limit)
        }
        let quarter = acked.suffix(max(2, requests / 4))
        if let first = quarter.first, let last = quarter.last, last.at > first.at {
            run.lastRate = Double(quarter.dropFirst().reduce(0) { $0 + $1.samples }) / (last.at - first.at).inSeconds
        }
        return run
    }
}
