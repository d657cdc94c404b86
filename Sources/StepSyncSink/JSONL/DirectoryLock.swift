import Foundation

/// An exclusive lock on a sink's data directory (`flock` on `<dir>/sink.lock`, which holds the holder's pid), so
/// that only one sink serves a data directory at a time. Released when closed or when the process ends (also by
/// `kill -9`: the kernel drops `flock` locks with the descriptor).
///
/// `flock` locks belong to the open file description, so a second sink in the same process is refused too.
final class DirectoryLock: Sendable {
    /// The lock file.
    let path: String
    private let fd: Int32

    /// Takes the lock at once or throws ``SampleLogError`` naming the holder's pid.
    init(directory: String) throws {
        try FileSystem.makeDirectory(directory)
        path = (directory as NSString).appendingPathComponent("sink.lock")
        let existed = FileManager.default.fileExists(atPath: path)
        let fd = FileSystem.open(path, O_RDWR | O_CREAT | O_CLOEXEC)
        guard fd >= 0 else { throw SampleLogError.io("cannot open", path: path, errno: errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(fd)
            guard code == EWOULDBLOCK else { throw SampleLogError.io("cannot lock", path: path, errno: code) }
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            throw SampleLogError.locked(directory: directory,
                                        holder: holder.flatMap { Int32($0) }.map { "pid \($0)" } ?? "pid unknown")
        }
        self.fd = fd
        if !existed { try? FileSystem.syncDirectory(of: path) }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, 0) }
    }

    deinit {
        _ = ftruncate(fd, 0)
        close(fd) // releases the lock
    }
}
