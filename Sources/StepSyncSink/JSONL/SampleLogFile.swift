import Foundation
import StepSyncCore

/// One data file of the JSONL sink at the system-call level: append + data sync, positional reads, truncation.
///
/// Only ``JSONLStorage`` uses it, and only one append runs at a time (its group-commit leader). Calls block; the
/// storage runs appends on NIO's thread pool. The file holds no descriptor of its own: each call leases one from the
/// storage's ``DescriptorCache``, so hundreds of type files cost a handful of descriptors. Every system call goes
/// through ``FileSystem`` (the platform's calls, picked at compile time).
final class SampleLogFile: Sendable {
    /// The file's path.
    let path: String
    private let descriptors: DescriptorCache

    /// Creates the file (and its directory) when missing, making a new file's directory entry durable (`fsync` of
    /// the directory); its descriptor is opened when first used, through `descriptors`.
    init(path: String, descriptors: DescriptorCache) throws {
        self.path = path
        self.descriptors = descriptors
        let directory = (path as NSString).deletingLastPathComponent
        try FileSystem.makeDirectory(directory.isEmpty ? "." : directory)
        if !FileManager.default.fileExists(atPath: path) {
            let fd = FileSystem.open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC)
            guard fd >= 0 else { throw SampleLogError.io("cannot create", path: path, errno: errno) }
            close(fd)
            try FileSystem.syncDirectory(of: path)
        }
    }

    /// Calls `body` with a descriptor of the file, leased from the cache.
    private func withFD<T>(_ body: (Int32) throws -> T) throws -> T {
        try descriptors.withDescriptor(path, body)
    }

    /// Writes `bytes` at the end (after cutting the file to nothing when `truncateFirst`), then syncs the data when
    /// `sync`. On any failure the file is cut back to its size before the call (best effort) so it never keeps part
    /// of a batch, and the error is thrown.
    func append(_ bytes: [UInt8], truncateFirst: Bool, sync: Bool) throws {
        try withFD { fd in try append(bytes, truncateFirst: truncateFirst, sync: sync, fd: fd) }
    }

    private func append(_ bytes: [UInt8], truncateFirst: Bool, sync: Bool, fd: Int32) throws {
        let before = lseek(fd, 0, SEEK_END)
        if truncateFirst {
            guard ftruncate(fd, 0) == 0 else { throw SampleLogError.io("cannot truncate", path: path, errno: errno) }
        }
        let start = truncateFirst ? 0 : before
        var written = 0
        try bytes.withUnsafeBytes { raw in
            while written < raw.count {
                let n = FileSystem.write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    let code = errno
                    _ = ftruncate(fd, start)
                    throw SampleLogError.io("cannot write", path: path, errno: code)
                }
                written += n
            }
        }
        if sync || truncateFirst {
            guard FileSystem.syncData(fd) == 0 else {
                let code = errno
                _ = ftruncate(fd, start)
                throw SampleLogError.io("cannot sync", path: path, errno: code)
            }
        }
    }

    /// Reads `length` bytes at `offset`.
    func read(offset: Int64, length: Int) throws -> [UInt8] {
        try withFD { fd in try read(offset: offset, length: length, fd: fd) }
    }

    private func read(offset: Int64, length: Int, fd: Int32) throws -> [UInt8] {
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
        try withFD { fd in
            guard ftruncate(fd, off_t(length)) == 0, FileSystem.syncData(fd) == 0 else {
                throw SampleLogError.io("cannot truncate", path: path, errno: errno)
            }
        }
    }

    /// Calls `body` with each complete line (without its `\n`) and the line's offset, reading 4 MiB at a time.
    /// Returns the offset just after the last complete line; bytes after it are a torn tail.
    func forEachLine(_ body: (UnsafeRawBufferPointer, Int64) throws -> Void) throws -> Int64 {
        try withFD { fd in try forEachLine(fd: fd, body) }
    }

    private func forEachLine(fd: Int32, _ body: (UnsafeRawBufferPointer, Int64) throws -> Void) throws -> Int64 {
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
                var i = 0
                while i < n {
                    guard let newline = memchr(raw.baseAddress! + i, 0x0A, n - i) else { break }
                    i = raw.baseAddress!.distance(to: UnsafeRawPointer(newline))
                    if carry.isEmpty {
                        try body(UnsafeRawBufferPointer(rebasing: raw[from..<i]), lineStart)
                    } else {
                        carry.append(contentsOf: raw[from..<i])
                        try carry.withUnsafeBytes { try body($0, lineStart) }
                        carry.removeAll(keepingCapacity: true)
                    }
                    lineStart = chunkStart + Int64(i) + 1
                    i += 1
                    from = i
                }
                carry.append(contentsOf: raw[from..<n])
            }
        }
        return lineStart
    }

    /// Writes the file's bytes except `excluding` (sorted, disjoint ranges) to a new file at `temporaryPath`, and
    /// syncs it; the caller renames it over this file.
    func writeCopy(to temporaryPath: String, excluding: [Range<Int64>]) throws {
        let out = FileSystem.open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC)
        guard out >= 0 else { throw SampleLogError.io("cannot create", path: temporaryPath, errno: errno) }
        defer { close(out) }
        var kept: [Range<Int64>] = []
        var from: Int64 = 0
        for range in excluding {
            if range.lowerBound > from { kept.append(from..<range.lowerBound) }
            from = range.upperBound
        }
        let end = try sizeOrThrow()
        if end > from { kept.append(from..<end) }
        for range in kept {
            var offset = range.lowerBound
            while offset < range.upperBound {
                let bytes = try read(offset: offset, length: Int(min(4 << 20, range.upperBound - offset)))
                var written = 0
                try bytes.withUnsafeBytes { raw in
                    while written < raw.count {
                        let n = FileSystem.write(out, raw.baseAddress! + written, raw.count - written)
                        if n < 0, errno == EINTR { continue }
                        guard n > 0 else { throw SampleLogError.io("cannot write", path: temporaryPath, errno: errno) }
                        written += n
                    }
                }
                offset += Int64(bytes.count)
            }
        }
        guard FileSystem.syncData(out) == 0 else { throw SampleLogError.io("cannot sync", path: temporaryPath, errno: errno) }
    }

    /// The file's size in bytes (0 when it cannot be read: the next write or read reports why).
    func size() -> Int64 { (try? sizeOrThrow()) ?? 0 }

    /// The file's size in bytes.
    func sizeOrThrow() throws -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw SampleLogError.io("cannot stat", path: path, errno: errno) }
        return Int64(info.st_size)
    }
}

/// The data file could not be read or written, or the data directory is in use.
public struct SampleLogError: Error, CustomStringConvertible {
    private enum Code { case io, locked }
    private let code: Code
    /// What happened, naming the file.
    public let description: String

    static func io(_ what: String, path: String, errno: Int32) -> SampleLogError {
        SampleLogError(code: .io, description: "\(what) \(path): \(String(cString: strerror(errno)))")
    }

    static func locked(directory: String, holder: String) -> SampleLogError {
        SampleLogError(code: .locked, description: """
            another sink (\(holder)) is serving \(directory): stop it first, or serve another data directory
            """)
    }

    /// Whether the data directory is held by another sink.
    public var isLocked: Bool { code == .locked }
}
