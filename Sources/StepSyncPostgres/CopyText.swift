import Foundation
import NIOCore
import StepSyncCore

/// Rows of `COPY … FROM STDIN (FORMAT text)`: tab-separated columns, `\N` for NULL, and backslash escapes for the
/// four bytes that would break a row (backslash, tab, newline, carriage return).
///
/// A row is written in one reservation of the buffer, byte by byte through a pointer (``Cursor``): per-field
/// `ByteBuffer` writes (capacity checks, exclusivity checks, a `String` per number) were a quarter of the sink's CPU
/// on PostgreSQL ingest (profiled 2026-11-26, `Planning/postgres.md`).
enum CopyText {
    /// Appends one row of `sample`'s fields (columns as ``PostgresSampleStorage/sampleColumns`` without
    /// `type_key`).
    static func appendRow(_ sample: HealthSample, to buffer: inout ByteBuffer) {
        write(sample, typeKey: nil, client: nil, to: &buffer)
    }

    /// Appends one row for `sample` with its type key: columns as ``PostgresSampleStorage/sampleColumns`` (the
    /// staging table's), or `client_id` and those (`samples`' own, ``PostgresSampleStorage/copyColumns``) when
    /// `client` is given.
    static func appendRow(_ sample: HealthSample, typeKey: Int64, client: Int64?, to buffer: inout ByteBuffer) {
        write(sample, typeKey: typeKey, client: client, to: &buffer)
    }

    private static func write(_ sample: HealthSample, typeKey: Int64?, client: Int64?, to buffer: inout ByteBuffer) {
        // Fixed columns at their longest (two 20-byte integers, the uuid, two instants, the offset, the value's
        // shortest form, separators and NULLs) stay under 256 bytes; a text column at most doubles with its escapes.
        let bound = 256 + 2 * SampleRow.textBytes(sample)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { raw in
            var row = TextRow(Cursor(raw.baseAddress!.assumingMemoryBound(to: UInt8.self)))
            SampleRow.write(sample, typeKey: typeKey, client: client, to: &row)
            row.out.byte(UInt8(ascii: "\n"))
            precondition(row.out.count <= bound, "COPY row over its reservation")
            return row.out.count
        }
    }

    /// Whether a `double precision` value is written as its integer digits: integral and below 2⁵³ in magnitude (a
    /// step count, a category code), which `float8in` reads back exactly; any other value is written in Swift's
    /// shortest round-trip form (`-0.0` too, whose sign the digits would lose). Values are finite (validated).
    static func integralDigits(_ value: Double) -> Bool {
        value.magnitude < 9_007_199_254_740_992 && value.rounded(.towardZero) == value
            && !(value == 0 && value.sign == .minus)
    }

    // MARK: - One column (the row writer's parts, for tests)

    /// The 36 bytes of the uuid's canonical form, upper-case as `uuidString` (which formats through `sprintf`: 6% of
    /// the sink's CPU on PostgreSQL ingest, profiled 2026-11-26).
    static func appendUUID(_ uuid: UUID, to buffer: inout ByteBuffer) {
        column(36, &buffer) { $0.uuid(uuid) }
    }

    /// `2025-05-11 16:27:22+00`, or `2025-05-11 16:27:22.123+00` when the milliseconds are not zero (why: the row
    /// writer's `instant`).
    static func appendInstant(_ ms: Int64, to buffer: inout ByteBuffer) {
        column(26, &buffer) { $0.instant(ms) }
    }

    /// The decimal digits of `value`, with `-` when negative.
    static func appendInteger(_ value: Int64, to buffer: inout ByteBuffer) {
        column(20, &buffer) { $0.integer(value) }
    }

    /// A `double precision` value (``integralDigits(_:)``).
    static func appendValue(_ value: Double, to buffer: inout ByteBuffer) {
        if integralDigits(value) {
            appendInteger(Int64(value), to: &buffer)
        } else {
            appendText(value.description, to: &buffer)
        }
    }

    /// `text` with `\`, tab, newline and carriage return escaped.
    static func appendText(_ text: String, to buffer: inout ByteBuffer) {
        column(2 * text.utf8.count, &buffer) { $0.text(text) }
    }

    private static func column(_ bound: Int, _ buffer: inout ByteBuffer, _ body: (inout Cursor) -> Void) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { raw in
            var out = Cursor(raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
            body(&out)
            return out.count
        }
    }
}

/// A row of COPY text: the columns tab-separated, NULL as `\N`.
private struct TextRow: SampleRowWriter {
    var out: Cursor
    private var started = false

    init(_ out: Cursor) { self.out = out }

    /// The tab before every column but the first.
    @inline(__always) private mutating func next() {
        if started { out.tab() } else { started = true }
    }

    mutating func integer(_ value: Int64) {
        next()
        out.integer(value)
    }

    mutating func uuid(_ value: UUID) {
        next()
        out.uuid(value)
    }

    mutating func text(_ value: String) {
        next()
        out.text(value)
    }

    mutating func optionalText(_ value: String?) {
        next()
        if let value { out.text(value) } else { out.null() }
    }

    mutating func instant(_ milliseconds: Int64) {
        next()
        out.instant(milliseconds)
    }

    mutating func offset(_ seconds: Int32?) {
        next()
        if let seconds { out.integer(Int64(seconds)) } else { out.null() }
    }

    mutating func value(_ value: Double) {
        next()
        if CopyText.integralDigits(value) { out.integer(Int64(value)) } else { out.text(value.description) }
    }
}

/// Writes COPY text at a pointer into memory its caller reserved (``CopyText``), counting the bytes.
private struct Cursor {
    let base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0

    init(_ base: UnsafeMutablePointer<UInt8>) { self.base = base }

    @inline(__always) mutating func byte(_ value: UInt8) {
        base[count] = value
        count += 1
    }

    @inline(__always) mutating func tab() { byte(0x09) }

    mutating func null() {
        byte(0x5C)
        byte(UInt8(ascii: "N"))
    }

    mutating func uuid(_ uuid: UUID) {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            for i in 0..<16 {
                if i == 4 || i == 6 || i == 8 || i == 10 { byte(UInt8(ascii: "-")) }
                byte(Self.hexDigit(bytes[i] >> 4))
                byte(Self.hexDigit(bytes[i] & 0x0F))
            }
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
    mutating func instant(_ ms: Int64) {
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
        two(year / 100)
        two(year % 100)
        byte(UInt8(ascii: "-"))
        two(m)
        byte(UInt8(ascii: "-"))
        two(d)
        byte(UInt8(ascii: " "))
        two(hour)
        byte(UInt8(ascii: ":"))
        two(minute)
        byte(UInt8(ascii: ":"))
        two(second)
        if milli != 0 {
            byte(UInt8(ascii: "."))
            byte(0x30 + UInt8(truncatingIfNeeded: milli / 100))
            two(milli % 100)
        }
        byte(UInt8(ascii: "+"))
        byte(UInt8(ascii: "0"))
        byte(UInt8(ascii: "0"))
    }

    /// The two decimal digits of `value` (0…99).
    @inline(__always) private mutating func two(_ value: Int) {
        byte(0x30 + UInt8(truncatingIfNeeded: value / 10))
        byte(0x30 + UInt8(truncatingIfNeeded: value % 10))
    }

    /// The decimal digits of `value` (with `-` when negative), at most 20 bytes.
    mutating func integer(_ value: Int64) {
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        if value < 0 { byte(UInt8(ascii: "-")) }
        var at = count + digits
        count = at
        repeat {
            at -= 1
            base[at] = 0x30 + UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
    }

    /// `text` with `\`, tab, newline and carriage return escaped (at most twice its UTF-8 length).
    mutating func text(_ text: String) {
        let copied: Bool? = text.utf8.withContiguousStorageIfAvailable { bytes in
            if bytes.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return false }
            if let source = bytes.baseAddress, !bytes.isEmpty {
                (base + count).update(from: source, count: bytes.count)
            }
            count += bytes.count
            return true
        }
        guard copied != true else { return }
        for value in text.utf8 {
            switch value {
            case 0x5C: byte(0x5C); byte(0x5C)
            case 0x09: byte(0x5C); byte(UInt8(ascii: "t"))
            case 0x0A: byte(0x5C); byte(UInt8(ascii: "n"))
            case 0x0D: byte(0x5C); byte(UInt8(ascii: "r"))
            default: byte(value)
            }
        }
    }
}
