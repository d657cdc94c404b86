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
            appendInteger(client, to: &buffer)
            tab(&buffer)
        }
        appendFields(sample, to: &buffer)
        tab(&buffer)
        appendInteger(typeKey, to: &buffer)
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
        if let offset = sample.utcOffsetSeconds { appendInteger(Int64(offset), to: &buffer) } else { null(&buffer) }
        tab(&buffer)
        appendValue(sample.value, to: &buffer)
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

    /// `2025-05-11 16:27:22+00`, or `2025-05-11 16:27:22.123+00` when the milliseconds are not zero: the instant in
    /// the form `timestamptz` reads at least cost. PostgreSQL's parser takes `+00` as a numeric zone, where the wire's
    /// `…T16:27:22.000Z` makes it look the letter `Z` up among zone names: the text part of a COPY of 400k rows cost
    /// 0.84–0.87 CPU-s that way, 0.74–0.76 so (psql `\copy`, measured 2026-11-26, `Planning/postgres.md`). Exact for
    /// every instant of ``Instants`` (years 0001–9999: always four digits).
    static func appendInstant(_ ms: Int64, to buffer: inout ByteBuffer) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 26) { raw in
            let out = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let day: Int64 = 86_400_000
            let days = ms >= 0 ? ms / day : -((-ms + day - 1) / day)
            var msOfDay = Int(ms - days * day)
            let (y, m, d) = ISO8601Millis.civil(fromDays: days)
            let year = Int(max(0, min(9999, y)))
            let hour = msOfDay / 3_600_000
            msOfDay -= hour * 3_600_000
            let minute = msOfDay / 60_000
            msOfDay -= minute * 60_000
            let second = msOfDay / 1000
            let milli = msOfDay % 1000
            two(year / 100, out)
            two(year % 100, out + 2)
            out[4] = UInt8(ascii: "-")
            two(m, out + 5)
            out[7] = UInt8(ascii: "-")
            two(d, out + 8)
            out[10] = UInt8(ascii: " ")
            two(hour, out + 11)
            out[13] = UInt8(ascii: ":")
            two(minute, out + 14)
            out[16] = UInt8(ascii: ":")
            two(second, out + 17)
            var n = 19
            if milli != 0 {
                out[19] = UInt8(ascii: ".")
                out[20] = 0x30 + UInt8(truncatingIfNeeded: milli / 100)
                two(milli % 100, out + 21)
                n = 23
            }
            out[n] = UInt8(ascii: "+")
            out[n + 1] = UInt8(ascii: "0")
            out[n + 2] = UInt8(ascii: "0")
            return n + 3
        }
    }

    /// The two decimal digits of `value` (0…99) at `out`.
    @inline(__always)
    private static func two(_ value: Int, _ out: UnsafeMutablePointer<UInt8>) {
        out[0] = 0x30 + UInt8(truncatingIfNeeded: value / 10)
        out[1] = 0x30 + UInt8(truncatingIfNeeded: value % 10)
    }

    /// The decimal digits of `value` (with `-` when negative), written in place rather than through `String(value)`,
    /// which allocates a string per column per row.
    static func appendInteger(_ value: Int64, to buffer: inout ByteBuffer) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 20) { raw in
            let out = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var magnitude = value.magnitude
            var count = 1
            var rest = magnitude / 10
            while rest > 0 {
                count += 1
                rest /= 10
            }
            let sign = value < 0 ? 1 : 0
            if sign == 1 { out[0] = UInt8(ascii: "-") }
            var at = sign + count
            repeat {
                at -= 1
                out[at] = 0x30 + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            return sign + count
        }
    }

    /// A `double precision` value: an integral value below 2⁵³ in magnitude (a step count, a category code) as its
    /// integer digits, which `float8in` reads back exactly; any other as Swift's shortest round-trip form (`-0.0`
    /// too, whose sign the digits would lose). Values are finite (validated).
    static func appendValue(_ value: Double, to buffer: inout ByteBuffer) {
        if value.magnitude < 9_007_199_254_740_992, value.rounded(.towardZero) == value,
           !(value == 0 && value.sign == .minus) {
            appendInteger(Int64(value), to: &buffer)
        } else {
            buffer.writeString(value.description)
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
