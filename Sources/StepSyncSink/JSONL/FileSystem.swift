#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Foundation

/// The few system calls the JSONL sink makes that differ between platforms, picked at compile time so that each
/// platform's branch only names its own C library (the Darwin branch compiles without Glibc, and the reverse).
enum FileSystem {
    /// `open(2)` with mode 0644.
    static func open(_ path: String, _ flags: Int32) -> Int32 {
        #if canImport(Darwin)
        Darwin.open(path, flags, 0o644)
        #else
        Glibc.open(path, flags, 0o644)
        #endif
    }

    /// `write(2)`.
    static func write(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.write(fd, bytes, count)
        #else
        Glibc.write(fd, bytes, count)
        #endif
    }

    /// Makes a file's data durable: `F_FULLFSYNC` on Darwin (plain `fsync` there does not flush the drive's cache;
    /// `fsync` when the file system refuses it), `fdatasync` on Linux. Returns 0 or -1 with `errno` set.
    static func syncData(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
        if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
        return fsync(fd)
        #else
        return fdatasync(fd)
        #endif
    }

    /// Makes the directory entry of `path` durable: `fsync` of its directory (after creating, renaming or removing a
    /// file in it).
    static func syncDirectory(of path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SampleLogError.io("cannot open the directory of", path: path, errno: errno) }
        defer { close(fd) }
        guard syncData(fd) == 0 || fsync(fd) == 0 else {
            throw SampleLogError.io("cannot sync the directory of", path: path, errno: errno)
        }
    }

    /// Creates `path` and its missing parents, making each new entry durable.
    static func makeDirectory(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try makeDirectory(parent) }
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
            throw SampleLogError.io("cannot create the directory", path: path, errno: errno)
        }
        try syncDirectory(of: path)
    }

    /// Writes all of `bytes` to `fd` (retrying short writes and `EINTR`); `path` names the file in the error.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var written = 0
        while written < bytes.count {
            let n = write(fd, bytes.baseAddress! + written, bytes.count - written)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw SampleLogError.io("cannot write", path: path, errno: n < 0 ? errno : EIO) }
            written += n
        }
    }

    /// Appends `bytes` to `path` (created if missing) and syncs it.
    static func appendDurably(_ path: String, _ bytes: [UInt8]) throws {
        let existed = FileManager.default.fileExists(atPath: path)
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC)
        guard fd >= 0 else { throw SampleLogError.io("cannot open", path: path, errno: errno) }
        defer { close(fd) }
        try bytes.withUnsafeBytes { try writeAll(fd, $0, path: path) }
        guard syncData(fd) == 0 else { throw SampleLogError.io("cannot sync", path: path, errno: errno) }
        if !existed { try syncDirectory(of: path) }
    }

    /// Keeps a file-size limit (`RLIMIT_FSIZE`) from killing the process with `SIGXFSZ`: a write past it then
    /// fails with `EFBIG`, which the sink survives like a full disk.
    static func ignoreFileSizeSignal() {
        signal(SIGXFSZ, SIG_IGN)
    }
}
