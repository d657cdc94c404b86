import Foundation
import StepSyncCore
import Testing
@testable import StepSyncImport

/// The fuzzers' corpora and every crash they found, run once through the importer's real scanner and decoders with
/// the fuzzers' own oracles (`FuzzOracles/`), plus a seeded slice of mutations of the corpus; see `Fuzz/README.md`.
@Suite("Fuzz replay: the export reader")
struct ImportFuzzReplayTests {
    @Test("every health-export corpus and crash input, and 300 seeded mutations, read the same however they are cut")
    func healthExport() throws {
        let inputs = try FuzzCorpus("health-export")
        #expect(inputs.corpus.count >= 8)
        var samples = 0
        for input in inputs.all + inputs.mutations(300, seed: 3) {
            #expect(input.bytes.withUnsafeBytes(HealthExportOracle.problems) == [], "\(input)")
            input.bytes.withUnsafeBytes { raw in
                let document = UnsafeRawBufferPointer(rebasing: raw[min(raw.count, 1 + Int((raw.first ?? 0) % 8))...])
                samples += HealthExportOracle.parse(document, lengths: [max(1, document.count)]).samples.count
            }
        }
        // The oracle is checked on documents that do yield samples, not only on refusals.
        #expect(samples >= 10)
    }

    @Test("every xml-attributes corpus and crash input, and 2,000 seeded mutations, keep the decoders' promises")
    func xmlAttributes() throws {
        let inputs = try FuzzCorpus("xml-attributes")
        #expect(inputs.corpus.count >= 14)
        for input in inputs.all + inputs.mutations(2_000, seed: 4) {
            #expect(input.bytes.withUnsafeBytes(XMLAttributesOracle.problems) == [], "\(input)")
        }
    }

    @Test("the oracles catch what they are meant to: a cut that changes the tags, a date read two ways, a wrong number")
    func oraclesCanFail() {
        // Two documents that differ only in one tag's name must differ to the scanner's recorder.
        let a = Array("<HealthData><A/></HealthData>".utf8).withUnsafeBytes { HealthExportOracle.scan($0, lengths: [3]) }
        let b = Array("<HealthData><B/></HealthData>".utf8).withUnsafeBytes { HealthExportOracle.scan($0, lengths: [3]) }
        #expect(a.tags.count == 3 && a.tags != b.tags)
        #expect(a.outcome == .finished(line: 1))
        #expect(XMLAttributesOracle.escape("<é中&'\"") == "&lt;&#xe9;&#x4E2D;&amp;&apos;&quot;")
        #expect(Array("2019-01-01 08:00:00 +0100".utf8).withUnsafeBytes(XMLAttributesOracle.dateProblems) == [])
    }
}
