import Foundation
import Testing
@testable import StepSyncCore

/// Issue 21.6: the framing of a gzip body — header, then (after the deflate data) exactly the 8-byte trailer whose
/// CRC-32 and length are those of the inflated bytes.
@Suite("GzipMember: header and trailer")
struct GzipMemberTests {
    /// CRC-32 (IEEE, reflected, as gzip and zip use it), bit by bit: the reference the checks are held to.
    static func crc32(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBytes { crc32($0) } }

    static func headerLength(_ bytes: [UInt8]) throws -> Int {
        try bytes.withUnsafeBytes { raw in try GzipMember.headerLength(raw, crc32: crc32) }
    }

    static func trailer(crc: UInt32, count: UInt32) -> [UInt8] {
        withUnsafeBytes(of: (crc.littleEndian, count.littleEndian)) { Array($0) }
    }

    static func check(_ rest: [UInt8], crc: UInt32, count: Int) throws {
        try rest.withUnsafeBytes { raw in try GzipMember.checkTrailer(raw, crc: crc, inflatedCount: count) }
    }

    static let plain: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]

    @Test("the reference CRC-32 is the standard one", arguments: [("", 0), ("a", 0xE8B7_BE43), ("123456789", 0xCBF4_3926)] as [(String, UInt32)])
    func referenceCRC(text: String, crc: UInt32) {
        #expect(Self.crc32(Array(text.utf8)) == crc)
    }

    @Test("header lengths: plain, extra field, name, comment, header CRC, all at once")
    func headers() throws {
        #expect(try Self.headerLength(Self.plain + [0xAA]) == 10)
        var extra = Self.plain
        extra[3] = 0x04
        #expect(try Self.headerLength(extra + [3, 0, 1, 2, 3, 0xAA]) == 15)
        var named = Self.plain
        named[3] = 0x08 | 0x10
        #expect(try Self.headerLength(named + Array("steps.json".utf8) + [0] + Array("hi".utf8) + [0, 0xAA]) == 24)
        var withCRC = Self.plain
        withCRC[3] = 0x02 | 0x08
        withCRC += Array("x".utf8) + [0]
        let crc = Self.crc32(withCRC)
        #expect(try Self.headerLength(withCRC + [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), 0xAA]) == 14)
        let error = try #require(throws: GzipError.self) {
            try Self.headerLength(withCRC + [UInt8(crc & 0xFF) ^ 1, UInt8(crc >> 8 & 0xFF), 0xAA])
        }
        #expect(error.description == "is corrupt: its header CRC does not match the header")
    }

    @Test("refused headers and what the message says", arguments: [
        ([], "is cut short: it ends inside its 10-byte header"),
        ([0x1F], "is cut short: it ends inside its 10-byte header"),
        (Array(#"{"samples":[]}"#.utf8), "is not gzip: it does not start with 1F 8B"),
        ([0x1F, 0x8B, 8, 0, 0], "is cut short: it ends inside its 10-byte header"),
        ([0x1F, 0x8B, 7, 0, 0, 0, 0, 0, 0, 3], "is not gzip: its compression method is 7, not 8 (deflate)"),
        ([0x1F, 0x8B, 8, 0x20, 0, 0, 0, 0, 0, 3], "is not gzip: its header sets reserved flags"),
        ([0x1F, 0x8B, 8, 0x04, 0, 0, 0, 0, 0, 3, 9, 0, 1], "is cut short: it ends inside its header's extra field"),
        ([0x1F, 0x8B, 8, 0x08, 0, 0, 0, 0, 0, 3, 0x41, 0x42], "is cut short: it ends inside its header's file name"),
        ([0x1F, 0x8B, 8, 0x10, 0, 0, 0, 0, 0, 3, 0x41], "is cut short: it ends inside its header's comment"),
        ([0x1F, 0x8B, 8, 0x02, 0, 0, 0, 0, 0, 3, 0x41], "is cut short: it ends inside its header's CRC"),
    ] as [([UInt8], String)])
    func refusedHeaders(bytes: [UInt8], message: String) throws {
        let error = try #require(throws: GzipError.self) { try Self.headerLength(bytes) }
        #expect(error.description == message)
    }

    @Test("the trailer: exactly 8 bytes with the CRC-32 and length (mod 2^32) of the inflated bytes")
    func trailer() throws {
        let inflated = Array(#"{"samples":[]}"#.utf8)
        let crc = Self.crc32(inflated)
        try Self.check(Self.trailer(crc: crc, count: 14), crc: crc, count: 14)
        try Self.check(Self.trailer(crc: crc, count: 3), crc: crc, count: 3 + (1 << 32))
        let cases: [([UInt8], String)] = [
            ([], "is cut short: it ends before its 8-byte trailer (CRC-32 and length)"),
            (Array(Self.trailer(crc: crc, count: 14).prefix(7)), "is cut short: it ends before its 8-byte trailer (CRC-32 and length)"),
            (Self.trailer(crc: crc, count: 14) + [0],
             "has 1 byte after its gzip trailer (garbage, or a second gzip member, which is not accepted: send one gzip stream)"),
            (Self.trailer(crc: crc, count: 14) + Self.plain,
             "has 10 bytes after its gzip trailer (garbage, or a second gzip member, which is not accepted: send one gzip stream)"),
            (Self.trailer(crc: crc ^ 0x100, count: 14),
             "is corrupt: its trailer's CRC-32 \(String(format: "%08X", crc ^ 0x100)) is not that of the inflated bytes, \(String(format: "%08X", crc))"),
            (Self.trailer(crc: crc, count: 15), "is corrupt: its trailer's length 15 is not that of the inflated bytes, 14 (mod 2^32)"),
        ]
        for (rest, message) in cases {
            let error = try #require(throws: GzipError.self) { try Self.check(rest, crc: crc, count: 14) }
            #expect(error.description == message)
        }
    }
}
