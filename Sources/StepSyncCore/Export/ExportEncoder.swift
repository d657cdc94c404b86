/// Writes samples as export rows: the one row format of `stepsync export` and the sink's `GET /export`, so both give
/// the same bytes for the same samples.
///
/// Columns, in order (``columns``): `uuid` (upper case), `type` (the HealthKit identifier), `start` and `end`
/// (ISO-8601 UTC with milliseconds), `value` (an integer when whole, else the shortest round-trip decimal, as on the
/// wire), `unit`, `source` (name), `sourceBundleId`, `sourceVersion`, `device` (name), `deviceModel`,
/// `utcOffsetSeconds`, `details` (the sample's JSON object).
///
/// - CSV (RFC 4180): a header row, then a row per sample; a field is quoted only when it must be (``CSVField``);
///   an absent value is the empty field; `details` is the JSON text (so always quoted, its quotes doubled); every
///   line ends with LF.
/// - NDJSON: an object per line with the columns as keys in the same order; an absent value is `null`; `details` is
///   the JSON object itself, not a string.
public enum ExportEncoder {
    /// The column names (CSV header, NDJSON keys), in order (``ExportColumn``).
    public static let columns = ExportColumn.all.map(\.rawValue)

    /// Each column's NDJSON key with what goes before it: `{"uuid":`, `,"type":`, ….
    private static let ndjsonKeys: [[UInt8]] = columns.enumerated().map { index, name in
        Array("\(index == 0 ? "{" : ",")\"\(name)\":".utf8)
    }

    /// What a body in `format` begins with: the CSV header row, nothing for NDJSON.
    public static func header(_ format: ExportFormat) -> [UInt8] {
        switch format {
        case .csv: Array((columns.joined(separator: ",") + "\n").utf8)
        case .ndjson: []
        }
    }

    /// Appends the line of `sample` in `format` (with its final LF).
    @inline(__always)
    public static func appendRow(_ sample: HealthSample, format: ExportFormat, to out: inout [UInt8]) {
        switch format {
        case .csv: appendCSVRow(sample, to: &out)
        case .ndjson: appendNDJSONLine(sample, to: &out)
        }
    }

    /// The lines of `samples` in `format` (without the header).
    public static func rows(_ samples: some Sequence<HealthSample>, format: ExportFormat) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(samples.underestimatedCount * 256)
        for sample in samples { appendRow(sample, format: format, to: &out) }
        return out
    }

    // MARK: - CSV

    static func appendCSVRow(_ sample: HealthSample, to out: inout [UInt8]) {
        for column in ExportColumn.all {
            if column != .uuid { out.append(UInt8(ascii: ",")) }
            switch column.cell(of: sample) {
            case .uuid(let uuid): WireEncoder.appendUUID(uuid, to: &out)
            case .instant(let ms): WireEncoder.appendDate(ms, to: &out)
            case .number(let value): JSONBytes.appendNumber(value, to: &out)
            case .integer(let value): if let value { JSONBytes.appendInteger(value, to: &out) }
            case .text(let text), .json(let text): CSVField.append(text, to: &out)
            }
        }
        out.append(UInt8(ascii: "\n"))
    }

    // MARK: - NDJSON

    static func appendNDJSONLine(_ sample: HealthSample, to out: inout [UInt8]) {
        for (index, column) in ExportColumn.all.enumerated() {
            out.append(contentsOf: ndjsonKeys[index])
            switch column.cell(of: sample) {
            case .uuid(let uuid):
                out.append(UInt8(ascii: "\""))
                WireEncoder.appendUUID(uuid, to: &out)
                out.append(UInt8(ascii: "\""))
            case .instant(let ms):
                out.append(UInt8(ascii: "\""))
                WireEncoder.appendDate(ms, to: &out)
                out.append(UInt8(ascii: "\""))
            case .number(let value): JSONBytes.appendNumber(value, to: &out)
            case .integer(let value):
                if let value { JSONBytes.appendInteger(value, to: &out) } else { out.append(contentsOf: "null".utf8) }
            case .text(let text): appendOptionalString(text, to: &out)
            case .json(let text):
                // Stored details are one JSON object (checked at every door), written as is.
                if let text, !text.isEmpty {
                    out.append(contentsOf: text.utf8)
                } else {
                    out.append(contentsOf: "null".utf8)
                }
            }
        }
        out.append(contentsOf: "}\n".utf8)
    }

    @inline(__always)
    private static func appendOptionalString(_ text: String?, to out: inout [UInt8]) {
        if let text {
            JSONBytes.appendString(text, to: &out)
        } else {
            out.append(contentsOf: "null".utf8)
        }
    }
}
