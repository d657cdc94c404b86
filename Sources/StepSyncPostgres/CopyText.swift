import NIOCore
import StepSyncCore

/// Rows of `COPY … FROM STDIN (FORMAT text)`: tab-separated columns, `\N` for NULL, and backslash escapes for the
/// four bytes that would break a row (backslash, tab, newline, carriage return).
enum CopyText {
    /// Appends one staging-table row for `sample` (columns as ``PostgresSampleStorage/sampleColumns``).
    static func appendRow(_ sample: HealthSample, to buffer: inout ByteBuffer) {
        buffer.writeString(sample.uuid.uuidString)
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
        for optional in [sample.sourceVersion, sample.deviceName, sample.deviceModel, sample.details] {
            tab(&buffer)
            if let text = optional { appendText(text, to: &buffer) } else { null(&buffer) }
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
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
