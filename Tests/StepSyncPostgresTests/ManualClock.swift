import Synchronization

/// A clock that moves only when the test says so (the authenticator's cache lifetime, without waiting).
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = Mutex(Instant(offset: .zero))

    var now: Instant { current.withLock { $0 } }
    var minimumResolution: Duration { .nanoseconds(1) }

    /// Moves time forward.
    func advance(by duration: Duration) { current.withLock { $0 = $0.advanced(by: duration) } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        struct NotSupported: Error {}
        throw NotSupported()  // nothing here sleeps on it
    }
}
