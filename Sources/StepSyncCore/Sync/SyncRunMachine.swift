import Foundation

/// The decisions of one sync run, as a value: events in, ``Action``s out — no I/O, no clock, no concurrency.
///
/// `SyncEngine` (StepSyncEngine) is the thin async shell around it: a task group whose tasks each send one request
/// (claim → send → mark, with ``RequestSendMachine`` deciding that request's parts and retries), wait for the sink,
/// probe it, or watch the stop signal. Each task's end comes back as an ``Event``; the engine passes it to
/// ``handle(_:stopRequests:at:)`` with the stop requests made so far and the time since the run began, and does what
/// the returned actions say, in order. The machine holds everything the loop decides on: the queue and how far it
/// was taken, the requests in flight, the intervals that must go alone, the endpoints the sink does not serve, the
/// shared wait for the sink (``SinkOutageMachine``), the stop requests, and the run's counts (``Tally``).
/// Tested without concurrency in `SyncRunMachineTests`.
///
/// ```
/// starting ──started──▶ probingFirst ──probed──▶ sending ◀───────────────────────────────────────┐
///     └──started (no probe)─────────────────────▶   │ fill: send requests up to the window       │
///                                                   ├──sink down, none in flight──▶ waitingForSink ──waitEnded──▶
///                                                   │                               probing ──probed─────────────┘
///                                                   ├──down for giveUpAfter / fatal, none in flight──▶ gaveUp ─┐
///                                                   └──queue done or stopping, none in flight──▶ finished ◀────┘
/// ```
///
/// After each event the machine (1) applies it, (2) takes note of the stop requests — the first makes it
/// ``Action/stopping(inFlight:)`` (nothing new starts, the requests in flight finish, the engine's waits end at once
/// on the signal itself), the second ``Action/cancelInFlight(_:)`` — and (3) starts what may start: requests up to
/// the window (``InFlightWindow``: `concurrency` at first, wider as the link's round trip asks) while the sink is
/// up, or, once nothing is in flight while it is down, the shared wait
/// (``Action/waitForSink(_:_:)``) or giving up (``Action/giveUp(_:afterSeconds:)``). When nothing is in flight and
/// nothing can start, it ends with ``Action/finish``.
public struct SyncRunMachine: Sendable {
    /// The settings the run's decisions depend on.
    public let configuration: Configuration
    /// Where the run stands.
    public private(set) var phase: Phase = .starting
    /// What the run did so far: what the engine reports at the end (and, in part, in each progress).
    public private(set) var tally = Tally()
    /// The shared wait for the sink.
    public private(set) var outage: SinkOutageMachine
    /// Requests in flight (sent and not yet ended).
    public private(set) var inFlight = 0
    /// Whether a stop was requested: nothing new starts.
    public private(set) var isStopping = false
    /// Whether a second stop was requested: the requests in flight were cancelled.
    public private(set) var isCancelling = false

    /// The intervals to send, in order: the store's pending ones, then those put back during the run (a packed
    /// request's intervals after a permanent failure, a request's after the sink's outage).
    private var queue: [SyncInterval]
    /// The first interval of `queue` not yet taken.
    private var next = 0
    /// Intervals that must go in a request of their own (their packed request failed permanently).
    private var alone = Set<Int64>()
    /// The endpoints the sink does not serve: their intervals are left pending.
    private var unsupportedRoutes = Set<Route>()
    /// The rejected samples counted so far (a sample is counted once however often its interval is sent).
    private var rejectedSeen = Set<UUID>()
    /// When the wait for the sink under way began.
    private var waitStarted = Duration.zero
    /// The jitter of the waits for the sink.
    private var random: SplitMix64
    /// How many requests may be in flight: `concurrency` at first, more as the link's round trip asks for
    /// (``InFlightWindow``).
    public private(set) var window: InFlightWindow
    /// The window's tickets of the requests in flight, by request number.
    private var tickets: [Int: InFlightWindow.Ticket] = [:]
    /// The samples (and deletions) each request in flight carries, by its number: counted done when it ends for good.
    private var requestItems: [Int: Int] = [:]
    /// The number the next request is sent under.
    private var nextRequest = 0

    /// Creates the machine of a run that sets out to send `queue`, in that order; nothing happens until
    /// ``Event/started``.
    ///
    /// - Parameter randomSeed: the run's seed; the waits for the sink draw their jitter from a generator seeded
    ///   with it (the requests' retries draw from their own).
    public init(queue: [SyncInterval], configuration: Configuration, randomSeed: UInt64) {
        self.configuration = configuration
        self.queue = queue
        outage = SinkOutageMachine(policy: configuration.outagePolicy)
        window = InFlightWindow(policy: .init(lanes: configuration.concurrency, maxInFlight: configuration.maxInFlight))
        random = SplitMix64(seed: SplitMix64.hash(randomSeed, 0x0D0A, 0))
        tally.total = queue.count
        tally.itemsTotal = queue.reduce(0) { $0 + max(0, $1.samples) }
    }

    /// The intervals not yet taken, in the order they will be.
    public var queued: ArraySlice<SyncInterval> { queue[next...] }

    /// Whether the run is over (``Action/finish`` was returned).
    public var isFinished: Bool { phase == .finished }

    /// Takes `event` in, with the stop requests made so far (`SyncStop.requestCount`) and the time since the run
    /// began, and returns what the engine must do, in order. Events after ``Action/finish`` are ignored.
    public mutating func handle(_ event: Event, stopRequests: Int, at now: Duration) -> [Action] {
        guard phase != .finished else { return [] }
        var actions: [Action] = []
        switch event {
        case .started:
            precondition(phase == .starting, "started in phase \(phase)")
            phase = .sending
            actions.append(.watchStop(count: 1))
            // A sink that is not running is one message rather than a claim and a failed request per interval; and
            // every run checks its token and its sink first (the engine's probe), pending or not.
            if configuration.probeFirst, stopRequests == 0 {
                phase = .probingFirst
                actions.append(.probeSink)
            }
        case .probed(let failure):
            precondition(phase == .probing || phase == .probingFirst, "probed in phase \(phase)")
            let first = phase == .probingFirst
            phase = .sending
            if let failure {
                outage.failed(failure, at: now)
            } else if !first {
                outage.probeAnswered()
                actions.append(.progress(progress(at: now)))
            }
        case .stopSignalled(let count):
            observe(stopRequests: stopRequests, into: &actions)
            if count == 1, !isCancelling { actions.append(.watchStop(count: 2)) }
        case .waitEnded(let completed):
            precondition(phase == .waitingForSink, "waitEnded in phase \(phase)")
            tally.serverWaitSeconds += (now - waitStarted).inSeconds
            tally.serverWait = nil
            if completed, !isStopping {
                phase = .probing
                actions.append(.probeSink)
            } else {
                phase = .sending
                actions.append(.progress(progress(at: now)))
            }
        case .requestEnded(let result, let rejected, let notPending, let request):
            if let request, let ticket = tickets.removeValue(forKey: request),
               case .synced(_, _, let count, _) = result {
                window.acknowledged(ticket, samples: count, at: now)
            }
            if let request, let items = requestItems.removeValue(forKey: request) {
                switch result {
                case .synced, .failed, .notPending, .endpointMissing: tally.itemsDone += items
                case .requeued: if isStopping { tally.itemsDone += items }
                case .split, .sinkUnavailable: break  // pending again: counted when they end
                }
            }
            requestEnded(result, rejected: rejected, notPending: notPending, at: now, into: &actions)
        }
        observe(stopRequests: stopRequests, into: &actions)
        startWhatMayStart(at: now, into: &actions)
        if inFlight == 0, phase == .sending || phase == .gaveUp {
            phase = .finished
            actions.append(.finish)
        }
        return actions
    }

    // MARK: - Steps

    /// Takes note of the stop requests: the first stops the starting of requests, the second cancels those in flight.
    private mutating func observe(stopRequests: Int, into actions: inout [Action]) {
        if stopRequests >= 1, !isStopping {
            isStopping = true
            tally.stopped = true
            actions.append(.stopping(inFlight: inFlight))
        }
        if stopRequests >= 2, !isCancelling {
            isCancelling = true
            actions.append(.cancelInFlight(inFlight))
        }
    }

    /// One request ended: count it, and learn what it says about the sink.
    private mutating func requestEnded(
        _ result: RequestResult, rejected: [RejectedSample], notPending: Int, at now: Duration,
        into actions: inout [Action]
    ) {
        precondition(inFlight > 0, "requestEnded with nothing in flight")
        inFlight -= 1
        tally.done += notPending
        for record in rejected where rejectedSeen.insert(record.uuid).inserted {
            tally.rejectedCount += 1
            if tally.rejected.count < configuration.maxListedRejections { tally.rejected.append(record) }
        }
        switch result {
        case .synced(let kind, let intervals, let count, let ack):
            outage.intervalAnswered()
            tally.synced += intervals
            tally.done += intervals
            switch kind {
            case .samples:
                tally.samples += count
                tally.inserted += ack.inserted
                tally.duplicates += ack.duplicates
            case .deletions:
                tally.deletionsSent += count
                tally.deleted += ack.deleted
            }
        case .failed:
            outage.intervalAnswered()
            tally.failed += 1
            tally.done += 1
        case .requeued(let intervals):
            tally.requeued += intervals
            tally.done += intervals
        case .notPending:
            break
        case .split(let intervals):
            // Pending again: each goes in a request of its own, so the failure is pinned on one interval.
            outage.intervalAnswered()
            for interval in intervals { alone.insert(interval.id) }
            queue += intervals
        case .endpointMissing(let interval, let message, let intervals):
            outage.intervalAnswered()
            if unsupportedRoutes.insert(Route(interval)).inserted {
                tally.unsupported.append(Unsupported(interval: interval, message: message))
                actions.append(.endpointUnsupported(interval, message: message))
            }
            tally.skipped += intervals
            tally.done += intervals
        case .sinkUnavailable(let intervals, let failure):
            // Not these intervals' fault: they are pending again and go to the back of the queue.
            outage.failed(failure, at: now)
            if isStopping {
                tally.requeued += intervals.count
                tally.done += intervals.count
            } else {
                queue += intervals
            }
        }
        tally.activeSeconds = max(0, now.inSeconds - tally.serverWaitSeconds)
        actions.append(.progress(progress(at: now)))
    }

    /// Starts what may start: requests up to the limit while the sink is up; while it is down and nothing is in
    /// flight, the shared wait — or giving up.
    private mutating func startWhatMayStart(at now: Duration, into actions: inout [Action]) {
        guard phase == .sending, !isStopping else { return }
        if outage.isDown {
            guard inFlight == 0 else { return }
            switch outage.nextStep(at: now, using: &random) {
            case .giveUp(let failure, let after):
                phase = .gaveUp
                tally.gaveUp = GiveUp(failure: failure, afterSeconds: after)
                actions.append(.giveUp(failure, afterSeconds: after))
            case .wait(let delay, let failure):
                phase = .waitingForSink
                waitStarted = now
                tally.serverWaits += 1
                tally.serverWait = SinkWait(failure: failure, delay: delay)
                actions.append(.waitForSink(delay, failure))
                actions.append(.progress(progress(at: now)))
            }
            return
        }
        while inFlight < window.limit, next < queue.endIndex {
            let interval = queue[next]
            if !unsupportedRoutes.isEmpty, unsupportedRoutes.contains(Route(interval)) {
                // The sink does not serve this interval's endpoint: leave it pending.
                tally.skipped += 1
                tally.done += 1
                next += 1
                continue
            }
            var take = alone.contains(interval.id) ? 1
                : RequestPacking.count(queue[next...], maxSamples: configuration.maxSamplesPerRequest)
            if take > 1, !alone.isEmpty,
               let first = queue[(next + 1)..<(next + take)].firstIndex(where: { alone.contains($0.id) }) {
                take = first - next  // an interval whose packed request failed goes alone
            }
            actions.append(.send(Array(queue[next..<(next + take)]), request: nextRequest))
            tickets[nextRequest] = window.send(at: now)
            requestItems[nextRequest] = queue[next..<(next + take)].reduce(0) { $0 + max(0, $1.samples) }
            nextRequest += 1
            next += take
            inFlight += 1
            tally.peakInFlight = max(tally.peakInFlight, inFlight)
        }
    }

    /// Where the run stands, for the progress callback.
    private func progress(at now: Duration) -> Progress {
        Progress(done: tally.done, total: tally.total, synced: tally.synced, failed: tally.failed,
                 samplesSent: tally.samples, rejected: tally.rejectedCount, elapsed: now,
                 activeSeconds: tally.activeSeconds, serverWait: tally.serverWait,
                 itemsDone: min(tally.itemsDone, tally.itemsTotal), itemsTotal: tally.itemsTotal)
    }
}

extension SyncRunMachine {
    /// Which endpoint of the sink an interval's request goes to, as far as the run's decisions need it: the sink
    /// serves step counts (`/steps`, `/steps/delete`) and the other types (`/samples`, `/samples/delete`) apart, and
    /// samples apart from deletions. A sink that does not serve one leaves every interval of it pending.
    struct Route: Hashable, Sendable {
        var stepCounts: Bool
        var kind: IntervalKind

        init(_ interval: SyncInterval) {
            stepCounts = interval.type == .stepCount
            kind = interval.kind
        }
    }
}
