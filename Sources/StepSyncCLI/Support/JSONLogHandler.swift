import Foundation
import Logging
import StepSyncCore

/// A log handler for log shippers (`serve --log-format json`): one JSON object a line on stderr, with `time`
/// (ISO-8601, UTC, milliseconds), `level`, `label`, `message` and each metadata key as a field of its own
/// (`request.id`, `http.route`, `http.status`, `http.duration` in seconds, `client`, …). Numbers stay numbers; other
/// values are strings; a nested value is an array or object. One `write(2)` a line, so lines from concurrent
/// requests never interleave.
struct JSONLogHandler: StoredMetadataLogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    /// The label of the logger.
    let label: String
    /// Where the time is read.
    let time: TimeSource
    /// Where the lines go (stderr by default; tests read them back).
    let write: @Sendable ([UInt8]) -> Void

    init(label: String, level: Logger.Level, time: TimeSource,
         write: @escaping @Sendable ([UInt8]) -> Void = { FileHandle.standardError.write(Data($0)) }) {
        self.label = label
        self.logLevel = level
        self.time = time
        self.write = write
    }

    func log(event: LogEvent) {
        let merged = metadata(merging: event)
        write(Self.line(time: time.nowMs(), level: event.level, label: label, message: "\(event.message)",
                        metadata: merged))
    }

    /// The JSON line of one event (ending in `\n`). The fixed keys come first; a metadata key that repeats one of
    /// them is written as `metadata.<key>`.
    static func line(time: Int64, level: Logger.Level, label: String, message: String,
                     metadata: Logger.Metadata) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        out.append(contentsOf: #"{"time":"#.utf8)
        JSONBytes.appendString(ISO8601Millis.format(time), to: &out)
        out.append(contentsOf: #","level":"#.utf8)
        JSONBytes.appendString(level.rawValue, to: &out)
        out.append(contentsOf: #","label":"#.utf8)
        JSONBytes.appendString(label, to: &out)
        out.append(contentsOf: #","message":"#.utf8)
        JSONBytes.appendString(message, to: &out)
        let fixed: Set<String> = ["time", "level", "label", "message"]
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            out.append(UInt8(ascii: ","))
            JSONBytes.appendString(fixed.contains(key) ? "metadata." + key : key, to: &out)
            out.append(UInt8(ascii: ":"))
            append(value, to: &out)
        }
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    /// A metadata value: a finite number or a Bool as itself, any other value as its text.
    private static func append(_ value: Logger.Metadata.Value, to out: inout [UInt8]) {
        switch value {
        case .string(let text):
            JSONBytes.appendString(text, to: &out)
        case .stringConvertible(let convertible):
            switch convertible {
            case let number as any BinaryInteger:
                out.append(contentsOf: "\(number)".utf8)
            case let number as Double where number.isFinite:
                out.append(contentsOf: "\(number)".utf8)
            case let flag as Bool:
                out.append(contentsOf: (flag ? "true" : "false").utf8)
            default:
                JSONBytes.appendString(convertible.description, to: &out)
            }
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (i, element) in values.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                append(element, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .dictionary(let fields):
            out.append(UInt8(ascii: "{"))
            for (i, (key, element)) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONBytes.appendString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                append(element, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
