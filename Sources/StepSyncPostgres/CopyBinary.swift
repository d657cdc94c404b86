import Foundation
import NIOCore
import StepSyncCore

/// Rows of `COPY samples FROM STDIN (FORMAT binary)`: each column as its length and its bytes in PostgreSQL's binary
/// form — `bigint` and `integer` big-endian, the uuid's 16 bytes, `timestamptz` as microseconds since 2000-01-01,
/// `double precision` as its IEEE bits, text and `json` as their UTF-8 bytes, NULL as length −1.
///
/// PostgreSQL then parses no numbers, instants or uuids (it still checks the text's encoding and the JSON): the text
/// format's `timestamptz_in`, `float8in` and uuid parsing were a fifth of its CPU on ingest, and psql's binary `\copy`
/// of the benchmark's 400k rows took 16–38 % less backend CPU than its text `\copy` in two of three pairs (the third
/// equal; measured 2026-11-28, `Planning/postgres.md`). Values are bit-exact (no digits to round), `-0.0` included.
///
/// A stream is ``header``, rows, ``trailer``. Columns are `client_id` then ``PostgresSampleStorage/sampleColumns``:
/// ``PostgresSampleStorage/copyColumns``.
enum CopyBinary {
    /// The signature, the flags (no OIDs) and an empty header extension.
    static let header: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]

    /// The field count −1 that ends the rows.
    static let trailer: [UInt8] = [0xFF, 0xFF]

    /// The columns of a row: `client_id` and the 14 of ``PostgresSampleStorage/sampleColumns``.
    static let columnCount: Int16 = 15

    /// Appends one row of `sample` for `client`, with its type key.
    static func appendRow(_ sample: HealthSample, typeKey: Int64, client: Int64, to buffer: inout ByteBuffer) {
        // The count (2), 15 lengths (60), the fixed-size values (8 + 16 + 8 + 8 + 4 + 8 + 8 = 60), then the texts.
        let bound = 122 + SampleRow.textBytes(sample)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { raw in
            var out = BinaryCursor(raw.baseAddress!)
            out.int16(columnCount)
            SampleRow.write(sample, typeKey: typeKey, client: client, to: &out)
            precondition(out.count <= bound, "COPY row over its reservation")
            return out.count
        }
    }
}

/// Writes big-endian binary COPY fields at a pointer into memory its caller reserved (``CopyBinary``), counting
/// the bytes.
private struct BinaryCursor: SampleRowWriter {
    let base: UnsafeMutableRawPointer
    private(set) var count = 0

    init(_ base: UnsafeMutableRawPointer) { self.base = base }

    @inline(__always) mutating func int16(_ value: Int16) {
        base.storeBytes(of: value.bigEndian, toByteOffset: count, as: Int16.self)
        count += 2
    }

    @inline(__always) mutating func int32(_ value: Int32) {
        base.storeBytes(of: value.bigEndian, toByteOffset: count, as: Int32.self)
        count += 4
    }

    /// An 8-byte field (`bigint`): its length, then `value`.
    @inline(__always) mutating func integer(_ value: Int64) {
        int32(8)
        base.storeBytes(of: value.bigEndian, toByteOffset: count, as: Int64.self)
        count += 8
    }

    /// The length −1 of a NULL.
    mutating func null() { int32(-1) }

    mutating func uuid(_ value: UUID) {
        int32(16)
        withUnsafeBytes(of: value.uuid) { (base + count).copyMemory(from: $0.baseAddress!, byteCount: 16) }
        count += 16
    }

    /// A `text` (or `json`, whose binary form is its text) field: its UTF-8 bytes, unescaped.
    mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { bytes in
            int32(Int32(bytes.count))
            if let source = bytes.baseAddress, !bytes.isEmpty {
                (base + count).copyMemory(from: source, byteCount: bytes.count)
            }
            count += bytes.count
        }
    }

    mutating func optionalText(_ value: String?) {
        if let value { text(value) } else { null() }
    }

    /// `timestamptz`: microseconds since 2000-01-01.
    mutating func instant(_ milliseconds: Int64) { integer(PostgresInstant.microseconds(milliseconds: milliseconds)) }

    mutating func offset(_ seconds: Int32?) {
        guard let seconds else { return null() }
        int32(4)
        int32(seconds)
    }

    /// `double precision`: its IEEE bits, so `-0.0` and every value come back bit for bit.
    mutating func value(_ value: Double) { integer(Int64(bitPattern: value.bitPattern)) }
}
