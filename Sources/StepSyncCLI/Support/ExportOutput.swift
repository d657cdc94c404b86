import Foundation

/// Where `stepsync export` writes: stdout (`--out -`), or a temporary file beside `--out` that ``commit()`` renames
/// to it once every row is written (and synced to disk), so a failure or an interrupt leaves either the old file or
/// none, never a partial one.
///
/// On Linux the rows go to an unnamed file (`O_TMPFILE` in `--out`'s directory), which only ``commit()`` gives a
/// name (`linkat` as `.<name>.<pid>.tmp`, then `rename` over `--out`): a `kill -9` mid-export leaves nothing on disk.
/// Where the file system cannot make unnamed files the temporary file is `.<name>.<pid>.tmp` from the start; a run
/// killed then leaves it, and the next export to the same `--out` removes every such file whose process is gone
/// (``removeStaleTemporaries(beside:)``).
struct ExportOutput {
    /// The path of `--out` (`-` for stdout).
    let path: String
    /// The name the rows get before the rename to `path`, `nil` for stdout.
    let temporaryPath: String?
    /// Whether the rows go to an unnamed file (`O_TMPFILE`), named only at ``commit()``.
    private let unnamed: Bool
    private let descriptor: Int32
    /// Bytes written so far.
    private(set) var bytesWritten: Int64 = 0
    /// Whether the temporary file is closed (renamed or removed).
    private var closed = false

    /// Opens `path` for writing: stdout for `-`; otherwise refuses an existing file unless `force`, removes the
    /// temporaries killed exports left beside it, and creates the temporary file (mode 0644, less the umask).
    init(path: String, force: Bool) throws(ExportError) {
        self.path = path
        if path == "-" {
            temporaryPath = nil
            unnamed = false
            descriptor = STDOUT_FILENO
            return
        }
        if !force, FileManager.default.fileExists(atPath: path) { throw .exists(path) }
        Self.removeStaleTemporaries(beside: path)
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let temporary = (directory as NSString).appendingPathComponent(Self.temporaryName(url.lastPathComponent, pid: getpid()))
        temporaryPath = temporary
        let anonymous = Self.openUnnamed(in: directory)
        if anonymous >= 0 {
            unnamed = true
            descriptor = anonymous
            return
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .create(temporary, errno: errno) }
        unnamed = false
        descriptor = fd
    }

    /// Whether rows go to stdout.
    var isStandardOutput: Bool { temporaryPath == nil }

    /// Writes all of `bytes`.
    mutating func write(_ bytes: [UInt8]) throws(ExportError) {
        var done = 0
        let error: Int32? = bytes.withUnsafeBytes { raw in
            while done < raw.count {
                let n = Foundation.write(descriptor, raw.baseAddress! + done, raw.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += n
            }
            return nil
        }
        bytesWritten += Int64(done)
        if let error { throw .write(temporaryPath ?? "stdout", errno: error) }
    }

    /// Syncs the temporary file, names it (an unnamed one) and renames it to `path` (replacing a file there); nothing
    /// for stdout. On failure the temporary file is removed.
    mutating func commit() throws(ExportError) {
        guard let temporaryPath, !closed else { return }
        if fsync(descriptor) != 0 {
            let number = errno
            discard()
            throw .write(temporaryPath, errno: number)
        }
        if unnamed {
            // The documented way to name an O_TMPFILE file without privileges (open(2)).
            if linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, temporaryPath, AT_SYMLINK_FOLLOW) != 0 {
                let number = errno
                discard()
                throw .create(temporaryPath, errno: number)
            }
        }
        close(descriptor)
        closed = true
        if rename(temporaryPath, path) != 0 {
            let number = errno
            unlink(temporaryPath)
            throw .rename(temporaryPath, to: path, errno: number)
        }
    }

    /// Closes and removes the temporary file (after a failure); nothing for stdout or once closed.
    mutating func discard() {
        guard let temporaryPath, !closed else { return }
        close(descriptor)
        closed = true
        if !unnamed { unlink(temporaryPath) }
    }
}
