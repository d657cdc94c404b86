/// How many requests a sync keeps in flight, adapted to the link as it runs — a value: the times are given, not read.
///
/// At `--concurrency 3` and one request of ≤ 5,000 samples per lane, a sync can never move more than
/// 3 × 5,000 samples per round trip: 100k samples/s over a 150 ms link however fast both ends are. The window lets
/// each of the `lanes` keep several requests in flight, as many as the link needs — from the same two measures a
/// congestion window of BBR's kind is made of:
///
/// - the **delivery rate**: each acknowledgement gives one sample of it, the samples acknowledged between the
///   request's send and its acknowledgement divided by that time, `(delivered − deliveredAtSend) / (now − sentAt)`;
///   the estimate is the largest of the last ``Policy/rateSamples`` (a rate a window did reach);
/// - the **round trip**: the shortest time from a request's send to its acknowledgement seen in the run (the link's
///   delay plus the work of both ends for one request, without queueing).
///
/// Their product is what the link holds (bandwidth × delay, in samples); divided by the mean samples of a request it
/// is how many requests fill it. The window is that times ``Policy/gain`` (so the rate can still be seen growing —
/// a window that only just fills the link would never learn that a larger one moves more), rounded up, clamped to
/// `lanes … maxInFlight`, and moved by at most ``Policy/step`` requests per acknowledgement:
///
///     limit = clamp(⌈gain × maxRate × minRoundTrip ÷ meanRequestSamples⌉, lanes, maxInFlight)
///
/// It starts at `lanes` (one request a lane: the sync as it was) and grows while the rate grows with it — each
/// round trip of a window that is too small shows a higher rate, which asks for a larger window — and stops where
/// the rate stops growing (the link, the sink or the client's CPU is full). On loopback the round trip is a few
/// milliseconds and the window stays near `lanes`; over a 150 ms link it opens to ≈ 2 × rate × 0.15 s ÷ 5,000.
/// A sample rate that falls (a slower sink) ages out of the estimate after ``Policy/rateSamples`` acknowledgements,
/// and the window closes again. Requests the 413 handling cut into parts take longer and carry fewer samples a round
/// trip, which the measures see: the window opens further, so smaller requests are still enough in flight.
///
/// Example (`lanes` 3, at most 24, gain 2, requests of 5,000 samples, a 150 ms link):
///
/// | acknowledgements | rate sample | window |
/// |---|---|---|
/// | first three (sent together at 0 s, acknowledged at 0.15 s) | 33k, 67k, 100k samples/s | 4, 5, 6 |
/// | the next round trip at 6 in flight | up to 200k samples/s | … 12 |
/// | where the rate stops growing (say 300k samples/s) | 300k samples/s | 18 |
///
/// Used by ``SyncRunMachine``, which asks for a ``Ticket`` when it sends a request and hands it back with the
/// acknowledgement. Tested as values in `InFlightWindowTests`.
public struct InFlightWindow: Hashable, Sendable {
    /// The window's bounds and tuning.
    public struct Policy: Hashable, Sendable {
        /// The window's floor: the requests in flight before anything is measured (`--concurrency`).
        public var lanes: Int
        /// The window's ceiling (`--max-in-flight`); equal to `lanes`, the window never moves.
        public var maxInFlight: Int
        /// How many times the measured bandwidth × delay the window holds.
        public var gain: Double
        /// How many of the last rate samples the estimate is the largest of.
        public var rateSamples: Int
        /// The most the window moves (up or down) on one acknowledgement.
        public var step: Int

        /// Creates a policy; `lanes` is at least 1, `maxInFlight` at least `lanes`, `gain` at least 1, `rateSamples`
        /// and `step` at least 1.
        public init(lanes: Int, maxInFlight: Int, gain: Double = 2, rateSamples: Int = 16, step: Int = 1) {
            self.lanes = max(1, lanes)
            self.maxInFlight = max(self.lanes, maxInFlight)
            self.gain = max(1, gain)
            self.rateSamples = max(1, rateSamples)
            self.step = max(1, step)
        }

        /// The default ceiling for `lanes`: eight requests a lane.
        public static func defaultMaxInFlight(lanes: Int) -> Int { max(1, lanes) * 8 }
    }

    /// What the window noted when a request was sent, handed back with its acknowledgement.
    public struct Ticket: Hashable, Sendable {
        /// When the request was sent.
        public var sentAt: Duration
        /// The samples acknowledged before it was sent.
        public var deliveredAtSend: Int
    }

    /// The bounds and tuning.
    public let policy: Policy
    /// The requests that may be in flight now.
    public private(set) var limit: Int
    /// Samples acknowledged so far.
    public private(set) var delivered = 0
    /// The shortest send-to-acknowledgement time seen, if any.
    public private(set) var minRoundTrip: Duration?
    /// The mean samples of an acknowledged request (exponentially weighted, ¼ to the newest), 0 before the first.
    public private(set) var meanRequestSamples: Double = 0
    /// The last rate samples, samples a second, oldest first (at most ``Policy/rateSamples``).
    public private(set) var rates: [Double] = []

    /// Creates a window of `policy.lanes` requests.
    public init(policy: Policy) {
        self.policy = policy
        limit = policy.lanes
    }

    /// The delivery rate estimate, samples a second: the largest recent rate sample (0 before the first).
    public var rate: Double { rates.max() ?? 0 }

    /// The bandwidth × delay product measured so far, in samples (0 before the first acknowledgement).
    public var bandwidthDelay: Double {
        guard let minRoundTrip else { return 0 }
        return rate * minRoundTrip.inSeconds
    }

    /// A request is sent at `now`: the ticket to hand back with its acknowledgement.
    public func send(at now: Duration) -> Ticket {
        Ticket(sentAt: now, deliveredAtSend: delivered)
    }

    /// The request sent with `ticket` was acknowledged at `now`, carrying `samples`: take the measures in and move
    /// the window.
    public mutating func acknowledged(_ ticket: Ticket, samples: Int, at now: Duration) {
        delivered += max(0, samples)
        guard samples > 0 else { return }  // nothing sent (every sample deleted or invalid): no measure of the link
        let elapsed = now - ticket.sentAt
        guard elapsed > .zero else { return }
        minRoundTrip = min(minRoundTrip ?? elapsed, elapsed)
        rates.append(Double(delivered - ticket.deliveredAtSend) / elapsed.inSeconds)
        if rates.count > policy.rateSamples { rates.removeFirst(rates.count - policy.rateSamples) }
        meanRequestSamples = meanRequestSamples == 0 ? Double(samples) : meanRequestSamples * 0.75 + Double(samples) * 0.25
        let target = Self.target(bandwidthDelay: bandwidthDelay, meanRequestSamples: meanRequestSamples, policy: policy)
        limit = min(max(target, limit - policy.step), limit + policy.step)
    }

    /// The window the measures ask for: `clamp(⌈gain × bandwidthDelay ÷ meanRequestSamples⌉, lanes, maxInFlight)`.
    public static func target(bandwidthDelay: Double, meanRequestSamples: Double, policy: Policy) -> Int {
        guard meanRequestSamples > 0, bandwidthDelay.isFinite else { return policy.lanes }
        let requests = (policy.gain * bandwidthDelay / meanRequestSamples).rounded(.up)
        guard requests < Double(policy.maxInFlight) else { return policy.maxInFlight }
        return max(policy.lanes, Int(requests))
    }
}
