#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One sync per data directory: an exclusive, non-blocking `flock` on `<data-dir>/sync.lock`, held for the run.
///
/// The kernel drops the lock when the process exits, however it exits (`kill -9` included), so a stale lock file
/// never blocks the next run. The file holds the pid of the holder, for the message a second sync prints.
public enum SyncLock {
    /// Runs `body` holding the lock at `path`.
    ///
    /// - Throws: ``SyncError/alreadyRunning(lockPath:pid:)`` at once when another process (or another open of the
    ///   same file in this process) holds it.
    public static func withLock<R>(path: String, _ body: () async throws -> R) async throws -> R {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SyncError.cannotLock(lockPath: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let error = errno
            if error == EWOULDBLOCK {
                throw SyncError.alreadyRunning(lockPath: path, pid: readPid(fd))
            }
            throw SyncError.cannotLock(lockPath: path, reason: String(cString: strerror(error)))
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return try await body()
    }

    private static func readPid(_ fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[..<n], as: UTF8.self).filter(\.isNumber)
        return text.isEmpty ? nil : text
    }
}
