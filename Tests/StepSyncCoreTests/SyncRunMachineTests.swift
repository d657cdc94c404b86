import Foundation
import StepSyncCore
import Testing

/// The sync run's decisions, as tables: each script starts a fresh ``SyncRunMachine`` and feeds it events, one step at
/// a time (the state is what the steps before made it); each step names the actions it must return, and the script
/// the state it must end in. No concurrency, no clock, no sleep: the time is a number each step gives.
@Suite("Sync run machine: the sync loop's decisions")
struct SyncRunMachineTests {
    typealias Machine = SyncRunMachine
    typealias Event = SyncRunMachine.Event

    // MARK: - Fixtures

    static let ack = SinkAcknowledgement(saved: 3, inserted: 3, duplicates: 0)
    static let refused = SinkFailure(.unreachable, detail: "connection refused")
    static let untrusted = SinkFailure(.untrusted, detail: "self-signed certificate")
    static let unauthorised = SinkFailure(.refused(status: 401), detail: "unknown token")
    /// 2 s doubling, no jitter, give up after 10 s of one outage.
    static let outage = SinkOutageMachine.Policy(baseSeconds: 2, maxDelaySeconds: 30, jitter: 0, giveUpAfterSeconds: 10)

    /// Interval `id`: 10 samples of `type`.
    static func interval(_ id: Int64, _ type: SampleType = .stepCount, kind: IntervalKind = .samples,
                         samples: Int = 10) -> SyncInterval {
        SyncInterval(id: id, type: type, range: TimeRange(start: id * 1_000, end: (id + 1) * 1_000), kind: kind,
                     steps: 0, samples: samples)
    }

    /// Step-count intervals `ids`.
    static func steps(_ ids: ClosedRange<Int64>) -> [SyncInterval] { ids.map { interval($0) } }

    static func synced(_ intervals: Int = 1) -> Event {
        .requestEnded(.synced(.samples, intervals: intervals, count: 3 * intervals, ack))
    }

    static func unavailable(_ ids: Int64..., failure: SinkFailure = refused) -> Event {
        .requestEnded(.sinkUnavailable(ids.map { interval($0) }, failure))
    }

    static func config(concurrency: Int = 2, pack: Int = 0, probe: Bool = false) -> Machine.Configuration {
        .init(concurrency: concurrency, maxSamplesPerRequest: pack, outagePolicy: outage, probeFirst: probe)
    }

    /// One event, with the stop requests made so far and the time (seconds since the run began), and the actions it
    /// must return (as ``summary(_:)`` writes them).
    struct Step: Sendable {
        var event: Event
        var stop: Int
        var at: Double
        var expected: [String]

        init(_ event: Event, stop: Int = 0, at: Double = 0, _ expected: [String]) {
            self.event = event
            self.stop = stop
            self.at = at
            self.expected = expected
        }
    }

    /// The counts a script ends with.
    struct Counts: Hashable, Sendable {
        var done = 0
        var synced = 0
        var failed = 0
        var requeued = 0
        var skipped = 0

        init(done: Int = 0, synced: Int = 0, failed: Int = 0, requeued: Int = 0, skipped: Int = 0) {
            (self.done, self.synced, self.failed) = (done, synced, failed)
            (self.requeued, self.skipped) = (requeued, skipped)
        }

        init(_ tally: Machine.Tally) {
            self.init(done: tally.done, synced: tally.synced, failed: tally.failed, requeued: tally.requeued,
                      skipped: tally.skipped)
        }
    }

    /// A run from the start: the machine's settings and queue, the steps, and the state it ends in.
    struct Script: Sendable, CustomTestStringConvertible {
        var name: String
        var configuration: Machine.Configuration
        var queue: [SyncInterval]
        var steps: [Step]
        var phase: Machine.Phase
        var inFlight = 0
        /// The ids of the intervals not yet taken.
        var queued: [Int64] = []
        var counts: Counts

        var testDescription: String { name }
    }

    /// One action as a short line: `send 1,2`, `wait 2s`, `progress 1/3`, `give up after 10s`.
    static func summary(_ action: Machine.Action) -> String {
        func seconds(_ value: Double) -> String {
            value == value.rounded() ? "\(Int(value))s" : "\(value)s"
        }
        switch action {
        case .send(let batch, _): return "send " + batch.map { "\($0.id)" }.joined(separator: ",")
        case .probeSink: return "probe"
        case .waitForSink(let delay, _): return "wait \(seconds(delay.inSeconds))"
        case .watchStop(let count): return "watch stop \(count)"
        case .stopping(let inFlight): return "stopping (\(inFlight) in flight)"
        case .cancelInFlight(let inFlight): return "cancel \(inFlight)"
        case .giveUp(_, let after): return "give up after \(seconds(after))"
        case .endpointUnsupported(let interval, _): return "unsupported \(interval.id)"
        case .progress(let progress):
            let wait = progress.serverWait.map { " waiting \(seconds($0.delay.inSeconds))" } ?? ""
            return "progress \(progress.done)/\(progress.total)" + wait
        case .finish: return "finish"
        }
    }

    /// Runs `script`'s steps on a fresh machine, checking each step's actions; returns the machine.
    @discardableResult
    static func play(_ script: Script) -> Machine {
        var machine = Machine(queue: script.queue, configuration: script.configuration, randomSeed: 1)
        for (n, step) in script.steps.enumerated() {
            let actions = machine.handle(step.event, stopRequests: step.stop,
                                         at: .milliseconds(Int64((step.at * 1000).rounded())))
            #expect(actions.map(summary) == step.expected, "step \(n + 1): \(step.event)")
        }
        #expect(machine.phase == script.phase)
        #expect(machine.inFlight == script.inFlight)
        #expect(machine.queued.map(\.id) == script.queued)
        #expect(Counts(machine.tally) == script.counts)
        return machine
    }

    // MARK: - Sending

    static let sending: [Script] = [
        Script(name: "normal flow: three intervals, two at a time, each end tops up, the last finishes",
               configuration: config(), queue: steps(1...3), steps: [
                   Step(.started, ["watch stop 1", "send 1", "send 2"]),
                   Step(synced(), at: 1, ["progress 1/3", "send 3"]),
                   Step(synced(), at: 2, ["progress 2/3"]),
                   Step(synced(), at: 3, ["progress 3/3", "finish"]),
               ], phase: .finished, counts: Counts(done: 3, synced: 3)),
        Script(name: "the sink is probed before the first request; its answer starts the sends, without a progress",
               configuration: config(concurrency: 3, probe: true), queue: steps(1...2), steps: [
                   Step(.started, ["watch stop 1", "probe"]),
                   Step(.probed(nil), at: 0.1, ["send 1", "send 2"]),
                   Step(synced(), at: 1, ["progress 1/2"]),
                   Step(synced(), at: 1, ["progress 2/2", "finish"]),
               ], phase: .finished, counts: Counts(done: 2, synced: 2)),
        Script(name: "an empty queue is probed too (the engine's probe checks the token and the sink), then finishes",
               configuration: config(probe: true), queue: [], steps: [
                   Step(.started, ["watch stop 1", "probe"]),
                   Step(.probed(nil), at: 0.1, ["finish"]),
               ], phase: .finished, counts: Counts()),
        Script(name: "an empty queue without the first probe finishes at once",
               configuration: config(probe: false), queue: [], steps: [
                   Step(.started, ["watch stop 1", "finish"]),
               ], phase: .finished, counts: Counts()),
        Script(name: "concurrency 1: one request at a time, the next only when the one in flight ends",
               configuration: config(concurrency: 1), queue: steps(1...3), steps: [
                   Step(.started, ["watch stop 1", "send 1"]),
                   Step(synced(), at: 1, ["progress 1/3", "send 2"]),
                   Step(synced(), at: 2, ["progress 2/3", "send 3"]),
                   Step(synced(), at: 3, ["progress 3/3", "finish"]),
               ], phase: .finished, counts: Counts(done: 3, synced: 3)),
        Script(name: "the limit holds whatever ends: a failure or an interval no longer pending frees one slot each",
               configuration: config(concurrency: 2), queue: steps(1...5), steps: [
                   Step(.started, ["watch stop 1", "send 1", "send 2"]),
                   Step(.requestEnded(.failed), at: 1, ["progress 1/5", "send 3"]),
                   Step(.requestEnded(.notPending, notPending: 1), at: 2, ["progress 2/5", "send 4"]),
               ], phase: .sending, inFlight: 2, queued: [5], counts: Counts(done: 2, failed: 1)),
        Script(name: "packing: small intervals of one type share a request up to the bound; other types and "
                   + "deletions go alone",
               configuration: config(concurrency: 9, pack: 25),
               queue: steps(1...3) + [interval(4, .heartRate), interval(5, kind: .deletions)], steps: [
                   Step(.started, ["watch stop 1", "send 1,2", "send 3", "send 4", "send 5"]),
                   Step(synced(2), at: 1, ["progress 2/5"]),
               ], phase: .sending, inFlight: 3, counts: Counts(done: 2, synced: 2)),
        Script(name: "a packed request that failed permanently: its intervals come back and each goes alone",
               configuration: config(concurrency: 1, pack: 100), queue: steps(1...3), steps: [
                   Step(.started, ["watch stop 1", "send 1,2,3"]),
                   Step(.requestEnded(.split(steps(1...3))), at: 1, ["progress 0/3", "send 1"]),
                   Step(.requestEnded(.failed), at: 2, ["progress 1/3", "send 2"]),
                   Step(synced(), at: 3, ["progress 2/3", "send 3"]),
                   Step(synced(), at: 4, ["progress 3/3", "finish"]),
               ], phase: .finished, counts: Counts(done: 3, synced: 2, failed: 1)),
        Script(name: "a request put back (its retry's wait cut short by a stop) counts as done and is not resent",
               configuration: config(concurrency: 1), queue: steps(1...2), steps: [
                   Step(.started, ["watch stop 1", "send 1"]),
                   Step(.stopSignalled(count: 1), stop: 1, at: 1, ["stopping (1 in flight)", "watch stop 2"]),
                   Step(.requestEnded(.requeued(1)), stop: 1, at: 1, ["progress 1/2", "finish"]),
               ], phase: .finished, queued: [2], counts: Counts(done: 1, requeued: 1)),
        Script(name: "the sink does not serve /samples: every interval of it stays pending, step counts go on",
               configuration: config(concurrency: 1),
               queue: [interval(1, .heartRate), interval(2, .heartRate), interval(3), interval(4, .sleepAnalysis),
                       interval(5, .heartRate, kind: .deletions)],
               steps: [
                   Step(.started, ["watch stop 1", "send 1"]),
                   Step(.requestEnded(.endpointMissing(interval(1, .heartRate), message: "HTTP 404: not found",
                                                       intervals: 1)),
                        at: 1, ["unsupported 1", "progress 1/5", "send 3"]),
                   Step(synced(), at: 2, ["progress 3/5", "send 5"]),
                   Step(synced(), at: 3, ["progress 5/5", "finish"]),
               ], phase: .finished, counts: Counts(done: 5, synced: 2, skipped: 3)),
    ]

    @Test("sending: the queue, the concurrency limit, packing, requeues", arguments: sending)
    func send(_ script: Script) {
        Self.play(script)
    }

    // MARK: - Waiting for the sink

    static let waiting: [Script] = [
        Script(name: "sink down → the wait starts once nothing is in flight → probe → the run resumes, the put-back "
                   + "intervals last",
               configuration: config(), queue: steps(1...3), steps: [
                   Step(.started, ["watch stop 1", "send 1", "send 2"]),
                   Step(unavailable(1), at: 1, ["progress 0/3"]),
                   Step(unavailable(2), at: 1.5, ["progress 0/3", "wait 2s", "progress 0/3 waiting 2s"]),
                   Step(.waitEnded(completed: true), at: 3.5, ["probe"]),
                   Step(.probed(nil), at: 3.5, ["progress 0/3", "send 3", "send 1"]),
                   Step(synced(), at: 4, ["progress 1/3", "send 2"]),
                   Step(synced(), at: 4, ["progress 2/3"]),
                   Step(synced(), at: 4, ["progress 3/3", "finish"]),
               ], phase: .finished, counts: Counts(done: 3, synced: 3)),
        Script(name: "an answer to a request in flight ends the outage: sending resumes without a wait",
               configuration: config(), queue: steps(1...3), steps: [
                   Step(.started, ["watch stop 1", "send 1", "send 2"]),
                   Step(unavailable(1), at: 1, ["progress 0/3"]),
                   Step(synced(), at: 1, ["progress 1/3", "send 3", "send 1"]),
               ], phase: .sending, inFlight: 2, counts: Counts(done: 1, synced: 1)),
        Script(name: "give up after the outage budget: waits of 2, 4 s, the last cut to the deadline, then give up at "
                   + "10 s with every interval pending",
               configuration: config(probe: true), queue: steps(1...2), steps: [
                   Step(.started, ["watch stop 1", "probe"]),
                   Step(.probed(refused), ["wait 2s", "progress 0/2 waiting 2s"]),
                   Step(.waitEnded(completed: true), at: 2, ["probe"]),
                   Step(.probed(refused), at: 2, ["wait 4s", "progress 0/2 waiting 4s"]),
                   Step(.waitEnded(completed: true), at: 6, ["probe"]),
                   Step(.probed(refused), at: 6, ["wait 4s", "progress 0/2 waiting 4s"]),
                   Step(.waitEnded(completed: true), at: 10, ["probe"]),
                   Step(.probed(refused), at: 10, ["give up after 10s", "finish"]),
               ], phase: .finished, queued: [1, 2], counts: Counts()),
        Script(name: "a probe that answers while every request still fails: the outage's clock keeps running",
               configuration: config(concurrency: 1), queue: steps(1...2), steps: [
                   Step(.started, ["watch stop 1", "send 1"]),
                   Step(unavailable(1), at: 1, ["progress 0/2", "wait 2s", "progress 0/2 waiting 2s"]),
                   Step(.waitEnded(completed: true), at: 3, ["probe"]),
                   Step(.probed(nil), at: 3, ["progress 0/2", "send 2"]),
                   Step(unavailable(2), at: 4, ["progress 0/2", "wait 4s", "progress 0/2 waiting 4s"]),
                   Step(.waitEnded(completed: true), at: 8, ["probe"]),
                   Step(.probed(nil), at: 8, ["progress 0/2", "send 1"]),
                   Step(unavailable(1), at: 11, ["progress 0/2", "give up after 10s", "finish"]),
               ], phase: .finished, queued: [2, 1], counts: Counts()),
        Script(name: "a fatal failure (an untrusted certificate) stops everything once the requests in flight end, "
                   + "with the rest pending",
               configuration: config(), queue: steps(1...4), steps: [
                   Step(.started, ["watch stop 1", "send 1", "send 2"]),
                   Step(unavailable(1, failure: untrusted), at: 1, ["progress 0/4"]),
                   Step(unavailable(2, failure: untrusted), at: 1, ["progress 0/4", "give up after 0s", "finish"]),
               ], phase: .finished, queued: [3, 4, 1, 2], counts: Counts()),
        Script(name: "a fatal first probe (the token is refused) gives up before anything is sent",
               configuration: config(probe: true), queue: steps(1...3), steps: [
                   Step(.started, ["watch stop 1", "probe"]),
                   Step(.probed(unauthorised), at: 0.2, ["give up after 0s", "finish"]),
               ], phase: .finished, queued: [1, 2, 3], counts: Counts()),
    ]

    @Test("waiting for the sink: wait, probe, resume, give up", arguments: waiting)
    func wait(_ script: Script) {
        Self.play(script)
    }

    // MARK: - Stopping

    static let stopping: [Script] = [
        Script(name: "stop mid-flight: the requests in flight finish, nothing new starts",
               configuration: config(), queue: steps(1...4), steps: [
                   Step(.started, ["watch stop 1", "send 1", "send 2"]),
                   Step(.stopSignalled(count: 1), stop: 1, at: 1, ["stopping (2 in flight)", "watch stop 2"]),
                   Step(synced(), stop: 1, at: 2, ["progress 1/4"]),
                   Step(unavailable(2), stop: 1, at: 2, ["progress 2/4", "finish"]),
               ], phase: .finished, queued: [3, 4], counts: Counts(done: 2, synced: 1, requeued: 1)),
        Script(name: "a stop seen before its watcher reports it: nothing new starts, the watcher then watches for the "
                   + "second",
               configuration: config(), queue: steps(1...4), steps: [
                   Step(.started, ["watch stop 1", "send 1", "send 2"]),
                   Step(synced(), stop: 1, at: 1, ["progress 1/4", "stopping (1 in flight)"]),
                   Step(.stopSignalled(count: 1), stop: 1, at: 1, ["watch stop 2"]),
                   Step(synced(), stop: 1, at: 2, ["progress 2/4", "finish"]),
               ], phase: .finished, queued: [3, 4], counts: Counts(done: 2, synced: 2)),
        Script(name: "a stop during the wait for the sink ends the run at once",
               configuration: config(probe: true), queue: steps(1...2), steps: [
                   Step(.started, ["watch stop 1", "probe"]),
                   Step(.probed(refused), ["wait 2s", "progress 0/2 waiting 2s"]),
                   Step(.waitEnded(completed: false), stop: 1, at: 0.5,
                        ["progress 0/2", "stopping (0 in flight)", "finish"]),
               ], phase: .finished, queued: [1, 2], counts: Counts()),
        Script(name: "a stop before the run starts: no probe, nothing sent",
               configuration: config(probe: true), queue: steps(1...2), steps: [
                   Step(.started, stop: 1, ["watch stop 1", "stopping (0 in flight)", "finish"]),
               ], phase: .finished, queued: [1, 2], counts: Counts()),
        Script(name: "cancellation: the second stop cancels the requests in flight; they come back put back",
               configuration: config(), queue: steps(1...3), steps: [
                   Step(.started, ["watch stop 1", "send 1", "send 2"]),
                   Step(.stopSignalled(count: 1), stop: 1, at: 1, ["stopping (2 in flight)", "watch stop 2"]),
                   Step(.stopSignalled(count: 2), stop: 2, at: 2, ["cancel 2"]),
                   Step(.requestEnded(.requeued(1)), stop: 2, at: 2, ["progress 1/3"]),
                   Step(.requestEnded(.requeued(1)), stop: 2, at: 2, ["progress 2/3", "finish"]),
               ], phase: .finished, queued: [3], counts: Counts(done: 2, requeued: 2)),
        Script(name: "two stops at once: stopping and cancelling together, and no watcher for a second stop",
               configuration: config(), queue: steps(1...3), steps: [
                   Step(.started, ["watch stop 1", "send 1", "send 2"]),
                   Step(.stopSignalled(count: 1), stop: 2, at: 1, ["stopping (2 in flight)", "cancel 2"]),
                   Step(.requestEnded(.requeued(1)), stop: 2, at: 1, ["progress 1/3"]),
                   Step(.requestEnded(.requeued(1)), stop: 2, at: 1, ["progress 2/3", "finish"]),
               ], phase: .finished, queued: [3], counts: Counts(done: 2, requeued: 2)),
    ]

    @Test("stopping and cancelling", arguments: stopping)
    func stop(_ script: Script) {
        Self.play(script)
    }

    // MARK: - The tally

    @Test("the tally: waits timed, give-up kept, samples and deletions counted apart, the unsupported endpoint once")
    func tally() {
        var machine = Machine(queue: Self.steps(1...2) + [Self.interval(3, kind: .deletions)],
                              configuration: Self.config(concurrency: 1), randomSeed: 1)
        _ = machine.handle(.started, stopRequests: 0, at: .zero)
        _ = machine.handle(Self.unavailable(1), stopRequests: 0, at: .seconds(1))
        _ = machine.handle(.waitEnded(completed: true), stopRequests: 0, at: .seconds(3))
        let resumed = machine.handle(.probed(nil), stopRequests: 0, at: .seconds(3))
        #expect(resumed.map(Self.summary) == ["progress 0/3", "send 2"])
        _ = machine.handle(Self.synced(), stopRequests: 0, at: .seconds(4))
        let ended = machine.handle(.requestEnded(.synced(.samples, intervals: 1, count: 5,
                                                         SinkAcknowledgement(saved: 5, inserted: 4, duplicates: 1))),
                                   stopRequests: 0, at: .seconds(5))
        guard case .progress(let progress) = ended.first else {
            Issue.record("no progress first: \(ended)")
            return
        }
        // 5 s since the start, 2 of them waiting for the sink.
        #expect(progress.elapsed == .seconds(5) && progress.activeSeconds == 3 && progress.samplesSent == 8)
        #expect(progress.done == 2 && progress.synced == 2 && progress.serverWait == nil)
        let deletion = SinkAcknowledgement(saved: 0, inserted: 0, duplicates: 0, deleted: 6)
        _ = machine.handle(.requestEnded(.synced(.deletions, intervals: 1, count: 7, deletion)), stopRequests: 0,
                           at: .seconds(6))
        let tally = machine.tally
        #expect(machine.isFinished && tally.serverWaits == 1 && tally.serverWaitSeconds == 2)
        #expect(tally.samples == 8 && tally.inserted == 7 && tally.duplicates == 1)
        #expect(tally.deletionsSent == 7 && tally.deleted == 6 && tally.gaveUp == nil && !tally.stopped)
    }

    @Test("rejected samples are counted once however often their interval is sent, and listed up to the limit")
    func rejectedOnce() {
        var machine = Machine(queue: Self.steps(1...3),
                              configuration: .init(concurrency: 1, maxSamplesPerRequest: 0, probeFirst: false,
                                                   maxListedRejections: 2),
                              randomSeed: 1)
        let samples = (0..<3).map { n in
            RejectedSample(uuid: UUID(), type: .stepCount, reason: "negative_value", field: "value",
                           detail: "sample \(n)", intervalId: 1, foundBy: .engine, atMs: 0)
        }
        _ = machine.handle(.started, stopRequests: 0, at: .zero)
        let first = machine.handle(.requestEnded(.requeued(1), rejected: [samples[0], samples[1]]), stopRequests: 0,
                                   at: .seconds(1))
        guard case .progress(let progress) = first.first else {
            Issue.record("no progress first: \(first)")
            return
        }
        #expect(progress.rejected == 2)
        _ = machine.handle(.requestEnded(.requeued(1), rejected: samples), stopRequests: 0, at: .seconds(2))
        #expect(machine.tally.rejectedCount == 3 && machine.tally.rejected == [samples[0], samples[1]])
    }

    @Test("the unsupported endpoint is said once, with its interval and the sink's message")
    func unsupportedOnce() {
        let heartRate = (1...3).map { Self.interval($0, .heartRate) }
        var machine = Machine(queue: heartRate, configuration: Self.config(concurrency: 3), randomSeed: 1)
        let started = machine.handle(.started, stopRequests: 0, at: .zero)
        #expect(started.map(Self.summary) == ["watch stop 1", "send 1", "send 2", "send 3"])
        var said: [String] = []
        for interval in heartRate {
            let missing = Event.requestEnded(.endpointMissing(interval, message: "HTTP 405: no", intervals: 1))
            said += machine.handle(missing, stopRequests: 0, at: .seconds(1)).map(Self.summary)
        }
        #expect(said == ["unsupported 1", "progress 1/3", "progress 2/3", "progress 3/3", "finish"])
        #expect(machine.tally.unsupported == [.init(interval: heartRate[0], message: "HTTP 405: no")])
    }

    @Test("events after the end are ignored")
    func afterTheEnd() {
        var machine = Machine(queue: [], configuration: Self.config(), randomSeed: 1)
        #expect(machine.handle(.started, stopRequests: 0, at: .zero).map(Self.summary) == ["watch stop 1", "finish"])
        #expect(machine.handle(.stopSignalled(count: 1), stopRequests: 1, at: .zero).isEmpty)
        #expect(!machine.tally.stopped && machine.isFinished)
    }
}
