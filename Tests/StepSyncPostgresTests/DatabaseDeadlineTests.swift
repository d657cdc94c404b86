import StepSyncCore
@testable import StepSyncPostgres
import StepSyncTestSupport
import Testing

/// A database call's deadline is kept on the storage's ``TimeSource``, not on the machine's clock: a test clock that
/// does not move holds the call, one moved past the deadline ends it at once (no wall-clock wait).
@Suite("a database call's deadline runs on the time source passed in")
struct DatabaseDeadlineTests {
    struct Expired: Error, Equatable {}

    @Test("an operation that never answers ends with the expiry error when the test clock passes the deadline, after a sleep of exactly the timeout")
    func deadlineOnTestClock() async throws {
        let clock = TestClock(.manual)
        let time = clock.time
        let call = Task {
            try await withDatabaseDeadline(time.monotonicNow() + .seconds(6), time: time, expired: { Expired() }) {
                try await Task.sleep(for: .seconds(3_600))  // a server that never answers
                return 1
            }
        }
        await clock.waitForSleepers(1)
        #expect(clock.sleeps == [.seconds(6)])
        clock.advance(by: .seconds(5))
        #expect(clock.sleeperCount == 1)  // 5 s in, the deadline still waits
        clock.advance(by: .seconds(1))
        await #expect(throws: Expired.self) { try await call.value }
    }

    @Test("a time source on a test clock reads the monotonic time it was moved by, to the nanosecond")
    func monotonicNowFollowsTheClock() {
        let clock = TestClock(.manual)
        let time = clock.time
        let start = time.monotonicNow()
        clock.advance(by: .milliseconds(1_500))
        #expect(start.duration(to: time.monotonicNow()) == .milliseconds(1_500))
        clock.advance(by: .nanoseconds(7))
        #expect(start.duration(to: time.monotonicNow()) == .milliseconds(1_500) + .nanoseconds(7))
    }
}
