import Foundation
import Synchronization

/// Starts child processes one at a time across the whole test run.
///
/// Tests run in parallel and start hundreds of `stepsync`, `psql`, `curl`, `nginx` processes; a full run once crashed
/// inside swift-corelibs-foundation's `Process.run()` (SIGSEGV in `memcpy` while it prepared a child), the test process
/// and every test with it. Starting children under one lock takes microseconds and keeps `Process.run()` from ever
/// running on two threads at once.
public enum ProcessLauncher {
    private static let lock = Mutex(())

    /// Runs `process` (`Process.run()`) under the launch lock.
    public static func run(_ process: Process) throws {
        try lock.withLock { _ in try process.run() }
    }
}
