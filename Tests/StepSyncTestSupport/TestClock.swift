import Foundation
import StepSyncCore

/// A clock for tests that never sleeps for real: retries, backoffs, waits for the sink and pauses run without
/// wall-clock races.
///
/// - `.instant`: a sleep returns at once and moves the clock to its deadline (the clock reads the time the code
///   would have waited), so a run with a minute of backoff finishes in milliseconds;
/// - `.manual`: a sleep waits until the test calls ``advance(by:)`` past its deadline, so a test can stop a sync in
///   the middle of a wait (``waitForSleepers(_:)`` says when code is waiting) and see that nothing moved on.
///
/// Every sleep asked for is recorded (``sleeps``), so tests assert the exact delays.
public final class TestClock: Clock, @unchecked Sendable {
    /// A point on the test clock: the time since it was created.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// The time since the clock was created.
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        public var description: String { "\(offset)" }
    }

    /// How sleeps behave.
    public enum Mode: Sendable {
        /// A sleep returns at once, moving the clock to its deadline.
        case instant
        /// A sleep waits for ``advance(by:)``.
        case manual
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private let mode: Mode
    private var current = Instant(offset: .zero)
    private var sleepers: [UInt64: Sleeper] = [:]
    private var nextId: UInt64 = 0
    private var recorded: [Duration] = []
    private var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Creates a clock at zero.
    public init(_ mode: Mode = .instant) {
        self.mode = mode
    }

    public var now: Instant { lock.withLock { current } }

    public var minimumResolution: Duration { .zero }

    /// Every sleep asked for so far, as the delay from the time of the call to its deadline, in order.
    public var sleeps: [Duration] { lock.withLock { recorded } }

    /// How many sleeps are waiting (manual mode).
    public var sleeperCount: Int { lock.withLock { sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        switch mode {
        case .instant:
            lock.withLock {
                recorded.append(current.duration(to: deadline))
                if current < deadline { current = deadline }
            }
            await Task.yield()
            try Task.checkCancellation()
        case .manual:
            let id: UInt64 = lock.withLock {
                nextId += 1
                return nextId
            }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    lock.lock()
                    recorded.append(current.duration(to: deadline))
                    if Task.isCancelled {
                        lock.unlock()
                        continuation.resume(throwing: CancellationError())
                        return
                    }
                    if deadline <= current {
                        lock.unlock()
                        continuation.resume()
                        return
                    }
                    sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    let ready = takeReadyWaiters()
                    lock.unlock()
                    for waiter in ready { waiter.resume() }
                }
            } onCancel: {
                let sleeper = lock.withLock { sleepers.removeValue(forKey: id) }
                sleeper?.continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Moves the clock forward, waking every sleep whose deadline is reached.
    public func advance(by duration: Duration) {
        lock.lock()
        current = current.advanced(by: duration)
        var woken: [CheckedContinuation<Void, any Error>] = []
        for (id, sleeper) in sleepers where sleeper.deadline <= current {
            woken.append(sleeper.continuation)
            sleepers[id] = nil
        }
        lock.unlock()
        for continuation in woken { continuation.resume() }
    }

    /// Returns once at least `count` sleeps are waiting (manual mode): the code under test has reached its wait.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if sleepers.count >= count {
                lock.unlock()
                continuation.resume()
                return
            }
            sleeperWaiters.append((count, continuation))
            lock.unlock()
        }
    }

    /// The waiters of ``waitForSleepers(_:)`` now satisfied, removed from the list. Call with the lock held.
    private func takeReadyWaiters() -> [CheckedContinuation<Void, Never>] {
        var ready: [CheckedContinuation<Void, Never>] = []
        sleeperWaiters.removeAll { waiter in
            guard sleepers.count >= waiter.count else { return false }
            ready.append(waiter.continuation)
            return true
        }
        return ready
    }
}

extension TestClock {
    /// This clock as the engine's and the sink's time: sleeps and stopwatches on it, the system's wall clock.
    public var time: TimeSource { TimeSource(self) }
}
