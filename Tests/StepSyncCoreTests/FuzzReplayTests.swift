import Foundation
import StepSyncCore
import Testing

/// The fuzzers' corpora and every crash they found, run once through the real parsers with the fuzzers' own oracles
/// (`FuzzOracles/`), plus a seeded slice of mutations of the corpus; see `Fuzz/README.md`.
@Suite("Fuzz replay: ISO-8601 dates and the wire")
struct FuzzReplayTests {
    @Test("every iso8601 corpus and crash input, and 2,000 seeded mutations, keep ISO8601Millis's promises")
    func iso8601() throws {
        let inputs = try FuzzCorpus("iso8601")
        #expect(inputs.corpus.count >= 18)
        let oracle = ISO8601Oracle()
        for input in inputs.all + inputs.mutations(2_000, seed: 8601) {
            #expect(input.bytes.withUnsafeBytes(oracle.problems) == [], "\(input)")
        }
    }

    @Test("every wire-request corpus and crash input, and 1,000 seeded mutations, keep WireDecoder's promises")
    func wireRequest() throws {
        let inputs = try FuzzCorpus("wire-request")
        #expect(inputs.corpus.count >= 10)
        var accepted = 0
        for input in inputs.all + inputs.mutations(1_000, seed: 1) {
            #expect(input.bytes.withUnsafeBytes(WireOracle.requestProblems) == [], "\(input)")
            if (try? WireDecoder.decodeRequest(input.bytes)) != nil { accepted += 1 }
        }
        // The oracle checks both sides: refusals (message size) and acceptances (round trip, Foundation).
        #expect(accepted >= 5)
    }

    @Test("every wire-line corpus and crash input, and 1,000 seeded mutations, keep WireDecoder's promises for stored lines")
    func wireLine() throws {
        let inputs = try FuzzCorpus("wire-line")
        #expect(inputs.corpus.count >= 7)
        var accepted = 0
        for input in inputs.all + inputs.mutations(1_000, seed: 2) {
            #expect(input.bytes.withUnsafeBytes(WireOracle.lineProblems) == [], "\(input)")
            if (try? WireDecoder.decodeSample(input.bytes)) != nil { accepted += 1 }
        }
        #expect(accepted >= 3)
    }

    @Test("every wire-samples corpus and crash input, and 1,000 seeded mutations, keep the POST /samples promises")
    func wireSamples() throws {
        let inputs = try FuzzCorpus("wire-samples")
        #expect(inputs.corpus.count >= 10)
        var accepted = 0
        for input in inputs.all + inputs.mutations(1_000, seed: 5) {
            #expect(input.bytes.withUnsafeBytes(WireOracle.samplesRequestProblems) == [], "\(input)")
            if let samples = try? WireDecoder.decodeSamplesRequest(input.bytes), !samples.isEmpty { accepted += 1 }
        }
        #expect(accepted >= 5)
    }

    @Test("the oracles catch what they are meant to: a wrong instant, a long echo, a sample that does not re-encode")
    func oraclesCanFail() {
        #expect(WireOracle.errorProblems(.malformedJSON(String(repeating: "x", count: 500)), index: nil).count == 1)
        #expect(WireOracle.errorProblems(.missingField("uuid", index: 3), index: 7).count == 1)
        let bad = WireSample(uuid: UUID(), startMs: Instants.max + 1, endMs: 0, count: -1, sourceBundleId: "", sourceDeviceName: nil)
        #expect(WireOracle.sampleProblems(bad, index: 0).count == 3)
        #expect(WireOracle.hasSurrogateEscape(#""\uDE00""#) && WireOracle.hasSurrogateEscape(#""\ud800""#))
        #expect(!WireOracle.hasSurrogateEscape(#""\u00e9\\uD800""#))
        #expect(Array("2025-05-11T16:27:22.5+02:00".utf8).withUnsafeBytes { RFC3339Fields($0)?.inRange } == true)
        #expect(Array("2025-02-29T16:27:22Z".utf8).withUnsafeBytes { RFC3339Fields($0)?.inRange } == false)
    }
}

/// What fuzzing found in the core's parsers, each pinned by its exact outcome (the inputs are in `Fuzz/Crashes/`).
@Suite("Fuzz findings: the wire")
struct WireFuzzFindingTests {
    @Test("a date followed by 200 combining accents is quoted to 64 scalars, not 64 characters (crash-review-grapheme-date)")
    func graphemeEcho() throws {
        let inputs = try FuzzCorpus("wire-line").crashes.filter { $0.name.hasSuffix("crash-review-grapheme-date") }
        let line = try #require(inputs.first).bytes
        let date = "2025-05-11T16:27:22.000Z"
        #expect(throws: WireError.self) { try WireDecoder.decodeSample(line) }
        do {
            _ = try WireDecoder.decodeSample(line)
        } catch {
            #expect(error.kind == "invalid_date" && error.field == "startDate")
            #expect(error.description == "field \"startDate\" \"\(date)\(String(repeating: "\u{301}", count: 40))…\" is not an ISO-8601 date such as 2025-05-11T16:27:22.000Z")
            #expect(error.description.utf8.count < 200)
        }
    }

    @Test("a type identifier of one character with 1,000 accents is quoted to 64 scalars")
    func graphemeType() throws {
        let type = SampleType(rawValue: "A" + String(repeating: "\u{301}", count: 1_000))
        let problem = try #require(SampleValidation.typeProblem(type))
        #expect(problem.detail == "\"A\(String(repeating: "\u{301}", count: 63))…\" is not a type identifier such as HKQuantityTypeIdentifierStepCount")
    }

    @Test("InputExcerpt keeps 64 scalars and marks a cut", arguments: [
        (String(repeating: "x", count: 64), String(repeating: "x", count: 64)),
        (String(repeating: "x", count: 65), String(repeating: "x", count: 64) + "…"),
        ("", ""),
        ("e\u{301}", "e\u{301}"),
    ])
    func excerpt(text: String, quoted: String) {
        #expect(InputExcerpt.of(text).unicodeScalars.elementsEqual(quoted.unicodeScalars))
    }
}
