import Foundation
import NIOCore
import StepSyncCore

/// Rows of `COPY … FROM STDIN (FORMAT text)`: tab-separated columns, `\N` for NULL, and backslash escapes for the
/// four bytes that would break a row (backslash, tab, newline, carriage return).
enum CopyText {
    /// Appends one row of `sample`'s fields (columns as ``PostgresSampleStorage/sampleColumns`` without
    /// `type_key`).
    static func appendRow(_ sample: HealthSample, to buffer: inout ByteBuffer) {
        appendFields(sample, to: &buffer)
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    /// Appends one row for `sample` with its type key: columns as ``PostgresSampleStorage/sampleColumns`` (the
    /// staging table's), or `client_id` and those (`samples`' own, ``PostgresSampleStorage/copyColumns``) when
    /// `client` is given.
    static func appendRow(_ sample: HealthSample, typeKey: Int64, client: Int64?, to buffer: inout ByteBuffer) {
        if let client {
            buffer.writeString(String(client))
            tab(&buffer)
        }
        appendFields(sample, to: &buffer)
        tab(&buffer)
        buffer.writeString(String(typeKey))
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    /// The 13 columns of the sample's own fields, tab-separated, no newline.
    private static func appendFields(_ sample: HealthSample, to buffer: inout ByteBuffer) {
        appendUUID(sample.uuid, to: &buffer)
        tab(&buffer)
        appendText(sample.type.rawValue, to: &buffer)
        tab(&buffer)
        appendInstant(sample.startMs, to: &buffer)
        tab(&buffer)
        appendInstant(sample.endMs, to: &buffer)
        tab(&buffer)
        if let offset = sample.utcOffsetSeconds { buffer.writeString(String(offset)) } else { null(&buffer) }
        tab(&buffer)
        buffer.writeString(sample.value.description)  // shortest round-trip form; finite (validated)
        tab(&buffer)
        appendText(sample.unit, to: &buffer)
        tab(&buffer)
        appendText(sample.sourceName, to: &buffer)
        tab(&buffer)
        appendText(sample.sourceBundleId, to: &buffer)
        appendOptional(sample.sourceVersion, to: &buffer)
        appendOptional(sample.deviceName, to: &buffer)
        appendOptional(sample.deviceModel, to: &buffer)
        appendOptional(sample.details, to: &buffer)
    }

    /// A tab, then `text` or `\N`.
    private static func appendOptional(_ text: String?, to buffer: inout ByteBuffer) {
        tab(&buffer)
        if let text { appendText(text, to: &buffer) } else { null(&buffer) }
    }

    /// The 36 bytes of the uuid's canonical form, upper-case as `uuidString` (which formats through `sprintf`: 6% of
    /// the sink's CPU on PostgreSQL ingest, profiled 2026-11-26).
    static func appendUUID(_ uuid: UUID, to buffer: inout ByteBuffer) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 36) { raw in
            let out = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            withUnsafeBytes(of: uuid.uuid) { bytes in
                var o = 0
                for i in 0..<16 {
                    if i == 4 || i == 6 || i == 8 || i == 10 {
                        out[o] = UInt8(ascii: "-")
                        o += 1
                    }
                    out[o] = hexDigit(bytes[i] >> 4)
                    out[o + 1] = hexDigit(bytes[i] & 0x0F)
                    o += 2
                }
            }
            return 36
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : 0x37 + nibble  // 0-9, A-F
    }

    /// The 24 bytes of `2025-05-11T16:27:22.000Z`, which `timestamptz` reads as UTC.
    static func appendInstant(_ ms: Int64, to buffer: inout ByteBuffer) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 24) { raw in
            ISO8601Millis.write(ms, into: raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
            return 24
        }
    }

    /// `text` with `\`, tab, newline and carriage return escaped.
    static func appendText(_ text: String, to buffer: inout ByteBuffer) {
        let plain = text.utf8.withContiguousStorageIfAvailable { bytes in
            !bytes.contains { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        }
        if plain == true {
            buffer.writeString(text)
            return
        }
        for byte in text.utf8 {
            switch byte {
            case 0x5C: buffer.writeStaticString("\\\\")
            case 0x09: buffer.writeStaticString("\\t")
            case 0x0A: buffer.writeStaticString("\\n")
            case 0x0D: buffer.writeStaticString("\\r")
            default: buffer.writeInteger(byte)
            }
        }
    }

    private static func tab(_ buffer: inout ByteBuffer) { buffer.writeInteger(UInt8(ascii: "\t")) }
    private static func null(_ buffer: inout ByteBuffer) { buffer.writeStaticString("\\N") }
}
