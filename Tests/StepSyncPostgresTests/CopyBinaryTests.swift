import Foundation
import NIOCore
import StepSyncCore
@testable import StepSyncPostgres
import Testing

/// The binary COPY rows of schema v3's direct COPY (no server; the round trips through PostgreSQL are
/// `PostgresStorageTests`' on every ingest method).
@Suite("Binary COPY rows (no server)")
struct CopyBinaryTests {
    @Test("a row is 15 length-prefixed fields in samples' column order, NULLs as length -1, big-endian")
    func rowBytes() throws {
        let uuid = UUID(uuidString: "D67311EE-FACB-41AA-B202-8D266F3EDE18")!
        let sample = HealthSample(uuid: uuid, type: .stepCount, startMs: 946_684_800_001, endMs: 946_684_860_000,
                                  utcOffsetSeconds: -3600, value: -0.0, unit: "count", sourceName: "a\tb",
                                  sourceBundleId: "", deviceName: "iPhone", details: "{\"x\":1}")
        var buffer = ByteBuffer()
        CopyBinary.appendRow(sample, typeKey: -8_248_913_256_205_613_422, client: 42, to: &buffer)
        #expect(buffer.readInteger(as: Int16.self) == 15)
        func field() throws -> [UInt8]? {
            let length = buffer.readInteger(as: Int32.self)
            let bytes = length.flatMap { $0 < 0 ? nil : buffer.readBytes(length: Int($0)) }
            try #require(length != nil && (length! < 0 || bytes != nil), "the row ends inside a field")
            return bytes
        }
        func int(_ bytes: [UInt8]?) -> Int64? {
            guard let bytes, bytes.count == 8 else { return nil }
            return bytes.reduce(0) { $0 << 8 | Int64($1) }
        }
        #expect(int(try field()) == 42)
        #expect(try field() == withUnsafeBytes(of: uuid.uuid) { Array($0) })
        #expect(try field() == Array("HKQuantityTypeIdentifierStepCount".utf8))
        #expect(int(try field()) == 1000)  // 2000-01-01 00:00:00.001 UTC: 1 ms after PostgreSQL's epoch
        #expect(int(try field()) == 60_000_000)
        #expect(try field() == [0xFF, 0xFF, 0xF1, 0xF0])  // -3600 as int4
        #expect(int(try field()).map { UInt64(bitPattern: $0) } == (-0.0).bitPattern)  // the sign kept
        #expect(try field() == Array("count".utf8))
        #expect(try field() == Array("a\tb".utf8))  // no escapes in binary
        #expect(try field() == [])  // an empty bundle id is not NULL
        #expect(try field() == nil)  // sourceVersion
        #expect(try field() == Array("iPhone".utf8))
        #expect(try field() == nil)  // deviceModel
        #expect(try field() == Array("{\"x\":1}".utf8))
        #expect(int(try field()) == -8_248_913_256_205_613_422)
        #expect(buffer.readableBytes == 0)
    }

    @Test("instants become microseconds since 2000-01-01; a bound past the last instant is not clamped, overflow is")
    func instants() {
        #expect(PostgresInstant.microseconds(milliseconds: 0) == -946_684_800_000_000)
        #expect(PostgresInstant.microseconds(milliseconds: 946_684_800_000) == 0)
        #expect(PostgresInstant.microseconds(milliseconds: Instants.max) == Instants.max * 1000 - 946_684_800_000_000)
        // A half-open query bound just past 9999-12-31T23:59:59.999Z stays past it (the sample at the last instant
        // stays inside `start_at < bound`).
        #expect(PostgresInstant.microseconds(milliseconds: Instants.max + 1)
                == PostgresInstant.microseconds(milliseconds: Instants.max) + 1000)
        #expect(PostgresInstant.microseconds(milliseconds: Instants.min - 1)
                == PostgresInstant.microseconds(milliseconds: Instants.min) - 1000)
        // The extremes of Int64 clamp to the last whole millisecond that fits, and do not trap.
        #expect(PostgresInstant.microseconds(milliseconds: .max) == Int64.max / 1000 * 1000)
        #expect(PostgresInstant.microseconds(milliseconds: .min) == Int64.min / 1000 * 1000)
    }

    @Test("a row of the longest fields takes exactly its reservation: 122 bytes and the texts")
    func longestRow() {
        let text = String(repeating: "\t\\é", count: 100)
        let sample = HealthSample(uuid: UUID(), type: SampleType(text), startMs: Instants.min, endMs: Instants.max,
                                  utcOffsetSeconds: .min, value: -.greatestFiniteMagnitude, unit: text,
                                  sourceName: text, sourceBundleId: text, sourceVersion: text, deviceName: text,
                                  deviceModel: text, details: text)
        var buffer = ByteBuffer()
        CopyBinary.appendRow(sample, typeKey: .min, client: .max, to: &buffer)
        #expect(buffer.readableBytes == 122 + SampleRow.textBytes(sample))
        #expect(SampleRow.textBytes(sample) == 8 * text.utf8.count)
    }

    @Test("the stream starts with PostgreSQL's signature and ends with the field count -1")
    func framing() {
        #expect(CopyBinary.header == [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00,
                                      0, 0, 0, 0, 0, 0, 0, 0])
        #expect(CopyBinary.trailer == [0xFF, 0xFF])
        #expect(PostgresSampleStorage.binaryCopyColumns.count == PostgresSampleStorage.copyColumns.count)
        #expect(PostgresSampleStorage.binaryCopyColumns.last == "type_key\") FROM STDIN WITH (FORMAT binary) --")
    }
}
