import Foundation
import FuzzReplaySupport
import StepSyncCore
import Testing
@testable import StepSyncImport
import StepSyncTestSupport

/// The fuzzers' corpora and every crash they found, run once through the importer's real scanner and decoders with
/// the fuzzers' own oracles (`FuzzOracles/`), plus a seeded slice of mutations of the corpus; see `Fuzz/README.md`.
@Suite("Fuzz replay: the export reader")
struct ImportFuzzReplayTests {
    @Test("every health-export corpus and crash input, and 300 seeded mutations, read the same however they are cut")
    func healthExport() throws {
        var samples = 0
        let replay = try FuzzReplay("health-export", mutations: 300, seed: 3, oracle: HealthExportOracle.problems) { input in
            input.bytes.withUnsafeBytes { raw in
                let document = UnsafeRawBufferPointer(rebasing: raw[min(raw.count, 1 + Int((raw.first ?? 0) % 8))...])
                samples += HealthExportOracle.parse(document, lengths: [max(1, document.count)]).samples.count
            }
        }
        #expect(replay.corpusCount >= 8)
        #expect(replay.problems == [])
        // The oracle is checked on documents that do yield samples, not only on refusals.
        #expect(samples >= 10)
    }

    @Test("every gzip-body corpus and crash input, and 2,000 seeded mutations: the sink's gzip framing accepts exactly what zlib's gzip reader accepts, as the same bytes")
    func gzipBody() throws {
        #expect(GzipBodyOracle.available, "zlib (StepSyncZlib) is reachable from the importer's tests")
        var accepted = 0, refused = 0
        let replay = try FuzzReplay("gzip-body", mutations: 2_000, seed: 216, oracle: GzipBodyOracle.problems) { input in
            guard let mode = input.bytes.first else { return }
            if GzipBodyOracle.zlibGzip(GzipBodyOracle.makeBody(mode: mode, Array(input.bytes.dropFirst()))) != nil {
                accepted += 1
            } else {
                refused += 1
            }
        }
        #expect(replay.corpusCount >= 11)
        #expect(replay.problems == [])
        #expect(accepted >= 100 && refused >= 100, "\(accepted) accepted, \(refused) refused")
    }

    @Test("every attachments corpus and crash input, and 3,000 seeded mutations: routes and ECG files refused with a real line or read back the same")
    func attachments() throws {
        var routes = 0, recordings = 0
        let replay = try FuzzReplay("attachments", mutations: 3_000, seed: 25, oracle: AttachmentsOracle.problems) { input in
            guard let selector = input.bytes.first else { return }
            let file = Array(input.bytes.dropFirst())
            if selector % 2 == 0, (try? GPXRoute.parse(file)) != nil { routes += 1 }
            if selector % 2 == 1, (try? ElectrocardiogramCSV.parse(file)) != nil { recordings += 1 }
        }
        #expect(replay.corpusCount >= 4)
        #expect(replay.problems == [])
        // The oracle is checked on files that are read, not only on refusals.
        #expect(routes >= 2 && recordings >= 2, "\(routes) routes, \(recordings) recordings read")
    }

    @Test("every xml-attributes corpus and crash input, and 2,000 seeded mutations, keep the decoders' promises")
    func xmlAttributes() throws {
        let replay = try FuzzReplay("xml-attributes", mutations: 2_000, seed: 4, oracle: XMLAttributesOracle.problems)
        #expect(replay.corpusCount >= 14)
        #expect(replay.problems == [])
    }

    @Test("every export-input corpus and crash input, and 300 seeded mutations, open and stream as ExportInput promises")
    func exportInput() throws {
        var zips = 0, refused = 0
        let replay = try FuzzReplay("export-input", mutations: 300, seed: 6, oracle: ExportInputOracle.problems) { input in
            let path = NSTemporaryDirectory() + "stepsync-export-input-\(getpid())-replay.bin"
            defer { unlink(path) }
            try Data(input.bytes).write(to: URL(fileURLWithPath: path))
            switch try? ExportInput.open(path) {
            case .zip: zips += 1
            case .xml: break
            case nil: refused += 1
            }
        }
        #expect(replay.corpusCount >= 11)
        #expect(replay.problems == [])
        // The oracle ran on zips it accepted and on files it refused, not only on bare XML.
        #expect(zips >= 4 && refused >= 20)
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

/// What the fuzzers found in the importer, each pinned by its exact outcome (the inputs are in `Fuzz/Crashes/`). Both
/// were also fixed independently on the `import` branch (quotes cut to 64 bytes); these tests keep them fixed.
@Suite("Fuzz findings: the export reader")
struct ImportFuzzFindingTests {
    /// Parses `text` in one chunk and returns the problem it ends with.
    private func problem(_ text: String, strict: Bool = false) throws -> XMLProblem {
        var scanner = XMLChunkScanner()
        var parser = HealthExportParser()
        parser.strict = strict
        do {
            try Array(text.utf8).withUnsafeBytes { try scanner.feed($0, to: &parser) }
            try scanner.finish()
            try parser.finish(line: scanner.line)
        } catch let problem as XMLProblem {
            return problem
        }
        throw XMLProblem(kind: .malformed, line: 0, reason: "no problem")
    }

    @Test("an element name is quoted to its first 64 bytes (health-export crash-d15fcf17: a 511-byte reason)")
    func longEndTagName() throws {
        let name = String(repeating: "R", count: 300)
        let p = try problem("<HealthData>\n<Workout>\n</\(name) x=\"\(name)\">\n</HealthData>")
        #expect(p.line == 3)
        #expect(p.reason == "</\(name.prefix(64))> does not close <Workout>")
        let q = try problem("<\(name)>")
        #expect(q.reason == "the root element is <\(name.prefix(64))>, not <HealthData>: this is not an Apple Health export")
        let r = try problem("<HealthData>\n<\(name)>\n")
        #expect(r.reason == "the file ends inside <\(name.prefix(64))>")
    }

    @Test("a bad record value is quoted to its first 64 bytes (xml-attributes crash-300ba3a0: a 470-byte reason)")
    func longAttributeValue() throws {
        let date = "2021" + String(repeating: "\u{FFFD}", count: 200)
        let p = try problem("<HealthData>\n<Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"x\" startDate=\"\(date)\" endDate=\"2020-02-29T10:10:00Z\" value=\"1\"/>\n</HealthData>", strict: true)
        #expect(p.line == 2)
        #expect(p.reason == "Record HKQuantityTypeIdentifierStepCount cannot be imported (unreadable_date): startDate \"2021\(String(repeating: "\u{FFFD}", count: 20))\"… is not a date")
        let value = String(repeating: "9x", count: 100)
        let q = try problem("<HealthData>\n\n<Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"x\" startDate=\"2020-02-29T10:00:00Z\" endDate=\"2020-02-29T10:10:00Z\" value=\"\(value)\"/>\n</HealthData>", strict: true)
        #expect(q.line == 3)
        #expect(q.reason == "Record HKQuantityTypeIdentifierStepCount cannot be imported (unreadable_value): value \"\(value.prefix(64))\"… is not a number")
    }

    @Test("a record value is a number only in decimal notation, and a NUL byte does not end it (found by the xml-attributes corpus)",
          arguments: [
              ("72\u{0}junk", nil), ("0\u{0}\u{1}&", nil), ("-inf", nil), ("-nan", nil), ("+1", nil), ("0x1p3", nil),
              ("72", 72), (" 1e3 ", 1_000), ("-.5", -0.5), ("1e400", Double.infinity),
          ] as [(String, Double?)])
    func decimalOnly(text: String, value: Double?) {
        #expect(Array(text.utf8).withUnsafeBytes { RecordDecoder.number($0) } == value)
    }
}

/// What the export-input fuzz target found in how an export file is opened, pinned by its exact outcome.
@Suite("Fuzz findings: opening an export.zip")
struct ExportInputFuzzFindingTests {
    @Test("a damaged entry's 324-byte path is quoted to 64 scalars (export-input seed-zip-damaged-long-name)")
    func longEntryPath() throws {
        let input = try #require(try FuzzCorpus("export-input").corpus.first { $0.name.hasSuffix("/seed-zip-damaged-long-name") })
        let path = NSTemporaryDirectory() + "stepsync-export-input-\(getpid())-finding.zip"
        defer { unlink(path) }
        try Data(input.bytes).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: ImportError.self) { _ = try ExportInput.open(path) }
        let name = "apple_health_export/" + String(repeating: "y", count: 44) + "…"
        #expect(error.message.hasPrefix("\(path): the entry \(name) cannot be inflated ("))
        #expect(!error.message.contains(String(repeating: "y", count: 45)))
    }

    @Test("an entry whose directory gives another size than it inflates to is refused as damaged (export-input crash-d7528399)")
    func sizeMismatch() throws {
        let input = try #require(try FuzzCorpus("export-input").crashes.first { $0.name.hasSuffix("/crash-d75283998144bea349198d96413c2dab928612ac") })
        let path = NSTemporaryDirectory() + "stepsync-export-input-\(getpid())-size.zip"
        defer { unlink(path) }
        try Data(input.bytes).write(to: URL(fileURLWithPath: path))
        let opened = try ExportInput.open(path)
        #expect(opened.totalBytes == 307)
        var streamed = 0
        let error = try #require(throws: ImportError.self) { try opened.stream(path) { streamed += $0.count } }
        // The checksum matches (the entry's data is whole); only the directory's size was changed.
        #expect(streamed == 310)
        // The fuzzer also blanked the directory's copy of the entry's name: 30 NUL bytes.
        #expect(error.message == "\(path): \(String(repeating: "\u{0}", count: 30)): the entry inflates to 310 bytes, its directory says 307; the zip is damaged")
    }
}
