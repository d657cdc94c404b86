import Foundation

/// The one way stepsync reads time, passed in wherever time is read: the wall clock (UTC milliseconds, for what is
/// recorded and shown: a synced interval's time, a sink's last ingest, when it became degraded) and a monotonic
/// clock (to wait on and to measure: backoffs, waits for a sink, cache lifetimes, elapsed times).
///
/// ``system`` is the real pair (`Date` and `ContinuousClock`); tests build one from a clock they move by hand and,
/// where the recorded time matters, a fixed wall clock. Like Hummingbird's and async-http-client's injected clocks,
/// but one value for both kinds of time, so no component reads `Date()` or `ContinuousClock.now` on its own.
public struct TimeSource: Sendable {
    /// The wall clock: milliseconds since 1970-01-01T00:00:00Z.
    public let nowMs: @Sendable () -> Int64
    /// Sleeps this long on the monotonic clock; throws `CancellationError` when the task is cancelled.
    public let sleep: @Sendable (Duration) async throws -> Void
    /// Starts a stopwatch on the monotonic clock: the function returned tells the time elapsed since this call.
    public let stopwatch: @Sendable () -> @Sendable () -> Duration
    /// The monotonic clock's time as a `ContinuousClock.Instant`, for deadlines kept as values (a connection's, a
    /// database call's): the real one for ``system``; for another clock an origin read once when the source is
    /// made, advanced by the time that clock has moved since.
    public let monotonicNow: @Sendable () -> ContinuousClock.Instant

    /// Time from `clock` (sleeps and stopwatches) and `nowMs` (the wall clock; the system's by default).
    public init<C: Clock>(_ clock: C, nowMs: @escaping @Sendable () -> Int64 = TimeSource.systemNowMs)
    where C.Duration == Duration {
        self.nowMs = nowMs
        sleep = { duration in try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil) }
        stopwatch = {
            let start = clock.now
            return { start.duration(to: clock.now) }
        }
        if C.self == ContinuousClock.self {
            monotonicNow = { ContinuousClock.now }
        } else {
            let start = clock.now, origin = ContinuousClock.now
            monotonicNow = { origin.advanced(by: start.duration(to: clock.now)) }
        }
    }

    /// The real time: `ContinuousClock` and the system's wall clock.
    public static let system = TimeSource(ContinuousClock())

    /// The system's wall clock in milliseconds since 1970 (rounded down).
    @Sendable public static func systemNowMs() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}

extension Duration {
    /// This duration in seconds, as a `Double` (attoseconds included).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
