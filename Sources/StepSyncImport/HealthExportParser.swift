import StepSyncCore

/// Reads the element structure of an Apple Health export from ``XMLChunkScanner`` tags: decodes every top-level
/// `<Record>` into a sample and counts everything else.
///
/// Samples are collected in ``samples`` for the caller to drain after each chunk (so memory stays bounded by the
/// chunk). Records nested in a `<Correlation>` (blood pressure, food) repeat top-level records and are counted,
/// not decoded; `MetadataEntry` and other children of a record are ignored.
struct HealthExportParser: XMLTagHandler {
    /// Samples decoded since the last ``drain()``.
    private(set) var samples: [HealthSample] = []
    /// Top-level records read, by type (including those skipped for an unknown category value).
    private(set) var recordsByType: [SampleType: Int] = [:]
    /// Top-level elements other than records (`Workout`, `ActivitySummary`, `Correlation`, …), by name.
    private(set) var skippedElements: [String: Int] = [:]
    /// Records nested in other elements (correlations), not stored.
    private(set) var nestedRecords = 0
    /// Category records with a value label this importer does not know, by type.
    private(set) var unknownCategoryValues: [SampleType: Int] = [:]

    private var decoder = RecordDecoder()
    /// The open elements' names; `stack[0..<depth]` is live, the rest is reused storage.
    private var stack: [[UInt8]] = []
    private var depth = 0
    private var sawRoot = false
    private var closedRoot = false

    init() {}

    /// Takes the samples decoded so far.
    mutating func drain() -> [HealthSample] {
        defer { samples.removeAll(keepingCapacity: true) }
        return samples
    }

    mutating func handle(_ tag: XMLTag) throws {
        switch tag.kind {
        case .start, .empty:
            if depth == 1 {
                if XMLAttributes.equals(tag.name, "Record") {
                    switch try decoder.decode(tag.attributes, line: tag.line) {
                    case .sample(let sample):
                        samples.append(sample)
                        recordsByType[sample.type, default: 0] += 1
                    case .unknownCategoryValue(let type):
                        recordsByType[type, default: 0] += 1
                        unknownCategoryValues[type, default: 0] += 1
                    }
                } else if !XMLAttributes.equals(tag.name, "ExportDate"), !XMLAttributes.equals(tag.name, "Me") {
                    skippedElements[String(decoding: tag.name, as: UTF8.self), default: 0] += 1
                }
            } else if depth == 0 {
                guard !closedRoot else {
                    throw XMLProblem(kind: .malformed, line: tag.line, reason: "an element follows </HealthData>")
                }
                guard XMLAttributes.equals(tag.name, "HealthData") else {
                    throw XMLProblem(kind: .malformed, line: tag.line, reason:
                        "the root element is <\(XMLProblem.excerpt(tag.name))>, not <HealthData>: this is not an Apple Health export")
                }
                sawRoot = true
            } else if XMLAttributes.equals(tag.name, "Record") {
                nestedRecords += 1
            }
            if tag.kind == .start { push(tag.name) }
        case .end:
            guard depth > 0 else {
                throw XMLProblem(kind: .malformed, line: tag.line,
                                 reason: "</\(XMLProblem.excerpt(tag.name))> closes no open element")
            }
            guard stack[depth - 1].elementsEqual(tag.name) else {
                throw XMLProblem(kind: .malformed, line: tag.line, reason:
                    "</\(XMLProblem.excerpt(tag.name))> does not close <\(stack[depth - 1].withUnsafeBytes { XMLProblem.excerpt($0) })>")
            }
            depth -= 1
            if depth == 0 { closedRoot = true }
        }
    }

    /// Checks, at the end of the document, that it had a `<HealthData>` root and closed it.
    func finish(line: Int) throws {
        guard sawRoot else {
            throw XMLProblem(kind: .malformed, line: line,
                             reason: "no <HealthData> element: this is not an Apple Health export")
        }
        guard depth == 0 else {
            throw XMLProblem(kind: .truncated, line: line,
                             reason: "the file ends inside <\(stack[depth - 1].withUnsafeBytes { XMLProblem.excerpt($0) })>")
        }
    }

    private mutating func push(_ name: UnsafeRawBufferPointer) {
        if depth < stack.count {
            stack[depth].removeAll(keepingCapacity: true)
            stack[depth].append(contentsOf: name)
        } else {
            stack.append(Array(name))
        }
        depth += 1
    }
}
