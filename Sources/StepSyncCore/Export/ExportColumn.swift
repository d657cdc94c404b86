import Foundation

/// One column of an export row, in order: its name (the CSV header's, the NDJSON key) and its cell of a sample.
///
/// The one list of columns: ``ExportEncoder`` writes the header and both formats' rows from it.
enum ExportColumn: String, CaseIterable, Sendable {
    case uuid, type, start, end, value, unit, source, sourceBundleId, sourceVersion, device, deviceModel
    case utcOffsetSeconds, details

    /// The columns in order, built once (`allCases` makes a new array at every call).
    static let all = allCases

    /// A cell: what a column holds, which decides how each format writes it.
    enum Cell {
        /// The sample's uuid, upper case (quoted in NDJSON).
        case uuid(UUID)
        /// An instant in UTC ms, as ISO-8601 with milliseconds (quoted in NDJSON).
        case instant(Int64)
        /// A number: an integer when whole, else the shortest round-trip decimal.
        case number(Double)
        /// A whole number, or nothing.
        case integer(Int64?)
        /// Text, or nothing.
        case text(String?)
        /// A JSON object's text, or nothing (empty text is nothing): a CSV text cell, the object itself in NDJSON.
        case json(String?)
    }

    /// This column's cell of `sample`.
    @inline(__always)
    func cell(of sample: HealthSample) -> Cell {
        switch self {
        case .uuid: .uuid(sample.uuid)
        case .type: .text(sample.type.rawValue)
        case .start: .instant(sample.startMs)
        case .end: .instant(sample.endMs)
        case .value: .number(sample.value)
        case .unit: .text(sample.unit)
        case .source: .text(sample.sourceName)
        case .sourceBundleId: .text(sample.sourceBundleId)
        case .sourceVersion: .text(sample.sourceVersion)
        case .device: .text(sample.deviceName)
        case .deviceModel: .text(sample.deviceModel)
        case .utcOffsetSeconds: .integer(sample.utcOffsetSeconds.map(Int64.init))
        case .details: .json(sample.details)
        }
    }
}
