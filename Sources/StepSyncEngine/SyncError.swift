/// Why a sync could not start or had to stop: a message a user can act on.
public struct SyncError: Error, CustomStringConvertible, Sendable {
    private enum Code: Sendable {
        case alreadyRunning(lockPath: String, pid: String?)
        case cannotLock(lockPath: String, reason: String)
        case invalidServerURL(String, reason: String)
        case remote(String)
        case invalidCACertificate(String, reason: String)
    }

    private let code: Code

    private init(_ code: Code) { self.code = code }

    /// Another `stepsync sync` holds the data directory's lock.
    public static func alreadyRunning(lockPath: String, pid: String?) -> SyncError {
        SyncError(.alreadyRunning(lockPath: lockPath, pid: pid))
    }

    /// The lock file could not be opened.
    public static func cannotLock(lockPath: String, reason: String) -> SyncError {
        SyncError(.cannotLock(lockPath: lockPath, reason: reason))
    }

    /// `--server` is not an http(s) URL with a host.
    public static func invalidServerURL(_ url: String, reason: String) -> SyncError {
        SyncError(.invalidServerURL(url, reason: reason))
    }

    /// `--cacert` (or `STEPSYNC_CACERT`) names no PEM certificate.
    public static func invalidCACertificate(_ path: String, reason: String) -> SyncError {
        SyncError(.invalidCACertificate(path, reason: reason))
    }

    /// The sink answered a management request (`DELETE /steps`) with an error.
    public static func remote(_ message: String) -> SyncError {
        SyncError(.remote(message))
    }

    /// Whether this is the "another sync is running" error.
    public var isAlreadyRunning: Bool {
        if case .alreadyRunning = code { return true }
        return false
    }

    public var description: String {
        switch code {
        case .alreadyRunning(let path, let pid):
            let holder = pid.map { "stepsync sync (pid \($0))" } ?? "stepsync sync"
            return "another \(holder) is already running on this data directory (lock \(path)); "
                + "wait for it to finish or stop it with Ctrl-C, then run again"
        case .cannotLock(let path, let reason):
            return "cannot open the sync lock \(path): \(reason)"
        case .invalidServerURL(let url, let reason):
            return "--server \(url): \(reason) (expected e.g. http://127.0.0.1:8000)"
        case .remote(let message):
            return "the sink refused: \(message)"
        case .invalidCACertificate(let path, let reason):
            return "--cacert \(path): \(reason) (expected the PEM certificate of a CA or of the sink itself)"
        }
    }
}
