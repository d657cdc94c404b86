import Foundation
import NIOCore
import PostgresNIO
import StepSyncCore

/// Decodes stored samples: a page packed by ``PostgresSampleStorage/pageQuery(client:type:after:from:to:limit:)``
/// in one `bytea` (``sample(packed:)``: one row a page, so PostgresNIO parses one row instead of 5,000), or a row of
/// the sample columns by reading each cell's bytes directly (``sample(_:)``). Before issue 31 PostgresNIO's variadic
/// `PostgresRow.decode` looked up generic metadata for every column of every row (42% of the sink's CPU for
/// `/export`), and NIO's parsing of 5,000 rows a page another 24%. A text equal to the same column's in the sample
/// before gives back that sample's `String` (a history repeats its sources and devices), so most samples allocate no
/// text at all.
///
/// A cell of the wrong width or type is a query error naming its column (never *unavailable*: the database
/// answered); text that is not valid UTF-8 is repaired as PostgresNIO's `String` decoding does.
struct SampleRowDecoder {
    /// The sample type of every row.
    let type: SampleType
    /// The text columns' last values (unit, source, bundle, version, device, model), for reuse.
    private var last: [String?] = Array(repeating: nil, count: 6)

    /// A decoder of rows of `type`.
    init(type: SampleType) { self.type = type }

    /// The sample in `row`.
    mutating func sample(_ row: PostgresRow) throws -> HealthSample {
        var cells = row.makeIterator()
        let uuid = try Self.uuid(Self.next(&cells))
        let start = try Self.instant(Self.next(&cells))
        let end = try Self.instant(Self.next(&cells))
        let offset = try Self.int32(Self.next(&cells))
        let value = try Self.double(Self.next(&cells))
        let unit = try text(Self.next(&cells), slot: 0) ?? Self.missing("unit")
        let name = try text(Self.next(&cells), slot: 1) ?? Self.missing("source_name")
        let bundle = try text(Self.next(&cells), slot: 2) ?? Self.missing("source_bundle_id")
        let version = try text(Self.next(&cells), slot: 3)
        let device = try text(Self.next(&cells), slot: 4)
        let model = try text(Self.next(&cells), slot: 5)
        let details = try Self.next(&cells).bytes.map { bytes in String(buffer: bytes) }
        return HealthSample(uuid: uuid, type: type, startMs: start, endMs: end, utcOffsetSeconds: offset, value: value,
                            unit: unit, sourceName: name, sourceBundleId: bundle, sourceVersion: version,
                            deviceName: device, deviceModel: model, details: details)
    }

    /// The next sample packed in `reader` by ``PostgresSampleStorage/pageQuery(client:type:after:from:to:limit:)``:
    /// uuid (16 bytes), start and end (`timestamptz_send`), value (`float8send`), the UTC offset (a byte 1 and
    /// `int4send`, or five zero bytes), then unit, source, bundle id, version, device, model and details, each its
    /// length (`int4send`, -1: NULL) and its UTF-8.
    mutating func sample(packed reader: inout ByteBuffer) throws -> HealthSample {
        guard let uuidBytes = reader.readBytes(length: 16), let startMicros = reader.readInteger(as: Int64.self),
              let endMicros = reader.readInteger(as: Int64.self), let bits = reader.readInteger(as: UInt64.self),
              let hasOffset = reader.readInteger(as: UInt8.self), let offset = reader.readInteger(as: Int32.self)
        else { throw Self.truncated() }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: uuidBytes) }
        let unit = try packedText(&reader, slot: 0) ?? Self.missing("unit")
        let name = try packedText(&reader, slot: 1) ?? Self.missing("source_name")
        let bundle = try packedText(&reader, slot: 2) ?? Self.missing("source_bundle_id")
        let version = try packedText(&reader, slot: 3)
        let device = try packedText(&reader, slot: 4)
        let model = try packedText(&reader, slot: 5)
        let details = try packedText(&reader, slot: nil)
        return HealthSample(uuid: UUID(uuid: uuid), type: type,
                            startMs: PostgresInstant.milliseconds(microseconds: startMicros),
                            endMs: PostgresInstant.milliseconds(microseconds: endMicros),
                            utcOffsetSeconds: hasOffset == 1 ? offset : nil, value: Double(bitPattern: bits),
                            unit: unit, sourceName: name, sourceBundleId: bundle, sourceVersion: version,
                            deviceName: device, deviceModel: model, details: details)
    }

    /// A length-prefixed text of a packed sample (nil for length -1), shared with the last sample's in `slot`.
    private mutating func packedText(_ reader: inout ByteBuffer, slot: Int?) throws -> String? {
        guard let length = reader.readInteger(as: Int32.self) else { throw Self.truncated() }
        if length == -1 { return nil }
        guard length >= 0, let bytes = reader.readSlice(length: Int(length)) else { throw Self.truncated() }
        guard let slot else { return String(buffer: bytes) }
        if let previous = last[slot], Self.same(previous, bytes) { return previous }
        let text = String(buffer: bytes)
        last[slot] = text
        return text
    }

    private static func truncated() -> PostgresStorageError {
        PostgresStorageError.query("a page of stored samples ends inside a sample")
    }

    /// The text of `cell` (nil when NULL), the last row's `String` of the column when the bytes are the same.
    private mutating func text(_ cell: PostgresCell, slot: Int) throws -> String? {
        guard let bytes = cell.bytes else { return nil }
        if let previous = last[slot], Self.same(previous, bytes) { return previous }
        let text = String(buffer: bytes)
        last[slot] = text
        return text
    }

    @inline(__always)
    private static func same(_ text: String, _ bytes: ByteBuffer) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            bytes.withUnsafeReadableBytes { raw in
                utf8.count == raw.count && (raw.isEmpty || memcmp(utf8.baseAddress!, raw.baseAddress!, raw.count) == 0)
            }
        }
    }

    @inline(__always)
    private static func next(_ cells: inout PostgresRow.Iterator) throws -> PostgresCell {
        guard let cell = cells.next() else {
            throw PostgresStorageError.query("a stored sample row has too few columns")
        }
        return cell
    }

    private static func missing(_ column: String) throws -> String {
        throw PostgresStorageError.query("a stored sample row did not decode (column \(column))")
    }

    private static func fixed(_ cell: PostgresCell, _ type: PostgresDataType, width: Int) throws -> ByteBuffer {
        guard let bytes = cell.bytes, cell.dataType == type, cell.format == .binary, bytes.readableBytes == width else {
            throw PostgresStorageError.query("a stored sample row did not decode (column \(cell.columnName))")
        }
        return bytes
    }

    private static func uuid(_ cell: PostgresCell) throws -> UUID {
        let bytes = try fixed(cell, .uuid, width: 16)
        return bytes.withUnsafeReadableBytes { raw in
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: raw) }
            return UUID(uuid: uuid)
        }
    }

    private static func instant(_ cell: PostgresCell) throws -> Int64 {
        let bytes = try fixed(cell, .timestamptz, width: 8)
        return PostgresInstant.milliseconds(microseconds: bytes.getInteger(at: bytes.readerIndex, as: Int64.self)!)
    }

    private static func int32(_ cell: PostgresCell) throws -> Int32? {
        guard cell.bytes != nil else { return nil }
        let bytes = try fixed(cell, .int4, width: 4)
        return bytes.getInteger(at: bytes.readerIndex, as: Int32.self)!
    }

    private static func double(_ cell: PostgresCell) throws -> Double {
        let bytes = try fixed(cell, .float8, width: 8)
        return Double(bitPattern: bytes.getInteger(at: bytes.readerIndex, as: UInt64.self)!)
    }
}
