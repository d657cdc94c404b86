import StepSyncCore
import Testing

@Suite("Interval send state machine")
struct IntervalSendMachineTests {
    let ack = SinkAcknowledgement(saved: 10, inserted: 8, duplicates: 2)
    let unavailable = UploadOutcome.rejected(status: 503, message: "down", retryAfterSeconds: nil)

    @Test("an ack on the first send marks the interval synced")
    func firstTime() {
        var rng = SplitMix64(seed: 1)
        var machine = IntervalSendMachine(policy: .default)
        #expect(machine.startSend() == 1)
        #expect(machine.received(.accepted(ack), stopping: false, using: &rng) == .markSynced(ack))
        #expect(machine.isDone && machine.attempts == 1)
    }

    @Test("transient failures back off 2, 4, 8, 16 s, then give up after 5 attempts")
    func backoffThenGiveUp() {
        var rng = SplitMix64(seed: 1)
        var machine = IntervalSendMachine(policy: RetryPolicy(jitter: 0))
        var actions: [IntervalSendMachine.Action] = []
        while !machine.isDone {
            machine.startSend()
            actions.append(machine.received(unavailable, stopping: false, using: &rng))
        }
        #expect(actions == [
            .retry(after: .seconds(2), reason: "HTTP 503: down"),
            .retry(after: .seconds(4), reason: "HTTP 503: down"),
            .retry(after: .seconds(8), reason: "HTTP 503: down"),
            .retry(after: .seconds(16), reason: "HTTP 503: down"),
            .markFailed("gave up after 5 attempts: HTTP 503: down"),
        ])
        #expect(machine.attempts == 5)
    }

    @Test("a 429 with Retry-After waits what the server said, then an ack ends it")
    func retryAfterThenAck() {
        var rng = SplitMix64(seed: 1)
        var machine = IntervalSendMachine(policy: .default)
        machine.startSend()
        let action = machine.received(.rejected(status: 429, message: "slow down", retryAfterSeconds: 1.5),
                                      stopping: false, using: &rng)
        #expect(action == .retry(after: .milliseconds(1500), reason: "HTTP 429: slow down"))
        #expect(machine.startSend() == 2)
        #expect(machine.received(.accepted(ack), stopping: false, using: &rng) == .markSynced(ack))
    }

    @Test("a 400 fails at once with the server's message, whatever attempts are left")
    func badRequest() {
        var rng = SplitMix64(seed: 1)
        var machine = IntervalSendMachine(policy: .default)
        machine.startSend()
        #expect(machine.received(.rejected(status: 400, message: "bad sample", retryAfterSeconds: nil),
                                 stopping: false, using: &rng) == .markFailed("HTTP 400: bad sample"))
    }

    @Test("a transient failure while stopping requeues instead of waiting")
    func stoppingRequeues() {
        var rng = SplitMix64(seed: 1)
        var machine = IntervalSendMachine(policy: .default)
        machine.startSend()
        #expect(machine.received(.transportFailure("connection reset"), stopping: true, using: &rng)
            == .requeue("connection reset"))
        #expect(machine.isDone)
    }

    @Test("an ack while stopping still counts: in-flight intervals finish")
    func stoppingStillAcks() {
        var rng = SplitMix64(seed: 1)
        var machine = IntervalSendMachine(policy: .default)
        machine.startSend()
        #expect(machine.received(.accepted(ack), stopping: true, using: &rng) == .markSynced(ack))
    }

    @Test("cancellation requeues")
    func cancellation() {
        var machine = IntervalSendMachine(policy: .default)
        machine.startSend()
        #expect(machine.cancelled() == .requeue("cancelled"))
    }

    @Test("max attempts 1 fails on the first transient failure")
    func oneAttempt() {
        var rng = SplitMix64(seed: 1)
        var machine = IntervalSendMachine(policy: RetryPolicy(maxAttempts: 1))
        machine.startSend()
        #expect(machine.received(.transportFailure("refused"), stopping: false, using: &rng)
            == .markFailed("gave up after 1 attempt: refused"))
    }
}
