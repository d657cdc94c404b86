#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Logging
import StepSyncCore

/// The data file `steps.jsonl` at the system-call level: append + `fdatasync`, positional reads, truncation.
///
/// Only ``SampleLog`` uses it, and only one append runs at a time (its group-commit leader), so the descriptor
/// needs no lock. Calls block; the log runs appends on NIO's thread pool.
final class SampleLogFile: Sendable {
    /// The file's path.
    let path: String
    private let fd: Int32

    /// Opens (creating it and its directory) the file for appending and reading.
    init(path: String) throws {
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let fd = Glibc.open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SampleLogError.io("cannot open", path: path, errno: errno) }
        self.fd = fd
    }

    /// Writes `bytes` at the end (after cutting the file to nothing when `truncateFirst`), then `fdatasync`s when
    /// `sync`. A short or failed write is cut off again so the file never keeps part of a batch.
    func append(_ bytes: [UInt8], truncateFirst: Bool, sync: Bool) throws {
        if truncateFirst {
            guard ftruncate(fd, 0) == 0 else { throw SampleLogError.io("cannot truncate", path: path, errno: errno) }
        }
        let start = lseek(fd, 0, SEEK_END)
        var written = 0
        try bytes.withUnsafeBytes { raw in
            while written < raw.count {
                let n = write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    let code = errno
                    _ = ftruncate(fd, start)
                    throw SampleLogError.io("cannot write", path: path, errno: code)
                }
                written += n
            }
        }
        if sync {
            guard fdatasync(fd) == 0 else { throw SampleLogError.io("cannot fdatasync", path: path, errno: errno) }
        }
    }

    /// Reads `length` bytes at `offset`.
    func read(offset: Int64, length: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        var done = 0
        try out.withUnsafeMutableBytes { raw in
            while done < length {
                let n = pread(fd, raw.baseAddress! + done, length - done, off_t(offset) + off_t(done))
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { throw SampleLogError.io("cannot read", path: path, errno: n < 0 ? errno : EIO) }
                done += n
            }
        }
        return out
    }

    /// Cuts the file to `length` bytes and syncs it.
    func truncate(to length: Int64) throws {
        guard ftruncate(fd, off_t(length)) == 0, fdatasync(fd) == 0 else {
            throw SampleLogError.io("cannot truncate", path: path, errno: errno)
        }
    }

    /// Calls `body` with each complete line (without its `\n`) and the line's offset, reading 4 MiB at a time.
    /// Returns the offset just after the last complete line; bytes after it are a torn tail.
    func forEachLine(_ body: (UnsafeRawBufferPointer, Int64) throws -> Void) throws -> Int64 {
        let chunk = 4 << 20
        var carry: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        var fileOffset: Int64 = 0
        var lineStart: Int64 = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, chunk, off_t(fileOffset)) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw SampleLogError.io("cannot read", path: path, errno: errno) }
            if n == 0 { break }
            let chunkStart = fileOffset
            fileOffset += Int64(n)
            try buffer.withUnsafeBytes { raw in
                var from = 0
                for i in 0..<n where raw[i] == 0x0A {
                    if carry.isEmpty {
                        try body(UnsafeRawBufferPointer(rebasing: raw[from..<i]), lineStart)
                    } else {
                        carry.append(contentsOf: raw[from..<i])
                        try carry.withUnsafeBytes { try body($0, lineStart) }
                        carry.removeAll(keepingCapacity: true)
                    }
                    lineStart = chunkStart + Int64(i) + 1
                    from = i + 1
                }
                carry.append(contentsOf: raw[from..<n])
            }
        }
        return lineStart
    }

    /// The file's size in bytes.
    func size() -> Int64 { Int64(lseek(fd, 0, SEEK_END)) }

    deinit { close(fd) }
}

/// The data file could not be read or written, or holds a line that is neither a sample nor a tombstone.
public struct SampleLogError: Error, CustomStringConvertible {
    private enum Code { case io, corrupt }
    private let code: Code
    /// What happened, naming the file (and line).
    public let description: String

    static func io(_ what: String, path: String, errno: Int32) -> SampleLogError {
        SampleLogError(code: .io, description: "\(what) \(path): \(String(cString: strerror(errno)))")
    }

    static func corrupt(path: String, line: Int, problem: String) -> SampleLogError {
        SampleLogError(code: .corrupt, description: """
            \(path) line \(line) is neither a sample nor a tombstone (\(problem)), and valid lines follow it: \
            fix or remove that line, then start the sink again
            """)
    }
}
