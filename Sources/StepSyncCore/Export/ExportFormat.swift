/// The formats `stepsync export` and the sink's `GET /export` write: one row per sample, the columns of
/// ``ExportEncoder/columns`` in that order.
public enum ExportFormat: String, CaseIterable, Sendable {
    /// RFC 4180 CSV with a header row, fields quoted only when they must be, lines ended by LF (`Planning/export.md`).
    case csv
    /// Newline-delimited JSON: one object per line with the columns as keys, `details` as a JSON object.
    case ndjson

    /// The HTTP `Content-Type` of a body in this format.
    public var contentType: String {
        switch self {
        case .csv: "text/csv; charset=utf-8"
        case .ndjson: "application/x-ndjson"
        }
    }

    /// The file name extension (without the dot).
    public var fileExtension: String { rawValue }

    /// The format named `text` (`csv`, `ndjson`; any case; `jsonl` is taken for `ndjson`), or `nil`.
    public init?(name text: some StringProtocol) {
        switch text.lowercased() {
        case "csv": self = .csv
        case "ndjson", "jsonl": self = .ndjson
        default: return nil
        }
    }
}
