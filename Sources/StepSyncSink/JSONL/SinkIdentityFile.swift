import Foundation

/// The identity of a JSONL sink's data (`<dir>/sink-id`: a uuid and a newline), made once, when a sink first opens
/// the directory, and answered by `GET /health` (``SinkHealthBody/sink``): a client's ledger remembers it, so a
/// sync pointed at another sink — or at this address after its directory was wiped — is found out before it sends
/// (`SinkTarget`).
///
/// Written durably (a temporary file, `fsync`, `rename`, the directory synced) under the directory's lock, so a crash
/// leaves either no file or the whole one. A file that does not hold a uuid (edited by hand, damaged) is replaced:
/// the data's identity is then new, which costs a client one `sync --resend`, never a wrong "synced".
enum SinkIdentityFile {
    /// The file's name in the data directory.
    static let name = "sink-id"

    /// The identity of the data in `directory`, made now if it has none. `nil` when the file can neither be read nor
    /// written (a read-only directory): the sink then answers without an identity, as older sinks do.
    static func identity(in directory: String) -> String? {
        let path = (directory as NSString).appendingPathComponent(name)
        if let text = try? String(contentsOfFile: path, encoding: .utf8),
           let uuid = UUID(uuidString: text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            return uuid.uuidString.lowercased()
        }
        let identity = UUID().uuidString.lowercased()
        let temporary = path + ".tmp"
        let fd = FileSystem.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let bytes = Array((identity + "\n").utf8)
        let written = bytes.withUnsafeBytes { FileSystem.write(fd, $0.baseAddress!, $0.count) }
        let synced = FileSystem.syncData(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            return nil
        }
        try? FileSystem.syncDirectory(of: path)
        return identity
    }
}
