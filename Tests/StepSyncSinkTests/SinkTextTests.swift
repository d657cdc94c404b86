import Foundation
import StepSyncCore
import Testing
import StepSyncTestSupport

/// Issue 21.5 through the real sink (HTTP on 127.0.0.1, JSONL and PostgreSQL): invalid text anywhere in a body is a
/// 400 naming the field, and nothing of that request is stored; valid non-ASCII text comes back byte for byte.
@Suite("Sink text: invalid UTF-8 and lone surrogates are refused whole; valid text round-trips")
struct SinkTextTests {
    /// A string's content as sent (raw bytes inside the quotes), what the error says, and its name.
    static let invalid: [(String, [UInt8], String)] = [
        ("lone high surrogate", Array(#"Watch \ud800"#.utf8), #"holds a lone surrogate \uD800 at byte "#),
        ("lone low surrogate", Array(#"Watch \udc00"#.utf8), #"holds a lone surrogate \uDC00 at byte "#),
        ("high surrogate then not a low one", Array(#"\ud83d\u0041"#.utf8), #"holds a lone surrogate \uD83D (followed by \u0041, not a low surrogate)"#),
        ("stray continuation byte", Array("Watch ".utf8) + [0x80], "is not valid UTF-8: a stray continuation byte (80) at byte "),
        ("truncated sequence", Array("Watch ".utf8) + [0xE2, 0x82], "is not valid UTF-8: a truncated sequence (E2 82) at byte "),
        ("overlong encoding", [0xC0, 0xAF], "is not valid UTF-8: an overlong encoding (C0 AF) at byte "),
        ("encoded surrogate", [0xED, 0xA0, 0x80], "is not valid UTF-8: a UTF-16 surrogate encoded in UTF-8 (ED A0 80) at byte "),
        ("above U+10FFFF", [0xF4, 0x90, 0x80, 0x80], "is not valid UTF-8: a code point above U+10FFFF (F4 90 80 80) at byte "),
    ]

    /// Where the text goes: a `/samples` sourceName, a string deep in `details`, a key in `details`, a `/steps`
    /// sourceDeviceName.
    enum Place: String, CaseIterable { case sourceName, detailsValue, detailsKey, stepsDevice }

    /// Three samples (uuids from `first`), the third holding `text` at `place`.
    static func body(_ text: [UInt8], at place: Place, first: Int) -> (path: String, body: [UInt8], field: String) {
        let marker = "MARKER-TEXT"
        switch place {
        case .stepsDevice:
            var samples = makeSamples(3, first: first)
            samples[2].sourceDeviceName = marker
            return ("/steps", replacing(marker, with: text, in: WireEncoder.encodeRequest(samples)), "sourceDeviceName")
        case .sourceName, .detailsValue, .detailsKey:
            var samples = makeHealthSamples(3, first: first, type: .workout, unit: "s",
                                            details: #"{"activityType":"HKWorkoutActivityTypeWalking","metadata":{"k":"v"}}"#)
            switch place {
            case .sourceName: samples[2].sourceName = marker
            case .detailsValue: samples[2].details = #"{"metadata":{"HKWeatherCondition":["ok","\#(marker)"]}}"#
            default: samples[2].details = #"{"metadata":{"\#(marker)":"1"}}"#
            }
            return ("/samples", replacing(marker, with: text, in: samplesBody(samples)),
                    place == .sourceName ? "sourceName" : "details")
        }
    }

    static func replacing(_ marker: String, with text: [UInt8], in body: [UInt8]) -> [UInt8] {
        let m = Array(marker.utf8)
        let at = (0...(body.count - m.count)).first { Array(body[$0..<($0 + m.count)]) == m }!
        return Array(body[..<at]) + text + Array(body[(at + m.count)...])
    }

    @Test("lone surrogates and 5 kinds of invalid UTF-8, in a string field, deep in details, as a details key and in /steps → 400 naming the field; nothing of any of them is stored",
          arguments: SinkBackend.allCases)
    func invalidText(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, path in
                var first = 100
                for place in Place.allCases {
                    for (what, text, detail) in Self.invalid {
                        let (endpoint, body, field) = Self.body(text, at: place, first: first)
                        first += 3
                        let reply = try await client.send(.POST, endpoint, body: body)
                        #expect(reply.status == 400, "\(what) at \(place): \(reply.text)")
                        #expect(reply.json["error"] as? String == "invalid_text", "\(what) at \(place)")
                        #expect(reply.json["field"] as? String == field, "\(what) at \(place)")
                        #expect(reply.json["index"] as? Int == 2, "\(what) at \(place)")
                        let message = reply.json["message"] as? String ?? ""
                        #expect(message.hasPrefix("sample 2: field \"\(field)\" \(detail)"), "\(what) at \(place): \(message)")
                        let location = place == .detailsValue ? ", in metadata.HKWeatherCondition[1]" : place == .detailsKey ? ", in metadata.(a key)" : ""
                        #expect(message.hasSuffix(location), "\(what) at \(place): \(message)")
                    }
                }
                // Nothing of any refused request: no step count, no type, an empty file.
                #expect(try await client.send(.GET, "/steps").json["storedCount"] as? Int == 0)
                #expect(try await client.send(.GET, "/samples/types").json["types"] as? [String: Int] == [:])
                if backend == .jsonl { #expect(fileBytes(path).isEmpty) }
                // The sink still takes a good request after them, and holds exactly it.
                #expect(try await client.post(samples: makeHealthSamples(2, first: 7)).status == 200)
                let stored = try await client.allPages("/samples?type=HKQuantityTypeIdentifierHeartRate")
                #expect(Set(stored.compactMap { $0["uuid"] as? String }) == [uuid(7).uuidString, uuid(8).uuidString])
            }
        }
    }

    @Test("valid non-ASCII text (é, CJK, emoji raw and as a \\ud83d\\ude00 pair, U+10FFFF) is stored and served back byte-exact",
          arguments: SinkBackend.allCases)
    func validTextRoundTrips(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                var samples = makeHealthSamples(2, first: 40)
                samples[0].sourceName = "Anaïs’s 手表 😀"
                samples[1].sourceName = "PAIR-MARKER"
                samples[1].deviceName = "café \u{10FFFF}"
                samples[0].details = #"{"metadata":{"note":"é 手 😀 \ud83d\ude00","手表":"ok"}}"#
                let body = Self.replacing("PAIR-MARKER", with: Array(#"Watch \ud83d\ude00!"#.utf8), in: samplesBody(samples))
                let reply = try await client.send(.POST, "/samples", body: body)
                #expect(reply.status == 200, "\(reply.text)")
                #expect(reply.json["inserted"] as? Int == 2)

                var steps = makeSamples(1, first: 50)
                steps[0].sourceDeviceName = "Anaïs’s 手表 😀"
                #expect(try await client.post(steps).status == 200)

                let served = try await client.send(.GET, "/samples?type=HKQuantityTypeIdentifierHeartRate")
                #expect(Set(served.uuids) == [uuid(40).uuidString, uuid(41).uuidString])
                let page = served.body
                for expected in [#""sourceName":"Anaïs’s 手表 😀""#, #""sourceName":"Watch 😀!""#,
                                 "\"sourceDeviceName\":\"café \u{10FFFF}\"",
                                 #""details":{"metadata":{"note":"é 手 😀 \ud83d\ude00","手表":"ok"}}"#] {
                    #expect(contains(page, Array(expected.utf8)), "served bytes hold \(expected): \(served.text)")
                }
                let stepsPage = try await client.send(.GET, "/steps")
                #expect(stepsPage.uuids == [uuid(50).uuidString])
                #expect(contains(stepsPage.body, Array(#""sourceDeviceName":"Anaïs’s 手表 😀""#.utf8)), "\(stepsPage.text)")
            }
        }
    }

    func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
