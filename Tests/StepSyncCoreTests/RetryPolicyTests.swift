import StepSyncCore
import Testing

@Suite("Retry policy")
struct RetryPolicyTests {
    @Test("default delays are 2, 4, 8, 16, 32 s, capped at 300 s", arguments: [
        (1, 2.0), (2, 4.0), (3, 8.0), (4, 16.0), (5, 32.0), (6, 64.0), (9, 300.0), (10, 300.0), (5_000, 300.0),
        (Int.max, 300.0),
    ])
    func nominalTable(attempt: Int, seconds: Double) {
        #expect(RetryPolicy.default.nominalDelaySeconds(afterAttempt: attempt) == seconds)
    }

    @Test("without jitter the delay is exactly the table's, in milliseconds")
    func exactWithoutJitter() {
        var rng = SplitMix64(seed: 1)
        let policy = RetryPolicy(baseSeconds: 0.01, jitter: 0)
        let delays = (1...5).map { policy.delay(afterAttempt: $0, using: &rng) }
        #expect(delays == [.milliseconds(10), .milliseconds(20), .milliseconds(40), .milliseconds(80), .milliseconds(160)])
    }

    @Test("jitter stays within ±10 % and varies with the generator")
    func jitterBounds() {
        var rng = SplitMix64(seed: 42)
        let policy = RetryPolicy.default
        var seen = Set<Duration>()
        for attempt in 1...5 {
            let nominal = policy.nominalDelaySeconds(afterAttempt: attempt)
            for _ in 0..<200 {
                let d = policy.delay(afterAttempt: attempt, using: &rng)
                let ms = Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
                #expect(ms >= nominal * 900 - 1 && ms <= nominal * 1100 + 1)
                seen.insert(d)
            }
        }
        #expect(seen.count > 100)
    }

    @Test("the same seed gives the same delays")
    func reproducible() {
        var a = SplitMix64(seed: 7), b = SplitMix64(seed: 7)
        let policy = RetryPolicy.default
        #expect((1...5).map { policy.delay(afterAttempt: $0, using: &a) } == (1...5).map { policy.delay(afterAttempt: $0, using: &b) })
    }

    @Test("Retry-After replaces the backoff, without jitter, capped at the maximum delay")
    func retryAfter() {
        var rng = SplitMix64(seed: 3)
        let policy = RetryPolicy.default
        #expect(policy.delay(afterAttempt: 1, retryAfterSeconds: 7, using: &rng) == .seconds(7))
        #expect(policy.delay(afterAttempt: 4, retryAfterSeconds: 0, using: &rng) == .zero)
        #expect(policy.delay(afterAttempt: 1, retryAfterSeconds: 86_400, using: &rng) == .seconds(300))
    }

    @Test("Retry-After header values", arguments: [
        ("120", 120.0), (" 3 ", 3.0), ("0.05", 0.05), ("0", 0.0),
    ])
    func retryAfterParsing(value: String, seconds: Double) {
        #expect(RetryAfter.seconds(value) == seconds)
    }

    @Test("unusable Retry-After values fall back to the backoff", arguments: [
        "", "soon", "-1", "Wed, 21 Oct 2015 07:28:00 GMT", "inf", "nan",
    ])
    func retryAfterRejected(value: String) {
        #expect(RetryAfter.seconds(value) == nil)
    }

    @Test("attempt limit: 5 attempts allow retries after the first four")
    func attemptLimit() {
        let policy = RetryPolicy.default
        #expect((1...6).map(policy.allowsRetry(afterAttempt:)) == [true, true, true, true, false, false])
        #expect(RetryPolicy(maxAttempts: 0).maxAttempts == 1)
    }
}

@Suite("Upload outcome classification")
struct UploadOutcomeTests {
    @Test("408, 425 and the 5xx other than 502/503/504 are retried for the interval", arguments: [408, 425, 500, 501, 505])
    func transient(status: Int) {
        let outcome = UploadOutcome.rejected(status: status, message: "busy", retryAfterSeconds: nil)
        #expect(outcome.classification == .transient("HTTP \(status): busy"))
    }

    @Test("429, 502, 503 and 504 speak for the whole sink, with the Retry-After of 429 and 503", arguments: [429, 502, 503, 504])
    func serverLevel(status: Int) {
        let outcome = UploadOutcome.rejected(status: status, message: "busy", retryAfterSeconds: 7)
        let retryAfter: Double? = status == 429 || status == 503 ? 7 : nil
        #expect(outcome.classification
            == .serverUnavailable(SinkFailure(.unavailable(status: status), detail: "busy", retryAfterSeconds: retryAfter)))
    }

    @Test("401 and 403 refuse the client itself: a failure of the whole run, which stops at once", arguments: [401, 403])
    func refusedClient(status: Int) {
        let outcome = UploadOutcome.rejected(status: status, message: "this sink needs Authorization: Bearer <token>",
                                             retryAfterSeconds: nil)
        let failure = SinkFailure(.refused(status: status), detail: "this sink needs Authorization: Bearer <token>")
        #expect(outcome.classification == .serverUnavailable(failure))
        #expect(failure.isFatal)
        #expect(failure.message(server: "http://h:1").contains("check --token"))
    }

    @Test("other 4xx fail with the server's message", arguments: [400, 404, 409, 422])
    func permanent(status: Int) {
        let outcome = UploadOutcome.rejected(status: status, message: "sample 3: endDate before startDate",
                                             retryAfterSeconds: nil)
        #expect(outcome.classification == .permanent("HTTP \(status): sample 3: endDate before startDate"))
    }

    @Test("an unreachable sink is the server's failure; a request that got no answer is retried; acks succeed")
    func transport() {
        #expect(UploadOutcome.unreachable("connection refused").classification
            == .serverUnavailable(SinkFailure(.unreachable, detail: "connection refused")))
        #expect(UploadOutcome.transportFailure("no answer in time").classification == .transient("no answer in time"))
        #expect(UploadOutcome.accepted(.init(saved: 1, inserted: 1, duplicates: 0)).classification == .success)
    }

    @Test("a refusal naming one sample is permanent for the request, with the sink's message")
    func refusedSample() {
        let refusal = SampleRefusal(status: 400, index: 3, reason: "negative_value", field: "count",
                                    message: "sample 3: field \"count\" -2.0 is negative")
        #expect(UploadOutcome.refusedSample(refusal).classification
            == .permanent("HTTP 400: sample 3: field \"count\" -2.0 is negative"))
    }

    @Test("Retry-After is honoured on 429 and 503 only")
    func retryAfterOnlyFor429And503() {
        #expect(UploadOutcome.rejected(status: 429, message: "", retryAfterSeconds: 4).retryAfterSeconds == 4)
        #expect(UploadOutcome.rejected(status: 503, message: "", retryAfterSeconds: 4).retryAfterSeconds == 4)
        #expect(UploadOutcome.rejected(status: 500, message: "", retryAfterSeconds: 4).retryAfterSeconds == nil)
    }
}
