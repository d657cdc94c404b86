import Foundation

/// Reads one route or ECG file of an unzipped export (the folders beside a bare `export.xml`), and only if it is a
/// regular file inside the export's folder.
///
/// The folder is someone else's: a file named as a route may be a symbolic link out of it (a GPX elsewhere on disk
/// would be stored and synced), or a FIFO, socket or device (opening a FIFO for reading waits for a writer forever;
/// a device's open may act). So the path is resolved (`realpath`: every link followed) and must stay under the
/// folder's own resolved path; it must then be a regular file (`stat`) before it is opened, and it is opened with
/// `O_NOFOLLOW | O_NONBLOCK` (a link swapped in after the check is refused, a FIFO swapped in does not block) and
/// checked again on the open descriptor (`fstat`). A link that stays inside the folder is followed.
enum FolderFile {
    /// The bytes of `relative` (components without `.` or `..`, checked by the caller) under `base`, at most
    /// `maxBytes`.
    ///
    /// - Throws: ``ExportAttachments/Problem``: `missing` (no such file, a dangling link, a directory),
    ///   `outsideExport` (resolves out of `base`), `notRegularFile` (a FIFO, socket or device), `tooLarge`,
    ///   `unreadable`.
    static func read(_ relative: String, under base: URL, maxBytes: Int) throws(ExportAttachments.Problem) -> [UInt8] {
        let path = base.appendingPathComponent(relative).path
        guard let root = resolved(base.path), let target = resolved(path) else { throw .missing }
        guard target.hasPrefix(root.hasSuffix("/") ? root : root + "/") else { throw .outsideExport(target) }
        var status = stat()
        guard stat(target, &status) == 0 else { throw .missing }
        if status.st_mode & S_IFMT == S_IFDIR { throw .missing }
        if let kind = special(status.st_mode) { throw .notRegularFile(kind) }
        let fd = open(target, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let number = errno
            if number == ELOOP { throw .outsideExport(target) }
            throw .unreadable(String(cString: strerror(number)))
        }
        defer { close(fd) }
        guard fstat(fd, &status) == 0 else { throw .unreadable(String(cString: strerror(errno))) }
        if let kind = special(status.st_mode) { throw .notRegularFile(kind) }
        guard status.st_size <= maxBytes else { throw .tooLarge(UInt64(status.st_size), limit: maxBytes) }
        // Read to the end (the file may have grown since fstat), never past the limit.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(status.st_size))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= maxBytes {
            let n = chunk.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .unreadable(String(cString: strerror(errno)))
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        guard bytes.count <= maxBytes else { throw .tooLarge(UInt64(bytes.count), limit: maxBytes) }
        return bytes
    }

    /// `path` with every symbolic link, `.` and `..` resolved; `nil` when it (or a link's target) does not exist.
    private static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// What a file of `mode` is when it is not a regular file or a directory (`a FIFO`), else `nil`.
    private static func special(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG, S_IFDIR: nil
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "not a regular file"
        }
    }
}
