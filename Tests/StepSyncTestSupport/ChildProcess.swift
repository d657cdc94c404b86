import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program the tests run as a real child process: started with `posix_spawn`, reaped with `waitpid`.
///
/// Not Foundation's `Process`. On Linux its `run()` lists `/proc/self/fd` to close every inherited descriptor and
/// copies each entry's whole 256-byte name out of the directory buffer; once some 1,360 descriptors are open (the
/// connection-flood tests hold 1,100 sockets while other tests start programs) the last entry sits at the very end
/// of that buffer and the copy reads past the heap into an unmapped page: the SIGSEGV in `memcpy` under
/// `Process.run()` that took two whole CI runs down. Here the child closes every descriptor from 3 on itself (glibc's
/// `posix_spawn_file_actions_addclosefrom_np`; elsewhere ours are marked close-on-exec first), nothing is listed.
/// Foundation's `Process` also reports an end only once every descendant has closed what it inherited (a server
/// `pg_ctl` starts keeps it open); `waitpid` reports the child's own end.
///
/// The surface is `Process`'s (``isRunning``, ``terminationStatus``, ``terminationReason``, ``waitUntilExit()``), so a
/// test reads the same either way.
public final class ChildProcess: Sendable {
    /// Why a child ended, as `Process.TerminationReason`.
    public enum TerminationReason: Sendable, Equatable {
        /// It exited; ``terminationStatus`` is its exit code.
        case exit
        /// A signal ended it; ``terminationStatus`` is the signal's number.
        case uncaughtSignal
    }

    /// The child's pid.
    public let processIdentifier: pid_t
    /// The program and its arguments, as started.
    public let argv: [String]
    /// The raw `waitpid` status once the child is reaped.
    private let reaped = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments`: stdin from /dev/null, stdout appended to the file at `stdout`, stderr
    /// to the file at `stderr` (the same file as stdout when `nil`), `environment` added to this process's (and
    /// overriding it), in a process group of its own (as `Process` does, so a terminal's Ctrl-C reaches only
    /// the test run).
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                stdout: String = "/dev/null", stderr: String? = nil) throws
    {
        argv = [executable] + arguments
        let merged = environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 }
        processIdentifier = try Self.spawn(argv, stdout: stdout, stderr: stderr, environment: merged,
                                           ownProcessGroup: true)
    }

    deinit {
        // A child nobody waited for is reaped when it ends, so it does not linger as a zombie (which `kill(pid, 0)`
        // would still find) for the rest of the run.
        guard reap() == nil else { return }
        let pid = processIdentifier
        DispatchQueue.global().async {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }
    }

    /// Whether the child has not ended yet (reaps it once it has).
    public var isRunning: Bool { reap() == nil }

    /// Its exit code, or the number of the signal that ended it (see ``terminationReason``); only once it ended.
    public var terminationStatus: Int32 {
        guard let status = reap() else { preconditionFailure("\(argv[0]) is still running") }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : signal
    }

    /// Whether it exited or a signal ended it; only once it ended.
    public var terminationReason: TerminationReason {
        guard let status = reap() else { preconditionFailure("\(argv[0]) is still running") }
        return status & 0x7F == 0 ? .exit : .uncaughtSignal
    }

    /// Blocks the calling thread until the child ends (polling every 10 ms). Async code polls ``isRunning`` with
    /// `Task.sleep` instead.
    public func waitUntilExit() {
        while isRunning { usleep(10_000) }
    }

    /// `waitpid(pid, WNOHANG)` once, remembered: the raw status once the child ended, `nil` while it runs.
    private func reap() -> Int32? {
        reaped.withLock { reaped in
            if let reaped { return reaped }
            var status: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(processIdentifier, &status, WNOHANG) } while result == -1 && errno == EINTR
            if result == processIdentifier {
                reaped = status
            } else if result == -1 {
                reaped = 0xFF << 8  // not our child any more (reaped elsewhere): ended, status unknown (255)
            }
            return reaped
        }
    }

    // MARK: - Spawning

    /// Starts `argv` (`argv[0]` a path) with stdin from /dev/null, stdout appended to `stdout` and stderr to `stderr`
    /// (or stdout's file), `environment` as its whole environment (this process's when `nil`), and no other
    /// descriptor of ours; returns its pid. Whoever calls this reaps the child.
    public static func spawn(_ argv: [String], stdout: String, stderr: String? = nil,
                             environment: [String: String]? = nil, ownProcessGroup: Bool = false) throws -> pid_t
    {
        #if canImport(Glibc)
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #else
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if let stderr {
            posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        // Nothing else of ours: a server started by pg_ctl or nginx would otherwise keep copies of this process's
        // sockets (NIO's accepted connections are not close-on-exec), so a peer would never see them close.
        closeInheritedDescriptors(&actions)
        if ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        }
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        let cEnvironment = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in cEnvironment ?? [] { free(pointer) } }
        var pid: pid_t = 0
        let result = cEnvironment.map { posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, $0) }
            ?? posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, environ)
        guard result == 0 else {
            throw SpawnError(description: "cannot start \(argv[0]): \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// A program that could not be started, with the reason.
    public struct SpawnError: Error, CustomStringConvertible {
        /// The program and `strerror` of the failure.
        public let description: String
    }

    #if canImport(Glibc)
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    /// glibc ≥ 2.34's `posix_spawn_file_actions_addclosefrom_np` (not in Swift's Glibc module).
    private static let closeFrom: CloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0),
                                                     "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }

    /// Has the child close every descriptor from 3 on; without glibc's closefrom, marks ours close-on-exec.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        if let closeFrom, closeFrom(&actions, 3) == 0 { return }
        markCloseOnExec()
    }
    #else
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t?) { markCloseOnExec() }
    #endif

    /// Sets FD_CLOEXEC on every descriptor from 3 to the highest this process may open (no directory listing).
    private static func markCloseOnExec() {
        let highest = min(Int32(clamping: sysconf(Int32(_SC_OPEN_MAX))), 65_536)
        for fd in 3..<max(highest, 3) {
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }
}
