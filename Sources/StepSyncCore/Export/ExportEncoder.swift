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
    /// The column names (CSV header, NDJSON keys), in order.
    public static let columns = ["uuid", "type", "start", "end", "value", "unit", "source", "sourceBundleId",
                                 "sourceVersion", "device", "deviceModel", "utcOffsetSeconds", "details"]

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
        let comma = UInt8(ascii: ",")
        WireEncoder.appendUUID(sample.uuid, to: &out)
        out.append(comma)
        CSVField.append(sample.type.rawValue, to: &out)
        out.append(comma)
        WireEncoder.appendDate(sample.startMs, to: &out)
        out.append(comma)
        WireEncoder.appendDate(sample.endMs, to: &out)
        out.append(comma)
        JSONBytes.appendNumber(sample.value, to: &out)
        out.append(comma)
        CSVField.append(sample.unit, to: &out)
        out.append(comma)
        CSVField.append(sample.sourceName, to: &out)
        out.append(comma)
        CSVField.append(sample.sourceBundleId, to: &out)
        out.append(comma)
        CSVField.append(sample.sourceVersion, to: &out)
        out.append(comma)
        CSVField.append(sample.deviceName, to: &out)
        out.append(comma)
        CSVField.append(sample.deviceModel, to: &out)
        out.append(comma)
        if let offset = sample.utcOffsetSeconds { JSONBytes.appendInteger(Int64(offset), to: &out) }
        out.append(comma)
        CSVField.append(sample.details, to: &out)
        out.append(UInt8(ascii: "\n"))
    }

    // MARK: - NDJSON

    static func appendNDJSONLine(_ sample: HealthSample, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"uuid":""#.utf8)
        WireEncoder.appendUUID(sample.uuid, to: &out)
        out.append(contentsOf: #"","type":"#.utf8)
        JSONBytes.appendString(sample.type.rawValue, to: &out)
        out.append(contentsOf: #","start":""#.utf8)
        WireEncoder.appendDate(sample.startMs, to: &out)
        out.append(contentsOf: #"","end":""#.utf8)
        WireEncoder.appendDate(sample.endMs, to: &out)
        out.append(contentsOf: #"","value":"#.utf8)
        JSONBytes.appendNumber(sample.value, to: &out)
        out.append(contentsOf: #","unit":"#.utf8)
        JSONBytes.appendString(sample.unit, to: &out)
        out.append(contentsOf: #","source":"#.utf8)
        JSONBytes.appendString(sample.sourceName, to: &out)
        out.append(contentsOf: #","sourceBundleId":"#.utf8)
        JSONBytes.appendString(sample.sourceBundleId, to: &out)
        out.append(contentsOf: #","sourceVersion":"#.utf8)
        appendOptionalString(sample.sourceVersion, to: &out)
        out.append(contentsOf: #","device":"#.utf8)
        appendOptionalString(sample.deviceName, to: &out)
        out.append(contentsOf: #","deviceModel":"#.utf8)
        appendOptionalString(sample.deviceModel, to: &out)
        out.append(contentsOf: #","utcOffsetSeconds":"#.utf8)
        if let offset = sample.utcOffsetSeconds {
            JSONBytes.appendInteger(Int64(offset), to: &out)
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(contentsOf: #","details":"#.utf8)
        // Stored details are one JSON object (checked at every door), written as is.
        if let details = sample.details, !details.isEmpty {
            out.append(contentsOf: details.utf8)
        } else {
            out.append(contentsOf: "null".utf8)
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
