import Foundation
import StepSyncCore
import Testing

// MARK: - The in-flight window (the run machine's scripts of `SyncRunMachineTests`, in a file of their own)

extension SyncRunMachineTests {
    /// Request `request` (its number in the run) synced `count` samples of one interval.
    static func synced(request: Int, count: Int = 10) -> Event {
        .requestEnded(.synced(.samples, intervals: 1, count: count, ack), request: request)
    }

    @Test("the window opens on a long round trip: each acknowledgement measures the link, and more requests start than lanes")
    func windowOpens() {
        // Two lanes, at most 8 in flight, intervals of 10 samples; each request acknowledged 0.1 s after its send.
        var machine = Machine(queue: Self.steps(1...10), configuration: .init(
            concurrency: 2, maxInFlight: 8, maxSamplesPerRequest: 0, outagePolicy: Self.outage, probeFirst: false),
            randomSeed: 1)
        var sent: [Int] = []
        func play(_ event: Event, at seconds: Double) -> [String] {
            let actions = machine.handle(event, stopRequests: 0, at: .milliseconds(Int64(seconds * 1_000)))
            for case .send(_, let request) in actions { sent.append(request) }
            return actions.map(Self.summary)
        }
        #expect(play(.started, at: 0) == ["watch stop 1", "send 1", "send 2"])
        // 10 samples in 0.1 s: 100/s × 0.1 s = one request in the link → 2 (the lanes).
        #expect(play(Self.synced(request: 0), at: 0.1) == ["progress 1/10", "send 3"])
        // 20 samples since request 1's send: 200/s × 0.1 s = 2 requests → ⌈2 × 2⌉ = 4, one more per ack → 3.
        #expect(play(Self.synced(request: 1), at: 0.1) == ["progress 2/10", "send 4", "send 5"])
        #expect(machine.window.limit == 3 && machine.inFlight == 3)
        // Request 2 (sent at 0.1 s after 10 delivered): 20 samples in 0.1 s, still 200/s → 4.
        #expect(play(Self.synced(request: 2), at: 0.2) == ["progress 3/10", "send 6", "send 7"])
        #expect(machine.window.limit == 4 && machine.inFlight == 4 && machine.tally.peakInFlight == 4)
        #expect(sent == Array(0...6))
        #expect(machine.window.minRoundTrip == .milliseconds(100))
    }

    @Test("without request numbers (or with maxInFlight = concurrency) the window stays at the lanes")
    func windowFixed() {
        var unnumbered = Machine(queue: Self.steps(1...6), configuration: Self.config(concurrency: 2), randomSeed: 1)
        _ = unnumbered.handle(.started, stopRequests: 0, at: .zero)
        for second in 1...4 { _ = unnumbered.handle(Self.synced(), stopRequests: 0, at: .seconds(second)) }
        #expect(unnumbered.window.limit == 2 && unnumbered.tally.peakInFlight == 2)

        var fixed = Machine(queue: Self.steps(1...6), configuration: .init(
            concurrency: 2, maxInFlight: 2, maxSamplesPerRequest: 0, outagePolicy: Self.outage, probeFirst: false),
            randomSeed: 1)
        _ = fixed.handle(.started, stopRequests: 0, at: .zero)
        for request in 0..<4 {
            _ = fixed.handle(Self.synced(request: request), stopRequests: 0, at: .milliseconds(100 * (request + 1)))
        }
        #expect(fixed.window.limit == 2 && fixed.tally.peakInFlight == 2)
    }

    @Test("a request that did not sync (the sink down, a failure) measures nothing")
    func windowIgnoresFailures() {
        var machine = Machine(queue: Self.steps(1...6), configuration: .init(
            concurrency: 2, maxInFlight: 8, maxSamplesPerRequest: 0, outagePolicy: Self.outage, probeFirst: false),
            randomSeed: 1)
        _ = machine.handle(.started, stopRequests: 0, at: .zero)
        _ = machine.handle(.requestEnded(.failed, request: 0), stopRequests: 0, at: .seconds(1))
        #expect(machine.window.delivered == 0 && machine.window.minRoundTrip == nil && machine.window.limit == 2)
    }
}
