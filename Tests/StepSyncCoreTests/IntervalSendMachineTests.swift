import StepSyncCore
import Testing

@Suite("Interval send state machine")
struct IntervalSendMachineTests {
    let ack = SinkAcknowledgement(saved: 10, inserted: 8, duplicates: 2)
    let serverError = UploadOutcome.rejected(status: 500, message: "oops", retryAfterSeconds: nil)

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
            actions.append(machine.received(serverError, stopping: false, using: &rng))
        }
        #expect(actions == [
            .retry(after: .seconds(2), reason: "HTTP 500: oops"),
            .retry(after: .seconds(4), reason: "HTTP 500: oops"),
            .retry(after: .seconds(8), reason: "HTTP 500: oops"),
            .retry(after: .seconds(16), reason: "HTTP 500: oops"),
            .markFailed("gave up after 5 attempts: HTTP 500: oops"),
        ])
        #expect(machine.attempts == 5)
    }

    @Test("a 429 or 503 hands the interval to the shared wait for the sink, whatever attempts are left")
    func serverLevelYields() {
        var rng = SplitMix64(seed: 1)
        var machine = IntervalSendMachine(policy: .default)
        machine.startSend()
        let action = machine.received(.rejected(status: 429, message: "slow down", retryAfterSeconds: 1.5),
                                      stopping: false, using: &rng)
        #expect(action == .yieldToSink(SinkFailure(.unavailable(status: 429), detail: "slow down", retryAfterSeconds: 1.5)))
        #expect(machine.isDone && machine.transientFailures == 0)
        var refused = IntervalSendMachine(policy: .default)
        refused.startSend()
        #expect(refused.received(.unreachable("connection refused"), stopping: false, using: &rng)
            == .yieldToSink(SinkFailure(.unreachable, detail: "connection refused")))
    }

    @Test("a refused sample is dropped and the rest resent at once, without using up attempts; past the limit the interval fails")
    func refusedSamples() {
        var rng = SplitMix64(seed: 1)
        var machine = IntervalSendMachine(policy: RetryPolicy(maxAttempts: 1), maxRefusedSamples: 2)
        let refusal = SampleRefusal(status: 400, index: 0, reason: "negative_value", field: "count", message: "sample 0: bad")
        for _ in 0..<2 {
            machine.startSend()
            #expect(machine.received(.refusedSample(refusal), stopping: false, using: &rng) == .dropSample(refusal))
        }
        #expect(machine.sends == 2 && machine.transientFailures == 0 && machine.refusedSamples == 2)
        machine.startSend()
        #expect(machine.received(.refusedSample(refusal), stopping: false, using: &rng)
            == .markFailed("HTTP 400: sample 0: bad (the sink refused more than 2 samples of this interval one by one)"))
        var acked = IntervalSendMachine(policy: .default)
        acked.startSend()
        _ = acked.received(.refusedSample(refusal), stopping: false, using: &rng)
        acked.startSend()
        #expect(acked.received(.accepted(ack), stopping: false, using: &rng) == .markSynced(ack))
    }

    @Test("a stop during a retry's wait requeues at once")
    func pausedDuringWait() {
        var rng = SplitMix64(seed: 1)
        var machine = IntervalSendMachine(policy: RetryPolicy(jitter: 0))
        machine.startSend()
        #expect(machine.received(serverError, stopping: false, using: &rng) == .retry(after: .seconds(2), reason: "HTTP 500: oops"))
        #expect(!machine.isDone)
        #expect(machine.paused() == .requeue("paused during a retry wait"))
        #expect(machine.isDone)
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
