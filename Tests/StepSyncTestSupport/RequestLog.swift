import Logging
import Synchronization

/// The sink's "Request" log lines, kept as their metadata's texts (`http.status`, `http.route`, `request.id`, …),
/// for tests that read what the sink logged of each request.
public final class RequestLog: Sendable {
    private let lines = Mutex<[[String: String]]>([])
    private let all = Mutex<[String]>([])

    public init() {}

    /// Every "Request" line so far, oldest first.
    public var requests: [[String: String]] { lines.withLock { $0 } }

    /// Every message logged at info or above, oldest first (the "Request" lines among them).
    public var messages: [String] { all.withLock { $0 } }

    /// How many answers had `status`.
    public func count(_ status: Int) -> Int { requests.filter { $0["http.status"] == "\(status)" }.count }

    /// A logger at info whose "Request" lines are kept here.
    public var logger: Logger {
        var logger = Logger(label: "sink") { _ in Handler(log: self) }
        logger.logLevel = .info
        return logger
    }

    private struct Handler: LogHandler {
        let log: RequestLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.all.withLock { $0.append(event.message.description) }
            guard event.message.description == "Request" else { return }
            let line = metadata.merging(event.metadata ?? [:]) { $1 }.mapValues { "\($0)" }
            log.lines.withLock { $0.append(line) }
        }
    }
}
