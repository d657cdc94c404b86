/// The injected clock, type-erased to the two things the engine does with it: sleep, and tell the time since a start.
///
/// Built from any `Clock` whose durations are `Duration` (`ContinuousClock` in the CLI, a test clock in the tests).
struct EngineClock: Sendable {
    /// Sleeps this long on the clock; throws `CancellationError` when the task is cancelled.
    let sleep: @Sendable (Duration) async throws -> Void
    /// A function that tells the time elapsed since it was made.
    let stopwatch: @Sendable () -> @Sendable () -> Duration

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        sleep = { duration in try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil) }
        stopwatch = {
            let start = clock.now
            return { start.duration(to: clock.now) }
        }
    }
}
