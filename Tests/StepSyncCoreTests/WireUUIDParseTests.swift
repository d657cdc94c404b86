import Foundation
import Testing
@testable import StepSyncCore

/// `WireParser.parseUUID` is the wire's uuid parser (branch-free since issue 14). These tests hold it to Foundation's
/// `UUID(uuidString:)` on well-formed strings of either case, and to the parser it replaced (kept here as
/// `reference`) on every byte value at every position: Foundation is laxer (on Linux it skips a leading space or tab
/// in a group), the wire never was.
@Suite("WireParser: uuid parsing")
struct WireUUIDParseTests {
    static func parse(_ text: String) -> UUID? {
        Array(text.utf8).withUnsafeBytes { WireParser.parseUUID($0) }
    }

    /// The parser before issue 14's change: a switch per byte.
    static func reference(_ b: UnsafeRawBufferPointer) -> UUID? {
        guard b.count == 36 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 65...70: return c - 55
            case 97...102: return c - 87
            default: return nil
            }
        }
        var out = [UInt8](repeating: 0, count: 16)
        var j = 0
        for n in 0..<16 {
            if n == 4 || n == 6 || n == 8 || n == 10 {
                guard b[j] == UInt8(ascii: "-") else { return nil }
                j += 1
            }
            guard let hi = nibble(b[j]), let lo = nibble(b[j + 1]) else { return nil }
            out[n] = hi << 4 | lo
            j += 2
        }
        return out.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
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

    @Test("every byte value at every position gives what the replaced parser gave (a uuid or nil)")
    func everyByteAtEveryPositionMatchesTheReplacedParser() {
        let base = Array("0B1E0000-9AF0-4000-8000-00000000000F".utf8)
        var accepted = 0
        for position in 0..<36 {
            for byte in UInt8.min...UInt8.max {
                var bytes = base
                bytes[position] = byte
                let parsed = bytes.withUnsafeBytes { WireParser.parseUUID($0) }
                let expected = bytes.withUnsafeBytes { Self.reference($0) }
                #expect(parsed == expected, "byte \(byte) at \(position)")
                if expected != nil { accepted += 1 }
            }
        }
        // 32 digit positions × 22 hex digits (both cases) + 4 hyphen positions × 1.
        #expect(accepted == 32 * 22 + 4)
    }

    @Test("wrong lengths are refused")
    func wrongLengthsAreRefused() {
        #expect(Self.parse("0B1E0000-9AF0-4000-8000-00000000000") == nil)
        #expect(Self.parse("0B1E0000-9AF0-4000-8000-00000000000FA") == nil)
        #expect(Self.parse("") == nil)
    }
}
