import Foundation

/// Runs a stopped child process until something happens, and stops it again at once: the kill-during-sync tests'
/// way of catching a sync in its middle.
///
/// The watching runs on a thread of its own, polling every millisecond: a test's own task can wait seconds for a turn
/// of the cooperative pool while hundreds of tests share two cores, and a sync left running that long would finish
/// before the test saw it write anything.
public enum ProcessPacer {
    /// Continues `process` (SIGCONT) and stops it (SIGSTOP) as soon as `happened()` is true; `false` when the process
    /// ended first (it is then not stopped) or `within` passed first (it is then left running): a test that waits on
    /// a child fails rather than hangs.
    public static func continueUntil(_ process: ChildProcess, within: Duration = .seconds(120),
                                     _ happened: @escaping @Sendable () -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                let pid = process.processIdentifier
                let deadline = ContinuousClock.now + within
                kill(pid, SIGCONT)
                while process.isRunning, ContinuousClock.now < deadline {
                    if happened() {
                        kill(pid, SIGSTOP)
                        continuation.resume(returning: true)
                        return
                    }
                    usleep(1_000)
                }
                continuation.resume(returning: false)
            }
            thread.start()
        }
    }
}
