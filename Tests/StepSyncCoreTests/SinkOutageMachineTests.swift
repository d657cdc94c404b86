import StepSyncCore
import Testing

@Suite("Waiting for the sink: the shared outage machine")
struct SinkOutageMachineTests {
    let refused = SinkFailure(.unreachable, detail: "connection refused")
    let noJitter = SinkOutageMachine.Policy(baseSeconds: 2, maxDelaySeconds: 30, jitter: 0, giveUpAfterSeconds: 60)

    /// Runs probes that all fail, one second after each wait, and returns the actions.
    func failingProbes(_ machine: inout SinkOutageMachine, probeSeconds: Int = 0) -> [SinkOutageMachine.Action] {
        var rng = SplitMix64(seed: 7)
        var now = Duration.zero
        machine.failed(refused, at: now)
        var actions: [SinkOutageMachine.Action] = []
        while true {
            let action = machine.nextStep(at: now, using: &rng)
            actions.append(action)
            guard case .wait(let delay, _) = action else { break }
            now += delay + .seconds(probeSeconds)
            machine.failed(refused, at: now)
        }
        return actions
    }

    @Test("a dead sink is waited for 2, 4, 8, 16 s, then capped at 30 s, and given up at the deadline, exactly")
    func backoffThenGiveUp() {
        var machine = SinkOutageMachine(policy: noJitter)
        #expect(failingProbes(&machine) == [
            .wait(.seconds(2), refused), .wait(.seconds(4), refused), .wait(.seconds(8), refused),
            .wait(.seconds(16), refused), .wait(.seconds(30), refused), .giveUp(refused, afterSeconds: 60),
        ])
        #expect(machine.waits == 5 && machine.isDown)
    }

    @Test("the last wait is cut to end at the give-up deadline")
    func lastWaitEndsAtTheDeadline() {
        var machine = SinkOutageMachine(policy: .init(baseSeconds: 2, jitter: 0, giveUpAfterSeconds: 10))
        #expect(failingProbes(&machine) == [
            .wait(.seconds(2), refused), .wait(.seconds(4), refused), .wait(.seconds(4), refused),
            .giveUp(refused, afterSeconds: 10),
        ])
    }

    @Test("give-up-after 0 keeps trying: a hundred waits, all at the cap after the fifth")
    func keepTrying() {
        var machine = SinkOutageMachine(policy: .init(baseSeconds: 2, jitter: 0, giveUpAfterSeconds: 0))
        var rng = SplitMix64(seed: 1)
        machine.failed(refused, at: .zero)
        var now = Duration.zero
        var delays: [Duration] = []
        for _ in 0..<100 {
            guard case .wait(let delay, _) = machine.nextStep(at: now, using: &rng) else {
                Issue.record("gave up with give-up-after 0")
                return
            }
            delays.append(delay)
            now += delay
            machine.failed(refused, at: now)
        }
        #expect(Array(delays.prefix(5)) == [.seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30)])
        #expect(delays.dropFirst(4).allSatisfy { $0 == .seconds(30) })
    }

    @Test("jitter stays within ±10 % and is reproducible from the seed")
    func jitter() {
        let machine = SinkOutageMachine(policy: .init(baseSeconds: 2, jitter: 0.1))
        var a = SplitMix64(seed: 42)
        var b = SplitMix64(seed: 42)
        for n in 1...8 {
            let nominal = min(2 * Double(1 << (n - 1)), 30)
            let x = machine.delaySeconds(beforeProbe: n, using: &a)
            #expect(x >= nominal * 0.9 && x <= nominal * 1.1)
            #expect(x == machine.delaySeconds(beforeProbe: n, using: &b))
        }
    }

    @Test("Retry-After is honoured as given (no jitter), up to its cap")
    func retryAfter() {
        var rng = SplitMix64(seed: 1)
        var machine = SinkOutageMachine(policy: .init(baseSeconds: 2, jitter: 0.1, giveUpAfterSeconds: 0))
        let busy = SinkFailure(.unavailable(status: 503), detail: "disk full", retryAfterSeconds: 7)
        machine.failed(busy, at: .zero)
        #expect(machine.nextStep(at: .zero, using: &rng) == .wait(.seconds(7), busy))
        let greedy = SinkFailure(.unavailable(status: 429), detail: "slow down", retryAfterSeconds: 86_400)
        machine.failed(greedy, at: .seconds(7))
        #expect(machine.nextStep(at: .seconds(7), using: &rng) == .wait(.seconds(300), greedy))
    }

    @Test("a probe that answers lets intervals go, but only an interval's answer ends the outage and its clock")
    func recoveringKeepsTheClock() {
        var rng = SplitMix64(seed: 1)
        var machine = SinkOutageMachine(policy: noJitter)
        let unavailable = SinkFailure(.unavailable(status: 503), detail: "down")
        machine.failed(unavailable, at: .zero)
        #expect(machine.nextStep(at: .zero, using: &rng) == .wait(.seconds(2), unavailable))
        machine.probeAnswered()
        #expect(!machine.isDown && machine.lastFailure == unavailable)
        // The intervals sent after the probe get 503 again: the same outage, the next wait is longer.
        machine.failed(unavailable, at: .seconds(3))
        #expect(machine.nextStep(at: .seconds(3), using: &rng) == .wait(.seconds(4), unavailable))
        // …and the deadline counts from the first failure.
        machine.probeAnswered()
        machine.failed(unavailable, at: .seconds(60))
        #expect(machine.nextStep(at: .seconds(60), using: &rng) == .giveUp(unavailable, afterSeconds: 60))
        // An interval answered: healthy, and a new outage starts from scratch.
        machine.intervalAnswered()
        #expect(!machine.isDown && machine.lastFailure == nil && machine.waits == 0)
        machine.failed(unavailable, at: .seconds(100))
        #expect(machine.nextStep(at: .seconds(100), using: &rng) == .wait(.seconds(2), unavailable))
    }

    @Test("the one line a person reads names the server, the cause and what to do")
    func messages() {
        #expect(refused.message(server: "http://127.0.0.1:8000")
            == "cannot reach http://127.0.0.1:8000: connection refused — is stepsync serve running?")
        #expect(SinkFailure(.unavailable(status: 503), detail: "disk full").message(server: "http://h:1")
            == "the sink at http://h:1 is unavailable (HTTP 503: disk full)")
        #expect(SinkFailure(.unavailable(status: 429), detail: "slow down").message(server: "http://h:1")
            == "the sink at http://h:1 asks to slow down (HTTP 429: slow down)")
        #expect(SinkFailure(.unavailable(status: 503), detail: "disk full").note == "HTTP 503: disk full")
    }
}
