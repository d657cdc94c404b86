import StepSyncCore
import Testing

/// One request's decisions, as tables: each script starts a fresh ``RequestSendMachine`` of some samples and feeds it
/// events one row at a time; each row names the action the event must return and the state the machine must then be
/// in. No concurrency, no clock, no sleep: a wait is an action, its end an event.
@Suite("Request send machine: one request's decisions (parts, retries, refused samples, ends)")
struct RequestSendMachineTests {
    typealias Machine = RequestSendMachine

    // MARK: - Fixtures

    static let ack10 = SinkAcknowledgement(saved: 10, inserted: 8, duplicates: 2)
    static let ack4 = SinkAcknowledgement(saved: 4, inserted: 4, duplicates: 0)
    static let ack6 = SinkAcknowledgement(saved: 6, inserted: 5, duplicates: 1)
    /// `ack4` and `ack6` added up.
    static let ack4and6 = SinkAcknowledgement(saved: 10, inserted: 9, duplicates: 1)
    static let none = SinkAcknowledgement(saved: 0, inserted: 0, duplicates: 0)
    static let serverError = UploadOutcome.rejected(status: 500, message: "oops", retryAfterSeconds: nil)
    static let tooLarge = UploadOutcome.rejected(status: 413, message: "too large", retryAfterSeconds: nil)
    static let refusal = SampleRefusal(status: 400, index: 2, reason: "negative_value", field: "count",
                                       message: "sample 2: bad")
    static let refusedWhole = SinkFailure(.unreachable, detail: "connection refused")
    /// 2 s doubling, no jitter, three attempts.
    static let policy = RetryPolicy(maxAttempts: 3, baseSeconds: 2, jitter: 0)

    static func answered(_ outcome: UploadOutcome, _ part: Range<Int>, bytes: Int = 1_000,
                         stopping: Bool = false) -> Machine.Event {
        .answered(outcome, part: part, bodyBytes: bytes, stopping: stopping)
    }

    /// One row: the event, the action it must return, the state after it.
    struct Row: Sendable {
        var event: Machine.Event
        var action: Machine.Action
        var state: Machine.State

        init(_ event: Machine.Event, _ action: Machine.Action, _ state: Machine.State) {
            (self.event, self.action, self.state) = (event, action, state)
        }
    }

    /// A request from its start: its samples, the action ``RequestSendMachine/start()`` must return, the rows, and
    /// what it must have acknowledged at the end.
    struct Script: Sendable, CustomTestStringConvertible {
        var name: String
        var count: Int
        var splittable = true
        var endpointOptional = false
        var start: Machine.Action
        var rows: [Row]
        var acknowledged: Int
        var remaining: Int

        var testDescription: String { name }
    }

    // MARK: - Scripts

    static let scripts: [Script] = [
        Script(name: "a whole body acknowledged is marked synced", count: 10, start: .send(from: 0), rows: [
            Row(answered(.accepted(ack10), 0..<10), .markSynced(count: 10, total: ack10), .done),
        ], acknowledged: 10, remaining: 10),
        Script(name: "no samples left to send: marked synced without a request", count: 0,
               start: .markSynced(count: 0, total: none), rows: [], acknowledged: 0, remaining: 0),
        Script(name: "a body cut in two parts: the second is sent from the first's end, the acks add up", count: 10,
               start: .send(from: 0), rows: [
                   Row(answered(.accepted(ack4), 0..<4), .send(from: 4), .sending),
                   Row(answered(.accepted(ack6), 4..<10), .markSynced(count: 10, total: ack4and6), .done),
               ], acknowledged: 10, remaining: 10),
        Script(name: "a stop between the parts puts the request back to pending", count: 10, start: .send(from: 0),
               rows: [
                   Row(answered(.accepted(ack4), 0..<4, stopping: true),
                       .requeue("paused between the parts of a split request"), .done),
               ], acknowledged: 4, remaining: 10),
        Script(name: "the last part acknowledged while stopping still marks synced", count: 10,
               start: .send(from: 0), rows: [
                   Row(answered(.accepted(ack10), 0..<10, stopping: true), .markSynced(count: 10, total: ack10), .done),
               ], acknowledged: 10, remaining: 10),
        Script(name: "a 413 lowers the limit, then the rest is sent from the samples acknowledged", count: 10,
               start: .send(from: 0), rows: [
                   Row(answered(.accepted(ack4), 0..<4), .send(from: 4), .sending),
                   Row(answered(tooLarge, 4..<10, bytes: 6_000), .split("HTTP 413: too large", bodyBytes: 6_000),
                       .splitting),
                   Row(.limitLowered, .send(from: 4), .sending),
                   Row(answered(.accepted(ack6), 4..<10), .markSynced(count: 10, total: ack4and6), .done),
               ], acknowledged: 10, remaining: 10),
        Script(name: "a 413 of one sample fails the request", count: 1, start: .send(from: 0), rows: [
            Row(answered(tooLarge, 0..<1),
                .markFailed("HTTP 413: too large (one sample alone is over the body limit of the sink or a proxy in front of it)",
                            sends: 1), .done),
        ], acknowledged: 0, remaining: 1),
        Script(name: "transient faults wait 2 s, 4 s, then fail after the third send", count: 10,
               start: .send(from: 0), rows: [
                   Row(answered(serverError, 0..<10), .retry(after: .seconds(2), reason: "HTTP 500: oops"),
                       .waiting(reason: "HTTP 500: oops")),
                   Row(.waitEnded(completed: true), .send(from: 0), .sending),
                   Row(answered(serverError, 0..<10), .retry(after: .seconds(4), reason: "HTTP 500: oops"),
                       .waiting(reason: "HTTP 500: oops")),
                   Row(.waitEnded(completed: true), .send(from: 0), .sending),
                   Row(answered(serverError, 0..<10), .markFailed("gave up after 3 attempts: HTTP 500: oops", sends: 3),
                       .done),
               ], acknowledged: 0, remaining: 10),
        Script(name: "a stop during a retry's wait puts the request back, saying why", count: 10,
               start: .send(from: 0), rows: [
                   Row(answered(serverError, 0..<10), .retry(after: .seconds(2), reason: "HTTP 500: oops"),
                       .waiting(reason: "HTTP 500: oops")),
                   Row(.waitEnded(completed: false), .requeue("HTTP 500: oops (paused during a retry wait)"), .done),
               ], acknowledged: 0, remaining: 10),
        Script(name: "a transient fault while stopping puts the request back at once", count: 10,
               start: .send(from: 0), rows: [
                   Row(answered(.transportFailure("reset"), 0..<10, stopping: true), .requeue("reset"), .done),
               ], acknowledged: 0, remaining: 10),
        Script(name: "a refused sample of the second part is dropped at its index in the payload, the rest resent",
               count: 10, start: .send(from: 0), rows: [
                   Row(answered(.accepted(ack4), 0..<4), .send(from: 4), .sending),
                   Row(answered(.refusedSample(refusal), 4..<10), .dropSample(at: 6, refusal), .dropping(refusal)),
                   Row(.sampleDropped(found: true), .send(from: 4), .sending),
                   Row(answered(.accepted(SinkAcknowledgement(saved: 5, inserted: 5, duplicates: 0)), 4..<9),
                       .markSynced(count: 9, total: SinkAcknowledgement(saved: 9, inserted: 9, duplicates: 0)), .done),
               ], acknowledged: 9, remaining: 9),
        Script(name: "the last sample left refused and dropped: marked synced with what was acknowledged", count: 5,
               start: .send(from: 0), rows: [
                   Row(answered(.accepted(ack4), 0..<4), .send(from: 4), .sending),
                   Row(answered(.refusedSample(SampleRefusal(status: 400, index: 0, reason: "r", field: nil,
                                                             message: "m")), 4..<5),
                       .dropSample(at: 4, SampleRefusal(status: 400, index: 0, reason: "r", field: nil, message: "m")),
                       .dropping(SampleRefusal(status: 400, index: 0, reason: "r", field: nil, message: "m"))),
                   Row(.sampleDropped(found: true), .markSynced(count: 4, total: ack4), .done),
               ], acknowledged: 4, remaining: 4),
        Script(name: "a refused index that is none of the body's samples fails the request", count: 2,
               start: .send(from: 0), rows: [
                   Row(answered(.refusedSample(refusal), 0..<2), .dropSample(at: 2, refusal), .dropping(refusal)),
                   Row(.sampleDropped(found: false), .markFailed("HTTP 400: sample 2: bad", sends: 1), .done),
               ], acknowledged: 0, remaining: 2),
        Script(name: "a hostile index past Int.max is no index (no overflow)", count: 10, start: .send(from: 0), rows: [
            Row(answered(.accepted(ack4), 0..<4), .send(from: 4), .sending),
            Row(answered(.refusedSample(SampleRefusal(status: 400, index: .max, reason: "r", field: nil, message: "m")),
                         4..<10),
                .dropSample(at: -1, SampleRefusal(status: 400, index: .max, reason: "r", field: nil, message: "m")),
                .dropping(SampleRefusal(status: 400, index: .max, reason: "r", field: nil, message: "m"))),
        ], acknowledged: 4, remaining: 10),
        Script(name: "the sink down hands the request to the run's wait for the sink", count: 10,
               start: .send(from: 0), rows: [
                   Row(answered(.unreachable("connection refused"), 0..<10), .yieldToSink(refusedWhole), .done),
               ], acknowledged: 0, remaining: 10),
        Script(name: "a 4xx fails at once with the sink's message", count: 10, start: .send(from: 0), rows: [
            Row(answered(.rejected(status: 400, message: "bad", retryAfterSeconds: nil), 0..<10),
                .markFailed("HTTP 400: bad", sends: 1), .done),
        ], acknowledged: 0, remaining: 10),
        Script(name: "a 404 to an endpoint a sink may not serve: the endpoint is missing, nothing fails", count: 10,
               endpointOptional: true, start: .send(from: 0), rows: [
                   Row(answered(.rejected(status: 404, message: "Not Found", retryAfterSeconds: nil), 0..<10),
                       .endpointMissing("HTTP 404: Not Found"), .done),
               ], acknowledged: 0, remaining: 10),
        Script(name: "a 405 to /steps (every sink serves it) fails as any 4xx", count: 10, start: .send(from: 0), rows: [
            Row(answered(.rejected(status: 405, message: "no", retryAfterSeconds: nil), 0..<10),
                .markFailed("HTTP 405: no", sends: 1), .done),
        ], acknowledged: 0, remaining: 10),
        Script(name: "deletions go whole: their ack covers every uuid", count: 7,
               splittable: false, start: .send(from: 0), rows: [
                   Row(answered(.accepted(SinkAcknowledgement(saved: 7, inserted: 0, duplicates: 0, deleted: 6)), 0..<7),
                       .markSynced(count: 7, total: SinkAcknowledgement(saved: 7, inserted: 0, duplicates: 0, deleted: 6)),
                       .done),
               ], acknowledged: 7, remaining: 7),
    ]

    @Test("each event returns the action and leaves the state the table says", arguments: scripts)
    func table(_ script: Script) {
        var machine = Machine(count: script.count, splittable: script.splittable,
                              endpointOptional: script.endpointOptional, policy: Self.policy, seed: 1)
        #expect(machine.start() == script.start)
        for (n, row) in script.rows.enumerated() {
            #expect(machine.handle(row.event) == row.action, "row \(n + 1): \(row.event)")
            #expect(machine.state == row.state, "row \(n + 1): \(row.event)")
        }
        #expect(machine.acknowledged == script.acknowledged)
        #expect(machine.count == script.remaining)
    }

    @Test("a 413 of a deletions body (never cut) fails rather than splitting")
    func deletionsTooLarge() {
        var machine = Machine(count: 7, splittable: false, endpointOptional: false, policy: Self.policy, seed: 1)
        #expect(machine.start() == .send(from: 0))
        #expect(machine.handle(Self.answered(Self.tooLarge, 0..<7)) == .markFailed(
            "HTTP 413: too large (one sample alone is over the body limit of the sink or a proxy in front of it)",
            sends: 1))
    }

    @Test("each part gets its own attempts: a fault of the second part starts from the first backoff")
    func attemptsPerPart() {
        var machine = Machine(count: 10, splittable: true, endpointOptional: false, policy: Self.policy, seed: 1)
        _ = machine.start()
        #expect(machine.handle(Self.answered(Self.serverError, 0..<4)) == .retry(after: .seconds(2), reason: "HTTP 500: oops"))
        #expect(machine.handle(.waitEnded(completed: true)) == .send(from: 0))
        #expect(machine.handle(Self.answered(.accepted(Self.ack4), 0..<4)) == .send(from: 4))
        #expect(machine.attempts == 0)
        #expect(machine.handle(Self.answered(Self.serverError, 4..<10)) == .retry(after: .seconds(2), reason: "HTTP 500: oops"))
        #expect(machine.attempts == 1)
    }
}
