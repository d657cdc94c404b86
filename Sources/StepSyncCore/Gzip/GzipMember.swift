/// The framing of a `Content-Encoding: gzip` body (RFC 1952): one gzip member — a header, raw deflate data, and an
/// 8-byte trailer holding the CRC-32 and the length (mod 2³²) of the inflated bytes — and nothing after it.
///
/// The sink parses the header here, inflates the deflate data raw (zlib through compress-nio), and hands what is left
/// after the deflate data's end to ``checkTrailer(_:crc:inflatedCount:)``: a body cut short, with a wrong CRC-32 or
/// length, or with any byte after the trailer is refused (400), so nothing of it is stored. A second member (RFC 1952
/// allows several, concatenated) is refused too: no HTTP client sends one, and accepting only one keeps "the body"
/// one stream with one check. The rule is the one zlib's own gzip reader applies when it must consume the whole input;
/// the `gzip-body` fuzz target holds the two to the same answers and bytes.
///
/// The CRC-32 itself is zlib's `crc32` (the sink reaches zlib through compress-nio), passed in: the core stays
/// without C dependencies.
public enum GzipMember {
    /// The length of the trailer after the deflate data.
    public static let trailerLength = 8

    /// The length of the member's header at the start of `bytes` (10 bytes, plus the optional extra field, name,
    /// comment and header CRC that its flags announce). `crc32(bytes)` is the CRC-32 of `bytes`, for the header CRC.
    public static func headerLength(_ bytes: UnsafeRawBufferPointer, crc32: (UnsafeRawBufferPointer) -> UInt32)
        throws(GzipError) -> Int
    {
        guard bytes.count >= 2 else { throw .cutShort("inside its 10-byte header") }
        guard bytes[0] == 0x1F, bytes[1] == 0x8B else { throw .notGzip("it does not start with 1F 8B") }
        guard bytes.count >= 10 else { throw .cutShort("inside its 10-byte header") }
        guard bytes[2] == 8 else { throw .notGzip("its compression method is \(bytes[2]), not 8 (deflate)") }
        let flags = bytes[3]
        guard flags & 0xE0 == 0 else { throw .notGzip("its header sets reserved flags") }
        var k = 10
        if flags & 0x04 != 0 { // FEXTRA: a 2-byte length, then that many bytes
            guard k + 2 <= bytes.count else { throw .cutShort("inside its header's extra field") }
            let extraLength = Int(bytes[k]) | (Int(bytes[k + 1]) << 8)
            k += 2 + extraLength
            guard k <= bytes.count else { throw .cutShort("inside its header's extra field") }
        }
        for (flag, name) in [(UInt8(0x08), "file name"), (0x10, "comment")] where flags & flag != 0 {
            // FNAME, FCOMMENT: zero-terminated.
            while k < bytes.count, bytes[k] != 0 { k += 1 }
            guard k < bytes.count else { throw .cutShort("inside its header's \(name)") }
            k += 1
        }
        if flags & 0x02 != 0 { // FHCRC: the low 16 bits of the CRC-32 of the header before it
            guard k + 2 <= bytes.count else { throw .cutShort("inside its header's CRC") }
            let stored = UInt32(bytes[k]) | UInt32(bytes[k + 1]) << 8
            guard stored == crc32(UnsafeRawBufferPointer(rebasing: bytes[0..<k])) & 0xFFFF else {
                throw .mismatch("its header CRC does not match the header")
            }
            k += 2
        }
        return k
    }

    /// Checks `rest`, the bytes after the end of the deflate data: exactly the trailer, whose CRC-32 and length are
    /// those of the `inflatedCount` inflated bytes (`crc`).
    public static func checkTrailer(_ rest: UnsafeRawBufferPointer, crc: UInt32, inflatedCount: Int)
        throws(GzipError)
    {
        guard rest.count >= trailerLength else { throw .cutShort("before its 8-byte trailer (CRC-32 and length)") }
        guard rest.count == trailerLength else {
            throw .trailingBytes(rest.count - trailerLength)
        }
        let storedCRC = rest.loadUnaligned(fromByteOffset: 0, as: UInt32.self).littleEndian
        let storedLength = rest.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian
        guard storedCRC == crc else {
            throw .mismatch("its trailer's CRC-32 \(hex(storedCRC)) is not that of the inflated bytes, \(hex(crc))")
        }
        guard storedLength == UInt32(truncatingIfNeeded: inflatedCount) else {
            throw .mismatch("its trailer's length \(storedLength) is not that of the inflated bytes, \(inflatedCount) (mod 2^32)")
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}

/// Why a gzip body is refused; the description completes "gzip body …" and says what to fix.
public struct GzipError: Error, Equatable, Sendable, CustomStringConvertible {
    private enum Code: Equatable, Sendable {
        case cutShort, notGzip, mismatch, trailingBytes, corrupt
    }

    private let code: Code
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// The body ends `where` (e.g. "before its 8-byte trailer").
    public static func cutShort(_ where: String) -> GzipError { GzipError(.cutShort, "is cut short: it ends \(`where`)") }
    /// The header is not a gzip member's.
    public static func notGzip(_ why: String) -> GzipError { GzipError(.notGzip, "is not gzip: \(why)") }
    /// A check value does not match.
    public static func mismatch(_ what: String) -> GzipError { GzipError(.mismatch, "is corrupt: \(what)") }
    /// `count` bytes follow the trailer.
    public static func trailingBytes(_ count: Int) -> GzipError {
        GzipError(.trailingBytes, """
            has \(count) byte\(count == 1 ? "" : "s") after its gzip trailer (garbage, or a second gzip member, which \
            is not accepted: send one gzip stream)
            """)
    }
    /// The deflate data is invalid (`why`, from zlib).
    public static func corrupt(_ why: String) -> GzipError { GzipError(.corrupt, "is corrupt: \(why)") }
}
