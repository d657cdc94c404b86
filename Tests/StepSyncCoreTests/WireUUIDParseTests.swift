import Foundation
import Testing
@testable import StepSyncCore

/// `WireParser.parseUUID` is the wire's uuid parser (branch-free since issue 14). These tests hold it to
/// Foundation's `UUID(uuidString:)` on the same bytes: the same uuid for every well-formed string of either case,
/// `nil` for every string Foundation refuses, including each single byte next to a hex digit's range.
@Suite("WireParser: uuid parsing")
struct WireUUIDParseTests {
    static func parse(_ text: String) -> UUID? {
        Array(text.utf8).withUnsafeBytes { WireParser.parseUUID($0) }
    }

    @Test("random uuids in upper, lower and mixed case parse to Foundation's value")
    func randomUUIDsMatchFoundation() {
        var generator = SplitMix64(seed: 14)
        for n in 0..<5_000 {
            let uuid = withUnsafeBytes(of: (generator.next(), generator.next())) { UUID(uuid: $0.load(as: uuid_t.self)) }
            let upper = uuid.uuidString
            let lower = upper.lowercased()
            let mixed = String(upper.enumerated().map { $0.offset % 2 == n % 2 ? Character($0.element.lowercased()) : $0.element })
            #expect(Self.parse(upper) == uuid)
            #expect(Self.parse(lower) == uuid)
            #expect(Self.parse(mixed) == uuid)
        }
        #expect(Self.parse("00000000-0000-0000-0000-000000000000") == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        #expect(Self.parse("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")?.uuidString == "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")
        #expect(Self.parse("0123456789ABCDEF-0123-4567-89abcdef0123") == nil)
        #expect(Self.parse("01234567-89AB-CDEF-0123-456789abcdef")?.uuidString == "01234567-89AB-CDEF-0123-456789ABCDEF")
    }

    @Test("every byte value at every position is accepted exactly when Foundation accepts it")
    func everyByteAtEveryPositionMatchesFoundation() {
        let base = Array("0B1E0000-9AF0-4000-8000-00000000000F".utf8)
        for position in 0..<36 {
            for byte in UInt8.min...UInt8.max {
                var bytes = base
                bytes[position] = byte
                let parsed = bytes.withUnsafeBytes { WireParser.parseUUID($0) }
                // Foundation reads only ASCII here; a byte ≥ 0x80 alone is not valid UTF-8, and never a hex digit.
                let expected = byte < 0x80 ? UUID(uuidString: String(decoding: bytes, as: UTF8.self)) : nil
                #expect(parsed == expected, "byte \(byte) at \(position)")
            }
        }
    }

    @Test("wrong lengths are refused")
    func wrongLengthsAreRefused() {
        #expect(Self.parse("0B1E0000-9AF0-4000-8000-00000000000") == nil)
        #expect(Self.parse("0B1E0000-9AF0-4000-8000-00000000000FA") == nil)
        #expect(Self.parse("") == nil)
    }
}
