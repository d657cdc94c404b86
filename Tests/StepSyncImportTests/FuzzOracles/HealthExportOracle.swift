import Foundation
import StepSyncCore
#if canImport(StepSyncImport)
@testable import StepSyncImport
#endif

/// What the streaming export reader (``XMLChunkScanner`` + ``HealthExportParser``) promises for any bytes cut into
/// any chunks, as a check that returns the broken promises (empty when all hold).
///
/// An input is a chunking pattern and a document: byte 0 says how many chunk lengths follow (`byte0 % 8`, each
/// `byte + 1`); the document (the rest) is fed in chunks whose lengths cycle through them (1 byte at a time when
/// there are none). Each chunk is copied into its own allocation of exactly its size, so reading past a chunk is
/// caught. The `health-export` fuzz target compiles this file; `FuzzReplayTests` runs every corpus and crash file
/// through it once. The promises:
/// 1. any bytes, cut anywhere, are safe;
/// 2. the cut does not matter: the same tags (kind, name, attributes, line), the same samples and counts, and the
///    same error (kind, line, reason) as when the document comes in one piece;
/// 3. an error names a line of the document and echoes at most 64 characters of it (``maxReasonBytes``);
/// 4. every sample passes ``SampleValidation`` (the importer skips, and counts, what it refuses), and its `details`,
///    written by hand from the export's child elements, is a JSON object to Foundation's `JSONSerialization`;
/// 5. a skipped record is described the same however the document is cut, and its description quotes at most 64
///    characters of any value.
enum HealthExportOracle {
    /// The longest error reason allowed: two quoted values (`</a> does not close <b>`) of at most 64 characters of
    /// at most 4 bytes each, plus the fixed text.
    static let maxReasonBytes = 2 * 64 * 4 + 200

    /// The promises `input` breaks.
    static func problems(_ input: UnsafeRawBufferPointer) -> [String] {
        guard let header = input.first else { return [] }
        let count = min(Int(header % 8), input.count - 1)
        let lengths = count == 0 ? [1] : input[1...count].map { Int($0) + 1 }
        let document = UnsafeRawBufferPointer(rebasing: input[(1 + count)...])
        let lines = document.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        var problems: [String] = []

        let whole = scan(document, lengths: [max(1, document.count)])
        let cut = scan(document, lengths: lengths)
        if cut.tags != whole.tags { problems.append("cut into \(lengths), the scanner sees other tags") }
        if cut.outcome != whole.outcome { problems.append("cut into \(lengths), the scan ends \(cut.outcome), whole \(whole.outcome)") }

        let parsedWhole = parse(document, lengths: [max(1, document.count)])
        let parsedCut = parse(document, lengths: lengths)
        if parsedCut != parsedWhole { problems.append("cut into \(lengths), the parser reads something else: \(parsedCut.outcome) vs \(parsedWhole.outcome)") }

        for outcome in [whole.outcome, parsedWhole.outcome] {
            if case .failed(_, let line, let reason) = outcome {
                if line < 1 || line > lines { problems.append("an error names line \(line) of \(lines)") }
                if reason.utf8.count > maxReasonBytes {
                    problems.append("an error reason of \(reason.utf8.count) bytes: \(ImportFuzzText.head(reason))…")
                }
            }
        }
        for sample in parsedWhole.samples {
            if let problem = SampleValidation.problem(of: sample) {
                problems.append("a sample SampleValidation refuses: \(problem.reason.rawValue) \(problem.field) \(problem.detail)")
            }
            if let details = sample.details, !details.contains("\\u"),
               (try? JSONSerialization.jsonObject(with: Data(details.utf8))) as? [String: Any] == nil {
                problems.append("details that are not a JSON object: \(ImportFuzzText.head(details))")
            }
        }
        for skipped in parsedWhole.skipped where skipped.utf8.count > maxReasonBytes {
            problems.append("a skipped record described in \(skipped.utf8.count) bytes: \(ImportFuzzText.head(skipped))…")
        }
        return problems
    }

    /// How a scan or parse ended.
    enum Outcome: Equatable, CustomStringConvertible {
        case finished(line: Int)
        case failed(kind: String, line: Int, reason: String)

        init(_ problem: XMLProblem) { self = .failed(kind: "\(problem.kind)", line: problem.line, reason: problem.reason) }

        var description: String {
            switch self {
            case .finished(let line): return "finished at line \(line)"
            case .failed(let kind, let line, let reason): return "\(kind) at line \(line): \(reason.prefix(100))"
            }
        }
    }

    /// A tag as the scanner handed it over.
    struct Tag: Equatable {
        var kind: String
        var name: [UInt8]
        var attributes: [UInt8]
        var line: Int
    }

    /// Records every tag.
    struct Recorder: XMLTagHandler {
        var tags: [Tag] = []
        mutating func handle(_ tag: XMLTag) throws {
            tags.append(Tag(kind: "\(tag.kind)", name: Array(tag.name), attributes: Array(tag.attributes), line: tag.line))
        }
    }

    /// What the parser read.
    struct Parsed: Equatable {
        var samples: [HealthSample] = []
        var recordsByType: [SampleType: Int] = [:]
        var nestedRecords = 0
        var skipped: [String] = []
        var outcome = Outcome.finished(line: 1)
    }

    /// Feeds `document` to `body` in chunks of the given cycling lengths, each in an allocation of its exact size.
    static func feed(_ document: UnsafeRawBufferPointer, lengths: [Int],
                     _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var offset = 0, k = 0
        while offset < document.count {
            let end = min(document.count, offset + lengths[k % lengths.count])
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: end - offset, alignment: 1)
            defer { chunk.deallocate() }
            chunk.copyMemory(from: UnsafeRawBufferPointer(rebasing: document[offset..<end]))
            try body(UnsafeRawBufferPointer(chunk))
            offset = end
            k += 1
        }
    }

    static func scan(_ document: UnsafeRawBufferPointer, lengths: [Int]) -> (tags: [Tag], outcome: Outcome) {
        var scanner = XMLChunkScanner()
        var recorder = Recorder()
        do {
            try feed(document, lengths: lengths) { try scanner.feed($0, to: &recorder) }
            try scanner.finish()
            return (recorder.tags, .finished(line: scanner.line))
        } catch let problem as XMLProblem {
            return (recorder.tags, Outcome(problem))
        } catch {
            return (recorder.tags, .failed(kind: "unexpected", line: 0, reason: "\(error)"))
        }
    }

    static func parse(_ document: UnsafeRawBufferPointer, lengths: [Int]) -> Parsed {
        var scanner = XMLChunkScanner()
        var parser = HealthExportParser()
        var result = Parsed()
        do {
            try feed(document, lengths: lengths) { chunk in
                try scanner.feed(chunk, to: &parser)
                result.samples += parser.drain()
            }
            try scanner.finish()
            try parser.finish(line: scanner.line)
            result.outcome = .finished(line: scanner.line)
        } catch let problem as XMLProblem {
            result.samples += parser.drain()
            result.outcome = Outcome(problem)
        } catch {
            result.outcome = .failed(kind: "unexpected", line: 0, reason: "\(error)")
        }
        result.recordsByType = parser.recordsByType
        result.nestedRecords = parser.nestedRecords
        result.skipped = parser.firstSkipped.map(\.description)
        return result
    }
}
