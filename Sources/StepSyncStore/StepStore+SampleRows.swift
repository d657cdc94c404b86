import Foundation
import GRDB
import GRDBSQLite
import StepSyncCore

/// One stored sample read in place, for a caller that writes its bytes somewhere (the sync's request body) without
/// building a ``HealthSample``: the fields borrowed from the SQLite statement's current row and the reader's buffers,
/// valid only during the call it is passed to.
public struct StoredSampleRow {
    /// The sample's fields; the text is the UTF-8 a `String` made from the stored bytes holds (invalid sequences
    /// repaired as `String(decoding:as:)` repairs them).
    public let fields: WireEncoder.SampleFields
    /// The UTC offset, when known.
    public let utcOffsetSeconds: Int32?
    /// Whether every text field is within ``SampleValidation/maxFieldBytes`` and free of U+0000, and `details`
    /// within ``SampleValidation/maxDetailsBytes``: the text checks of ``SampleValidation/problem(of:kind:typeChecked:)``
    /// hold for this row. (They were made on the bytes once per distinct value, not per row.)
    public let textWithinLimits: Bool

    /// The row as a ``HealthSample`` of `type` (equal to what ``StepStore/samplePage(of:in:after:limit:)`` returns).
    public func sample(type: SampleType) -> HealthSample {
        func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
        return HealthSample(
            uuid: fields.uuid, type: type, startMs: fields.startMs, endMs: fields.endMs,
            utcOffsetSeconds: utcOffsetSeconds, value: fields.value, unit: text(fields.unit),
            sourceName: text(fields.sourceName), sourceBundleId: text(fields.sourceBundleId),
            sourceVersion: fields.sourceVersion.map(text), deviceName: fields.deviceName.map(text),
            deviceModel: fields.deviceModel.map(text), details: fields.details.map(text))
    }
}

extension StepStore {
    /// Calls `body` once per sample of `intervals` — each interval's samples (start in its range, change sequence in
    /// its window, `(start, uuid)` order), all read in one read transaction through cached statements — with the
    /// row read in place (``StoredSampleRow``): the same samples, in the same order, as
    /// ``forEachSamplePage(of:pageSize:_:)-(_,_,(SyncInterval,[HealthSample])->Void)``, without a ``HealthSample``
    /// (seven strings made, retained and released) per sample.
    ///
    /// The statement is run in keyset pages of `pageSize` as there; nothing of a row outlives `body`'s call, so
    /// memory is bounded by what `body` keeps.
    public func forEachSampleRow(
        of intervals: [SyncInterval], pageSize: Int = 5_000, _ body: (SyncInterval, StoredSampleRow) throws -> Void
    ) throws {
        try dbWriter.read { db in
            let reader = SampleRowReader()
            for interval in intervals {
                guard let typeId = try Self.typeId(of: interval.type, in: db, create: false) else { continue }
                var cursor: SampleCursor?
                let plain = interval.seqAfter == 0 && interval.seqThrough == .max
                while true {
                    let (statement, arguments) = try Self.samplePageStatement(
                        db, typeId: typeId, in: interval.range, after: cursor, limit: pageSize,
                        seqAfter: plain ? nil : interval.seqAfter, seqThrough: plain ? nil : interval.seqThrough)
                    let rows = try Row.fetchCursor(statement, arguments: arguments)
                    let s = statement.sqliteStatement
                    var count = 0
                    var last: SampleCursor?
                    while let row = try rows.next() {
                        let fields = reader.read(s, row: row)
                        count += 1
                        last = SampleCursor(startMs: fields.fields.startMs, uuid: fields.fields.uuid)
                        try body(interval, fields)
                    }
                    guard count == pageSize, let last else { break }
                    cursor = last
                }
            }
        }
    }

    /// The page statement of ``samplePage(_:of:in:after:limit:seqAfter:seqThrough:)`` (the same SQL, cached) and its
    /// arguments.
    static func samplePageStatement(
        _ db: Database, typeId: Int64, in range: TimeRange, after cursor: SampleCursor?, limit: Int,
        seqAfter: Int64?, seqThrough: Int64?
    ) throws -> (Statement, StatementArguments) {
        let windowed = seqAfter != nil || seqThrough != nil
        let window = windowed ? "seq > ? AND seq <= ? AND " : ""
        let byRowid = (seqAfter ?? 0) > 0
        let columns = """
            SELECT uuid, start_ms, end_ms, utc_offset, value, unit, source_name, source_bundle_id,
                   source_version, device_name, device_model, details
            FROM sample \(byRowid ? "NOT INDEXED" : "INDEXED BY sample_type_start")
            """
        var arguments: StatementArguments = windowed ? [seqAfter ?? 0, seqThrough ?? .max] : []
        let statement: Statement
        if let cursor {
            statement = try db.cachedStatement(sql: """
                \(columns)
                WHERE \(window)type_id = ? AND start_ms < ? AND (start_ms, uuid) > (?, ?) AND start_ms >= ?
                ORDER BY start_ms, uuid LIMIT ?
                """)
            arguments += [typeId, range.end, cursor.startMs, cursor.uuid, range.start, limit]
        } else {
            statement = try db.cachedStatement(sql: """
                \(columns)
                WHERE \(window)type_id = ? AND start_ms >= ? AND start_ms < ?
                ORDER BY start_ms, uuid LIMIT ?
                """)
            arguments += [typeId, range.start, range.end, limit]
        }
        return (statement, arguments)
    }
}

/// Reads the columns of the sample statement's current row with the SQLite C API into a ``StoredSampleRow``.
///
/// The text columns — the same unit, source and device for long runs of samples — are compared with the previous
/// row's bytes and decoded and checked (length, U+0000) only when they change.
final class SampleRowReader {
    private let unit = TextColumnBuffer(limit: SampleValidation.maxFieldBytes)
    private let name = TextColumnBuffer(limit: SampleValidation.maxFieldBytes)
    private let bundle = TextColumnBuffer(limit: SampleValidation.maxFieldBytes)
    private let version = TextColumnBuffer(limit: SampleValidation.maxFieldBytes)
    private let device = TextColumnBuffer(limit: SampleValidation.maxFieldBytes)
    private let model = TextColumnBuffer(limit: SampleValidation.maxFieldBytes)
    private let details = TextColumnBuffer(limit: SampleValidation.maxDetailsBytes, remember: false)

    /// The uuid in column 0 of the current row of `s`: the store's 16-byte blob copied straight out, anything else
    /// through GRDB's decoding of `row` (and its error).
    @inline(__always)
    static func uuid(_ s: SQLiteStatement, row: Row) -> UUID {
        guard sqlite3_column_bytes(s, 0) == 16, let blob = sqlite3_column_blob(s, 0) else { return row[0] }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { $0.copyMemory(from: UnsafeRawBufferPointer(start: blob, count: 16)) }
        return UUID(uuid: bytes)
    }

    /// The current row of `s` (which `row`, GRDB's view of it, also points at).
    @inline(__always)
    func read(_ s: SQLiteStatement, row: Row) -> StoredSampleRow {
        let uuid = Self.uuid(s, row: row)
        let unit = self.unit.read(s, 5)
        let name = self.name.read(s, 6)
        let bundle = self.bundle.read(s, 7)
        let version = self.version.read(s, 8)
        let device = self.device.read(s, 9)
        let model = self.model.read(s, 10)
        let details = self.details.read(s, 11)
        let within = unit.within && name.within && bundle.within && version.within && device.within && model.within
            && details.within
        let empty = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        return StoredSampleRow(
            fields: WireEncoder.SampleFields(
                uuid: uuid, startMs: sqlite3_column_int64(s, 1), endMs: sqlite3_column_int64(s, 2),
                value: sqlite3_column_double(s, 4), unit: unit.bytes ?? empty, sourceName: name.bytes ?? empty,
                sourceBundleId: bundle.bytes ?? empty, sourceVersion: version.bytes, deviceName: device.bytes,
                deviceModel: model.bytes, details: details.bytes),
            utcOffsetSeconds: sqlite3_column_type(s, 3) == SQLITE_NULL
                ? nil : Int32(truncatingIfNeeded: sqlite3_column_int64(s, 3)),
            textWithinLimits: within)
    }
}

/// One text column of the rows read: its current value as valid UTF-8 bytes (`nil` for NULL), and whether it is
/// within `limit` bytes and free of U+0000 — decoded and checked again only when the stored bytes change.
final class TextColumnBuffer {
    private let limit: Int
    private let remember: Bool
    /// The previous row's stored bytes (to compare), then the valid UTF-8 the fields point at.
    private var raw: UnsafeMutableBufferPointer<UInt8>
    private var rawCount = 0
    private var text: UnsafeMutableBufferPointer<UInt8>
    private var textCount = 0
    private var isNull = true
    private var started = false
    private var within = true

    init(limit: Int, remember: Bool = true) {
        self.limit = limit
        self.remember = remember
        raw = .allocate(capacity: 64)
        text = .allocate(capacity: 64)
    }

    deinit {
        raw.deallocate()
        text.deallocate()
    }

    /// The column's value in the current row of `s` (valid until the next call).
    @inline(__always)
    func read(_ s: SQLiteStatement, _ column: CInt) -> (bytes: UnsafeBufferPointer<UInt8>?, within: Bool) {
        guard sqlite3_column_type(s, column) != SQLITE_NULL else {
            started = true
            isNull = true
            return (nil, true)
        }
        let count = Int(sqlite3_column_bytes(s, column))
        let source = UnsafeRawPointer(sqlite3_column_text(s, column))
        if remember, started, !isNull, count == rawCount,
           count == 0 || memcmp(raw.baseAddress!, source!, count) == 0 {
            return (UnsafeBufferPointer(start: text.baseAddress, count: textCount), within)
        }
        started = true
        isNull = false
        let bytes = UnsafeRawBufferPointer(start: source, count: count).bindMemory(to: UInt8.self)
        if remember {
            if raw.count < count {
                raw.deallocate()
                raw = .allocate(capacity: max(count, raw.count * 2))
            }
            if count > 0 { raw.baseAddress!.update(from: bytes.baseAddress!, count: count) }
            rawCount = count
        }
        var ascii = true
        for byte in bytes where byte >= 0x80 { ascii = false; break }
        if ascii {
            set(bytes)
        } else {
            // Not plain ASCII: the bytes a `String` made from them holds (invalid sequences become U+FFFD).
            var string = String(decoding: bytes, as: UTF8.self)
            string.withUTF8 { set($0) }
        }
        let view = UnsafeBufferPointer(start: text.baseAddress, count: textCount)
        within = textCount <= limit && (textCount == 0 || memchr(text.baseAddress!, 0, textCount) == nil)
        return (view, within)
    }

    private func set(_ bytes: UnsafeBufferPointer<UInt8>) {
        if text.count < bytes.count {
            text.deallocate()
            text = .allocate(capacity: max(bytes.count, text.count * 2))
        }
        if !bytes.isEmpty { text.baseAddress!.update(from: bytes.baseAddress!, count: bytes.count) }
        textCount = bytes.count
    }
}
