import Foundation
import NIOCore
import StepSyncCore
import StepSyncStorage

/// The step spans of one statement of ``PostgresSampleStorage/stepSpansQuery(client:overlapping:after:limit:)``,
/// packed by the database in one `bytea`: per span, in no particular order — start and end as `timestamptz_send`
/// writes them (big-endian microseconds since 2000-01-01), the value as `float8send` (a big-endian IEEE double), the
/// uuid as `uuid_send` (its 16 bytes), then the device name's length in bytes as `int4send` (-1: none) and its UTF-8.
///
/// One row a statement instead of one a span: PostgresNIO parses a single row, and the sink reads integers and gives
/// every span of a device one shared `String`, instead of decoding five columns and a `String` per span (issue 31:
/// a decade's `/steps/daily` cost the sink 1.6–2.7 CPU-s before, 0.2 after).
enum StepSpanChunk {
    /// Bytes of a span before its device name.
    static let fixedWidth = 44
    /// Device names remembered per chunk, to share their `String`s (a history has a few; past these, each span of
    /// another device gets its own `String`).
    static let sharedNames = 64

    /// What a chunk held, besides its spans.
    struct Read {
        /// How many spans.
        var count: Int
        /// The latest start among them (nil when none).
        var lastStartMs: Int64?
        /// The uuids of the spans starting at ``lastStartMs``.
        var uuidsAtLastStart: [UUID]
    }

    /// How many spans `packed` holds, its latest start and the uuids starting then: one pass reading three fields
    /// a span (the keyset of the next statement, known before the chunk is decoded).
    ///
    /// - Throws: ``PostgresStorageError/query(_:)`` as ``decode(_:into:)``.
    static func scan(_ packed: ByteBuffer) throws -> Read {
        try packed.withUnsafeReadableBytes { raw in
            var read = Read(count: 0, lastStartMs: nil, uuidsAtLastStart: [])
            var offset = 0
            while offset < raw.count {
                let (_, next) = try nameLength(raw, at: offset)
                let start = milliseconds(raw, at: offset)
                read.count += 1
                if read.lastStartMs.map({ start > $0 }) ?? true {
                    read.lastStartMs = start
                    read.uuidsAtLastStart.removeAll(keepingCapacity: true)
                }
                if start == read.lastStartMs { read.uuidsAtLastStart.append(uuid(raw, at: offset + 24)) }
                offset = next
            }
            return read
        }
    }

    /// Appends the spans packed in `packed` to `spans`, in the order packed.
    ///
    /// - Throws: ``PostgresStorageError/query(_:)`` when the bytes end inside a span or a name's length is out of
    ///   range (the database answered, but not what this statement asks for).
    static func decode(_ packed: ByteBuffer, into spans: inout [StepSpan]) throws {
        try packed.withUnsafeReadableBytes { raw in
            var names: [(bytes: [UInt8], name: String)] = []
            var offset = 0
            while offset < raw.count {
                let (length, next) = try nameLength(raw, at: offset)
                let start = milliseconds(raw, at: offset)
                let end = milliseconds(raw, at: offset + 8)
                let value = Double(bitPattern: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: offset + 16,
                                                                                   as: UInt64.self)))
                var device: String?
                if length >= 0 {
                    let bytes = UnsafeRawBufferPointer(rebasing: raw[(offset + fixedWidth)..<next])
                    if let known = names.first(where: { $0.bytes.elementsEqual(bytes) }) {
                        device = known.name
                    } else {
                        let name = String(decoding: bytes, as: UTF8.self)
                        if names.count < sharedNames { names.append((Array(bytes), name)) }
                        device = name
                    }
                }
                spans.append(StepSpan(startMs: start, endMs: end, value: value, deviceName: device))
                offset = next
            }
        }
    }

    /// The device name's length of the span at `offset` (-1: none) and the offset of the next span, checked: the span
    /// and its name lie within `raw`.
    @inline(__always)
    private static func nameLength(_ raw: UnsafeRawBufferPointer, at offset: Int) throws -> (Int, next: Int) {
        guard raw.count - offset >= fixedWidth else { throw truncated(raw.count) }
        let length = Int(Int32(bigEndian: raw.loadUnaligned(fromByteOffset: offset + 40, as: Int32.self)))
        let nameAt = offset + fixedWidth
        if length >= 0 {
            guard length <= raw.count - nameAt else { throw truncated(raw.count) }
        } else if length != -1 {
            throw PostgresStorageError.query("a step span's device name is \(length) bytes long")
        }
        return (length, nameAt + max(0, length))
    }

    private static func truncated(_ bytes: Int) -> PostgresStorageError {
        PostgresStorageError.query("a chunk of step spans (\(bytes) bytes) ends inside a span")
    }

    /// The instant at `offset`, as UTC milliseconds since 1970 (``PostgresInstant``'s conversion).
    @inline(__always)
    private static func milliseconds(_ raw: UnsafeRawBufferPointer, at offset: Int) -> Int64 {
        PostgresInstant.milliseconds(
            microseconds: Int64(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int64.self)))
    }

    /// The uuid whose 16 bytes are at `offset`.
    private static func uuid(_ raw: UnsafeRawBufferPointer, at offset: Int) -> UUID {
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) {
            $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + 16)]))
        }
        return UUID(uuid: uuid)
    }
}
