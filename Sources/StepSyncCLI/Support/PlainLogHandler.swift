import Foundation
import Logging

/// A log handler for commands people run in a terminal (`sync`, `reset`): one plain line on stderr per message,
/// `stepsync: <message> (key=value, …)`, without the timestamp, level and label of swift-log's stream handler, so
/// that the engine's few notices read like the command's own lines.
struct PlainLogHandler: StoredMetadataLogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    init(level: Logger.Level) {
        logLevel = level
    }

    func log(event: LogEvent) {
        let merged = metadata(merging: event)
        var line = "stepsync: \(event.message)"
        if !merged.isEmpty {
            let pairs = merged.sorted { $0.key < $1.key }.map { "\($0.key.split(separator: ".").last ?? "")=\($0.value)" }
            line += " (" + pairs.joined(separator: ", ") + ")"
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// A logger for `label` printing plain lines at `level` and above.
    static func logger(_ label: String, level: Logger.Level = .notice) -> Logger {
        Logger(label: label) { _ in PlainLogHandler(level: level) }
    }
}
