/// The deadlines of one HTTP/1.1 connection, as a value: events in (bytes read, request head and end read,
/// response head and end written), the current deadline and what to do when it passes out. No I/O, no clock reads;
/// ``ConnectionGuard`` feeds it and runs its verdicts.
///
/// | phase | deadline | on expiry |
/// |---|---|---|
/// | `fresh` (accepted, nothing read) | accept + header timeout | close |
/// | `readingHead` (bytes of a head) | first byte (accept when fresh) + header timeout | 408, close |
/// | `readingBody` (head read, no end) | last byte + body timeout | 408, close (close if already answered) |
/// | `responding` (request read) | none: the responder's own deadlines apply | — |
/// | `idle` (answered, kept alive) | end of response + idle timeout | close |
///
/// A connection is *evictable* (closed first when the connection cap is reached) while it holds no request head:
/// fresh, idle, or reading a head.
struct ConnectionDeadlineMachine {
    typealias Instant = ContinuousClock.Instant

    enum Phase: Equatable {
        case fresh, readingHead, readingBody, responding, idle
    }

    /// What to do once the deadline has passed.
    enum Expiry: Equatable {
        /// Close without a word (nothing was asked, or something was already answered).
        case close
        /// Answer 408 and close.
        case requestTimeout
    }

    let limits: ConnectionLimits
    private(set) var phase: Phase = .fresh
    /// When the current phase's clock started (accept, first byte of a head, last byte of a body, end of response).
    private(set) var since: Instant
    /// Request heads read whose response has not ended.
    private var requestsInFlight = 0
    /// Request heads read whose response head has not been written.
    private var unanswered = 0

    init(limits: ConnectionLimits, openedAt: Instant) {
        self.limits = limits
        self.since = openedAt
    }

    /// When the connection times out in this phase, or nil while a request is being answered.
    var deadline: Instant? {
        switch phase {
        case .fresh, .readingHead: since + limits.headerTimeout
        case .readingBody: since + limits.bodyTimeout
        case .idle: since + limits.idleTimeout
        case .responding: nil
        }
    }

    /// Whether the connection may be closed to make room: it holds no request head.
    var isEvictable: Bool { phase == .fresh || phase == .idle || phase == .readingHead }

    /// Bytes arrived: the first of a head starts the header clock (a fresh connection's runs since accept); a
    /// body's restart the body clock.
    mutating func bytesRead(at now: Instant) {
        switch phase {
        case .fresh: phase = .readingHead
        case .idle: (phase, since) = (.readingHead, now)
        case .readingBody: since = now
        case .readingHead, .responding: break
        }
    }

    mutating func headRead(at now: Instant) {
        requestsInFlight += 1
        unanswered += 1
        (phase, since) = (.readingBody, now)
    }

    mutating func requestEnded(at now: Instant) {
        if requestsInFlight > 0 { phase = .responding } else { (phase, since) = (.idle, now) }
    }

    mutating func responseStarted() {
        unanswered = max(0, unanswered - 1)
    }

    mutating func responseEnded(at now: Instant) {
        requestsInFlight = max(0, requestsInFlight - 1)
        if requestsInFlight == 0, phase == .responding { (phase, since) = (.idle, now) }
    }

    /// What to do at `now`: nil before the deadline (or without one).
    func expiry(at now: Instant) -> Expiry? {
        guard let deadline, now >= deadline else { return nil }
        switch phase {
        case .fresh, .idle, .responding: return .close
        case .readingHead: return requestsInFlight == 0 ? .requestTimeout : .close
        case .readingBody: return requestsInFlight == 1 && unanswered == 1 ? .requestTimeout : .close
        }
    }
}
