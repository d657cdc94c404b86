import Foundation
import Testing
@testable import StepSyncCore

/// Issue 21.5: every wire string is UTF-8 with surrogate escapes only in pairs, or the request is refused with
/// `invalid_text` naming the field (``WireText``).
@Suite("Wire text: invalid UTF-8 and lone surrogates are refused, naming the field")
struct WireTextTests {
    static let good = WireSamplesDecoderTests.heartRate
    static let before = #"{"uuid":"0b1e0000-0000-4000-8000-000000000002","type":"HKQuantityTypeIdentifierHeartRate","startDate":"2025-05-11T16:27:22.000Z","endDate":"2025-05-11T16:27:22.000Z","value":72,"unit":"count/min","sourceName":""#

    /// A `POST /samples` body whose second sample holds `text` (raw bytes, as sent) at `place`.
    static func body(_ text: [UInt8], in place: Place) -> [UInt8] {
        var out = Array(#"{"samples":["#.utf8) + Array(good.utf8) + [UInt8(ascii: ",")] + Array(before.utf8)
        let tail = Array(#"","sourceBundleId":"com.apple.health""#.utf8)
        switch place {
        case .sourceName: out += text + tail
        case .detailsValue: out += Array("Watch".utf8) + tail + Array(#","details":{"metadata":{"note":["ok",""#.utf8) + text + Array(#""]}}"#.utf8)
        case .detailsKey: out += Array("Watch".utf8) + tail + Array(#","details":{"metadata":{""#.utf8) + text + Array(#"":1}}"#.utf8)
        case .unknownField: out += Array("Watch".utf8) + tail + Array(#","comment":{"a":""#.utf8) + text + Array(#""}"#.utf8)
        }
        return out + Array("}]}".utf8)
    }

    enum Place: String, CaseIterable { case sourceName, detailsValue, detailsKey, unknownField }

    /// What the detail ends with: where inside `details` the bad string is.
    static func location(_ place: Place) -> String {
        switch place {
        case .detailsValue: ", in metadata.note[1]"
        case .detailsKey: ", in metadata.(a key)"
        default: ""
        }
    }

    static func field(_ place: Place) -> String {
        switch place {
        case .sourceName: "sourceName"
        case .detailsValue, .detailsKey: "details"
        case .unknownField: "comment"
        }
    }

    /// Invalid UTF-8 (bytes inside a string) and what the error says about it.
    static let invalidUTF8: [([UInt8], String, String)] = [
        ([0x41, 0x80, 0x42], "a stray continuation byte", "80"),
        ([0xBF], "a stray continuation byte", "BF"),
        ([0xE2, 0x82], "a truncated sequence", "E2 82"),
        ([0xE2, 0x82, 0x41], "a truncated sequence", "E2 82"),
        ([0xF0, 0x9F, 0x98], "a truncated sequence", "F0 9F 98"),
        ([0xC0, 0xAF], "an overlong encoding", "C0 AF"),
        ([0xC1, 0xBF], "an overlong encoding", "C1 BF"),
        ([0xE0, 0x80, 0xAF], "an overlong encoding", "E0 80 AF"),
        ([0xF0, 0x8F, 0xBF, 0xBF], "an overlong encoding", "F0 8F BF BF"),
        ([0xED, 0xA0, 0x80], "a UTF-16 surrogate encoded in UTF-8", "ED A0 80"),
        ([0xED, 0xBF, 0xBF], "a UTF-16 surrogate encoded in UTF-8", "ED BF BF"),
        ([0xF4, 0x90, 0x80, 0x80], "a code point above U+10FFFF", "F4 90 80 80"),
        ([0xF5, 0x80, 0x80, 0x80], "a code point above U+10FFFF", "F5 80 80 80"),
        ([0xFF], "a byte that never occurs in UTF-8", "FF"),
    ]

    @Test("invalid UTF-8 in a string value, a details value, a details key and an unknown field → invalid_text naming the field and the byte",
          arguments: Place.allCases)
    func invalidUTF8(place: Place) throws {
        for (bytes, problem, hex) in Self.invalidUTF8 {
            let body = Self.body(bytes, in: place)
            let error = try #require(throws: WireError.self) { try WireDecoder.decodeSamplesRequest(body) }
            #expect(error.kind == "invalid_text")
            #expect(error.sampleIndex == 1)
            #expect(error.field == Self.field(place))
            let prefix = "is not valid UTF-8: \(problem) (\(hex)) at byte "
            #expect(error.detail.hasPrefix(prefix), "\(error.detail)")
            #expect(error.detail.hasSuffix(Self.location(place)), "\(error.detail)")
            let offset = try #require(Int(error.detail.dropFirst(prefix.count).dropLast(Self.location(place).count)))
            let bad = bytes.first { $0 >= 0x80 }!
            #expect(body[offset] == bad, "the offset names the first byte of the bad sequence")
            #expect(error.description == "sample 1: field \"\(Self.field(place))\" \(error.detail)")
        }
    }

    static let badEscapes: [(String, String)] = [
        (#"\ud800"#, #"holds a lone surrogate \uD800"#),
        (#"\uDBFF"#, #"holds a lone surrogate \uDBFF"#),
        (#"\udc00"#, #"holds a lone surrogate \uDC00"#),
        (#"a\uDFFFb"#, #"holds a lone surrogate \uDFFF"#),
        (#"\ud800\u0041"#, #"holds a lone surrogate \uD800 (followed by \u0041, not a low surrogate)"#),
        (#"\ud800\ud800"#, #"holds a lone surrogate \uD800 (followed by \uD800, not a low surrogate)"#),
        (#"\ud800x"#, #"holds a lone surrogate \uD800"#),
        (#"\ud800\n"#, #"holds a lone surrogate \uD800"#),
        (#"\ude00\ud83d"#, #"holds a lone surrogate \uDE00"#),
    ]

    @Test("a lone high or low surrogate escape, or a high one followed by anything but a low one → invalid_text naming the field",
          arguments: Place.allCases)
    func loneSurrogates(place: Place) throws {
        for (escape, detail) in Self.badEscapes {
            let body = Self.body(Array(escape.utf8), in: place)
            let error = try #require(throws: WireError.self) { try WireDecoder.decodeSamplesRequest(body) }
            #expect(error.kind == "invalid_text")
            #expect(error.sampleIndex == 1)
            #expect(error.field == Self.field(place))
            #expect(error.detail.hasPrefix(detail + " at byte "), "\(escape): \(error.detail)")
            #expect(error.detail.hasSuffix(Self.location(place)), "\(escape): \(error.detail)")
        }
    }

    @Test("inside details the message says where: keys, array indices, a key itself, long keys shortened", arguments: [
        (#"{"a":"\ud800"}"#, ", in a"),
        (#"{"a":{"b":[1,{"c":"x"},["y","\udc00"]]}}"#, ", in a.b[2][1]"),
        (#"{"a":{"x":1,"b\ud800":2}}"#, ", in a.(a key)"),
        (#"{"\"{[,:":{"k":"\ud800"}}"#, #", in \"{[,:.k"#),
        (#"{"abcdefghijklmnopqrstuvwxyz0123":"\ud800"}"#, ", in abcdefghijklmnopqrstuvwx…"),
    ] as [(String, String)])
    func detailsPath(details: String, suffix: String) throws {
        let body = #"{"samples":[\#(Self.good.replacingOccurrences(of: #""details":{"metadata":{"HKMetadataKeyHeartRateMotionContext":"1"}}"#, with: #""details":"# + details))]}"#
        let error = try #require(throws: WireError.self) { try WireDecoder.decodeSamplesRequest(Array(body.utf8)) }
        #expect(error.kind == "invalid_text" && error.field == "details" && error.sampleIndex == 0)
        #expect(error.detail.hasSuffix(suffix), "\(error.detail)")
    }

    @Test("POST /steps and stored lines refuse the same: a /steps field, a key, a top-level unknown field")
    func stepsAndKeys() throws {
        let steps = WireDecoderTests.good.replacingOccurrences(of: "com.apple.health", with: #"com.apple\udc00"#)
        var error = try #require(throws: WireError.self) { try WireDecoder.decodeRequest(WireDecoderTests.body(WireDecoderTests.good, steps)) }
        #expect(error.kind == "invalid_text" && error.field == "sourceBundleId" && error.sampleIndex == 1)
        var keyed = Array(#"{"samples":[{"uu"#.utf8) + [0xC3] + Array(#"":1}]}"#.utf8)
        error = try #require(throws: WireError.self) { try WireDecoder.decodeRequest(keyed) }
        #expect(error.kind == "invalid_text" && error.field == "(a key)" && error.sampleIndex == 0)
        #expect(error.detail.hasPrefix("is not valid UTF-8: a truncated sequence (C3) at byte 16"))
        keyed = Array(#"{"note":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#"","samples":[]}"#.utf8)
        error = try #require(throws: WireError.self) { try WireDecoder.decodeRequest(keyed) }
        #expect(error.kind == "invalid_text" && error.field == "note" && error.sampleIndex == nil)
        let line = Array(WireDecoderTests.good.replacingOccurrences(of: "iPhone", with: #"i\uD83DPhone"#).utf8)
        error = try #require(throws: WireError.self) { try WireDecoder.decodeStoredSample(line, type: .stepCount, index: 9) }
        #expect(error.kind == "invalid_text" && error.field == "sourceDeviceName" && error.sampleIndex == 9)
    }

    @Test("valid non-ASCII text round-trips byte-exact: é, CJK, emoji as raw UTF-8 and as a surrogate pair, U+10FFFF, U+FFFD as sent")
    func validText() throws {
        let cases: [(String, String)] = [
            ("é", "é"), ("Anaïs’s 手表", "Anaïs’s 手表"), ("😀", "😀"), (#"\ud83d\ude00"#, "😀"), (#"\uD83D\uDE00!"#, "😀!"),
            (#"\u00e9\u624B"#, "é手"), ("\u{10FFFF}", "\u{10FFFF}"), (#"\udbff\udfff"#, "\u{10FFFF}"), ("\u{FFFD}", "\u{FFFD}"),
            ("\u{7FF}\u{800}\u{FFFF}\u{10000}", "\u{7FF}\u{800}\u{FFFF}\u{10000}"),
        ]
        for (sent, expected) in cases {
            let samples = try WireDecoder.decodeSamplesRequest(Self.body(Array(sent.utf8), in: .sourceName))
            #expect(Array(samples[1].sourceName.utf8) == Array(expected.utf8), "\(sent)")
            let detailed = try WireDecoder.decodeSamplesRequest(Self.body(Array(sent.utf8), in: .detailsValue))
            #expect(detailed[1].details == #"{"metadata":{"note":["ok","\#(sent)"]}}"#, "details keep the text as sent")
            let keyed = try WireDecoder.decodeSamplesRequest(Self.body(Array(sent.utf8), in: .detailsKey))
            #expect(keyed[1].details == #"{"metadata":{"\#(sent)":1}}"#)
        }
    }

    @Test("WireText agrees with String(validating:) on 50,000 seeded random byte strings biased to UTF-8's edges, and the parser with both")
    func agreesWithStandardLibrary() throws {
        let edges: [UInt8] = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED,
                              0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFF]
        var state: UInt64 = 0x2126_2026
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var accepted = 0
        for _ in 0..<50_000 {
            let bytes: [UInt8] = (0..<Int(next() % 9)).map { _ in
                let r = next()
                let b = r % 3 == 0 ? UInt8(truncatingIfNeeded: r >> 8) : edges[Int((r >> 8) % UInt64(edges.count))]
                return b < 0x20 || b == 0x22 || b == 0x5C ? 0x41 : b
            }
            let reference = String(validating: bytes, as: UTF8.self)
            let problem = bytes.withUnsafeBytes { WireText.firstProblem(in: $0) }
            #expect((problem == nil) == (reference != nil), "\(bytes)")
            var decoded: [HealthSample]?
            var failure: WireError?
            do throws(WireError) { decoded = try WireDecoder.decodeSamplesRequest(Self.body(bytes, in: .sourceName)) } catch { failure = error }
            if let decoded, let reference {
                #expect(Array(decoded[1].sourceName.utf8) == Array(reference.utf8))
                accepted += 1
            } else if let failure, reference == nil {
                #expect(failure.kind == "invalid_text" && failure.field == "sourceName")
            } else {
                Issue.record("parser and String(validating:) disagree on \(bytes): \(String(describing: failure))")
            }
        }
        #expect(accepted > 5_000 && accepted < 45_000, "both outcomes are exercised: \(accepted) accepted")
    }
}
