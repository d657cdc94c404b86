import Foundation

extension ExportOutput {
    /// `.<name>.<pid>.tmp`: the temporary name of an export to `name` by process `pid`.
    static func temporaryName(_ name: String, pid: pid_t) -> String { ".\(name).\(pid).tmp" }

    /// The writer's pid when `entry` is a temporary name of an export to `name` (``temporaryName(_:pid:)``).
    static func temporaryWriter(_ entry: String, name: String) -> pid_t? {
        let prefix = ".\(name).", suffix = ".tmp"
        guard entry.hasPrefix(prefix), entry.hasSuffix(suffix),
              entry.count > prefix.count + suffix.count else { return nil }
        let digits = entry.dropFirst(prefix.count).dropLast(suffix.count)
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let pid = pid_t(digits), pid > 0 else { return nil }
        return pid
    }

    /// Removes the temporary files beside `path` that exports to it killed with `kill -9` left (their process is
    /// gone: `kill(pid, 0)` says ESRCH). One whose writer still runs, or whose pid now belongs to another process,
    /// is left alone; only regular files are removed. Best effort: a directory that cannot be read is skipped.
    static func removeStaleTemporaries(beside path: String) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path, name = url.lastPathComponent
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for entry in entries {
            guard let pid = temporaryWriter(entry, name: name), pid != getpid() else { continue }
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            let full = (directory as NSString).appendingPathComponent(entry)
            var status = stat()
            guard lstat(full, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
            unlink(full)
        }
    }

    /// A file with no name in `directory` (`O_TMPFILE`, Linux ≥ 3.11 on ext4, xfs, btrfs, tmpfs), open for writing;
    /// -1 where the system or file system cannot make one.
    static func openUnnamed(in directory: String) -> Int32 {
        #if os(Linux)
        // <fcntl.h>'s O_TMPFILE is (__O_TMPFILE | O_DIRECTORY), which Swift does not import; __O_TMPFILE is 020000000
        // on every Linux architecture but alpha, parisc and sparc.
        let tmpfile: Int32 = 0o20000000 | O_DIRECTORY
        return open(directory.isEmpty ? "." : directory, tmpfile | O_WRONLY | O_CLOEXEC, 0o644)
        #else
        return -1
        #endif
    }
}
