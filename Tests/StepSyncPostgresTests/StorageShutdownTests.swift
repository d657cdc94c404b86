import Foundation
import StepSyncCore
@testable import StepSyncPostgres
import StepSyncTestSupport
import Synchronization
import Testing

/// A storage ends when its work does: PostgresNIO 1.33.2's pool may keep waiting on a connection it was opening when
/// it is asked to stop, and ``PostgresSampleStorage/withStorage(configuration:logger:migrate:_:)`` gives it only
/// ``PoolRunner/grace``.
@Suite("PostgreSQL storage shutdown")
struct StorageShutdownTests {
    @Test("a storage whose database never answers (a port that accepts and stays silent) still ends: the call answers unavailable and the storage stops")
    func silentDatabase() async throws {
        let silent = try ClosedPort(silent: true)
        defer { silent.release() }
        let configuration = PostgresSampleStorage.Configuration(
            url: try DatabaseURL("postgres://stepsync@127.0.0.1:\(silent.port)/none"), leaseTimeout: .milliseconds(300),
            operationTimeout: .milliseconds(300), time: .system)
        // The whole call, raced against a generous watchdog: a storage that never ends fails the test, not the run.
        let outcome = Task {
            try await PostgresSampleStorage.withStorage(configuration: configuration, logger: quietLogger,
                                                        migrate: false) { storage in
                do {
                    _ = try await storage.counts(client: 1)
                    return "answered"
                } catch let error as PostgresStorageError {
                    return "\(error)"
                }
            }
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            outcome.cancel()
        }
        defer { watchdog.cancel() }
        let result = try await outcome.value
        #expect(result.contains("unavailable"), "\(result)")
    }

    @Test("a pool that never ends is left exactly the grace after its runner is cancelled, on the storage's clock")
    func poolLeftAfterGrace() async throws {
        let clock = TestClock(.instant)
        let log = RequestLog()
        let runner = Task {
            await PoolRunner(time: clock.time, logger: log.logger).run {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    Self.held.withLock { $0.append(continuation) }
                }
            }
        }
        runner.cancel()
        await runner.value
        #expect(clock.sleeps == [PoolRunner.grace])
        #expect(log.messages == ["The PostgreSQL connection pool did not close within 10.0 seconds; left to end on its own"])
        for continuation in Self.held.withLock({ $0 }) { continuation.resume() }
    }

    @Test("a pool that ends when cancelled is waited for, and nothing is logged")
    func poolEnds() async throws {
        let clock = TestClock(.manual)
        let log = RequestLog()
        let ended = Mutex(false)
        let runner = Task {
            await PoolRunner(time: clock.time, logger: log.logger).run {
                while !Task.isCancelled { await Task.yield() }
                ended.withLock { $0 = true }
            }
        }
        runner.cancel()
        await runner.value
        #expect(ended.withLock { $0 })
        #expect(log.messages.isEmpty)
    }

    static let held = Mutex<[CheckedContinuation<Void, Never>]>([])
}
