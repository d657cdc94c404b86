import StepSyncCore

/// Reads the element structure of an Apple Health export from ``XMLChunkScanner`` tags: decodes every top-level
/// `<Record>` and `<Workout>` into a sample, skips (and counts) the records it cannot store, and counts everything
/// else.
///
/// Samples are collected in ``samples`` for the caller to drain after each chunk (so memory stays bounded by the
/// chunk). A record's children are read before it is emitted: the beats of an HRV record's
/// `HeartRateVariabilityMetadataList`, and its `MetadataEntry` pairs, go into its ``StepSyncCore/HealthSample/details``.
/// Records nested in a `<Correlation>` (blood pressure, food) repeat top-level records and are counted, not decoded.
/// Other top-level elements (`ActivitySummary`, `ClinicalRecord`, `Audiogram`, `VisionPrescription`, `Me`,
/// `ExportDate`, `Correlation`) are counted by name.
///
/// Record-level problems skip the record (counted by ``SkipReason``, the first few kept with their line); with
/// ``strict`` the first one throws instead. Only structural damage (unbalanced tags, a root that is not
/// `<HealthData>`, unreadable attribute syntax) throws otherwise.
struct HealthExportParser: XMLTagHandler {
    /// How many skipped records are kept with their line for the summary.
    static let keptSkips = 5

    /// Whether the first skipped record throws (``XMLProblem`` of kind `.strict`) rather than being counted.
    var strict = false
    /// Whether a record's `MetadataEntry` children are kept in its details (see `Planning/import.md`).
    var keepsRecordMetadata = true

    /// Samples decoded since the last ``drain()``.
    private(set) var samples: [HealthSample] = []
    /// Top-level records and workouts read, by type (stored, duplicate or skipped); records without a type are
    /// counted in ``recordsRead`` only.
    var recordsByType: [SampleType: Int] { typeCounts.counts }
    private var typeCounts = TypeCounts()
    /// Top-level records and workouts read.
    private(set) var recordsRead = 0
    /// Skipped records and workouts, by reason.
    private(set) var skipped: [SkipReason: Int] = [:]
    /// The first ``keptSkips`` skipped records.
    private(set) var firstSkipped: [SkippedRecord] = []
    /// Other top-level elements (`ActivitySummary`, `Correlation`, `Me`, …), by name.
    private(set) var otherElements: [String: Int] = [:]
    /// Records nested in other elements (correlations), not stored.
    private(set) var nestedRecords = 0
    /// The stored workouts that name a route file, in document order: what ``SeriesReader`` reads after the XML.
    private(set) var routedWorkouts: [RoutedWorkout] = []

    private var records = RecordDecoder()
    private var workouts = WorkoutDecoder()
    /// The open elements' names; `stack[0..<depth]` is live, the rest is reused storage.
    private var stack: [[UInt8]] = []
    private var depth = 0
    private var sawRoot = false
    private var closedRoot = false

    /// The top-level element being read, between its start and end tags.
    private enum Open {
        case none
        /// `typeChecked`: the type passed ``SampleValidation/typeProblem(_:)`` already (``RecordDecoder/lastTypeValid``).
        case record(HealthSample, SampleKind, line: Int, typeChecked: Bool)
        case workout(line: Int)
        /// A record or workout already skipped: its children are passed over.
        case skipped
    }
    private var open = Open.none
    /// The HRV beats and metadata pairs of the open record, as JSON array members.
    private var beats: [UInt8] = []
    private var metadata: [UInt8] = []
    private var childProblem: (SkipReason, String)?

    init() {}

    /// Takes the remembered routed workouts (the list is not needed twice).
    mutating func takeRoutedWorkouts() -> [RoutedWorkout] {
        defer { routedWorkouts = [] }
        return routedWorkouts
    }

    /// How many samples wait to be drained.
    var pending: Int { samples.count }

    /// Takes the samples decoded so far.
    mutating func drain() -> [HealthSample] {
        let taken = samples
        samples = []
        samples.reserveCapacity(ImportPipeline.batchSize + 64)
        return taken
    }

    mutating func handle(_ tag: XMLTag) throws {
        switch tag.kind {
        case .start, .empty:
            if depth == 1 {
                try topLevel(tag)
            } else if depth == 0 {
                guard !closedRoot else {
                    throw XMLProblem(kind: .malformed, line: tag.line, reason: "an element follows </HealthData>")
                }
                guard XMLAttributes.equals(tag.name, "HealthData") else {
                    throw XMLProblem(kind: .malformed, line: tag.line, reason:
                        "the root element is <\(String(decoding: tag.name.prefix(64), as: UTF8.self))>, not <HealthData>: this is not an Apple Health export")
                }
                sawRoot = true
            } else {
                try child(tag)
            }
            if tag.kind == .start { push(tag.name) }
        case .end:
            guard depth > 0 else {
                throw XMLProblem(kind: .malformed, line: tag.line,
                                 reason: "</\(String(decoding: tag.name.prefix(64), as: UTF8.self))> closes no open element")
            }
            guard stack[depth - 1].elementsEqual(tag.name) else {
                throw XMLProblem(kind: .malformed, line: tag.line, reason:
                    "</\(String(decoding: tag.name.prefix(64), as: UTF8.self))> does not close <\(String(decoding: stack[depth - 1].prefix(64), as: UTF8.self))>")
            }
            depth -= 1
            if depth == 1 { try closeTopLevel() }
            if depth == 0 { closedRoot = true }
        }
    }

    /// A child of `<HealthData>`.
    private mutating func topLevel(_ tag: XMLTag) throws {
        if XMLAttributes.equals(tag.name, "Record") {
            recordsRead += 1
            let outcome = try records.decode(tag.attributes, line: tag.line)
            if let type = records.lastType { typeCounts.add(type) }
            switch outcome {
            case .sample(let sample, let kind):
                if tag.kind == .empty {
                    // No children (most records): emitted at once, the sample moved rather than parked in `open`.
                    try emit(sample, kind: kind, line: tag.line, element: "Record", typeChecked: records.lastTypeValid)
                    return
                }
                open = .record(sample, kind, line: tag.line, typeChecked: records.lastTypeValid)
                beats.removeAll(keepingCapacity: true)
                metadata.removeAll(keepingCapacity: true)
                childProblem = nil
            case .skip(let reason, let detail):
                try skip(SkippedRecord(line: tag.line, element: "Record", type: records.lastTypeName, reason: reason, detail: detail))
                open = .skipped
            }
            if tag.kind == .empty { try closeTopLevel() }
        } else if XMLAttributes.equals(tag.name, "Workout") {
            recordsRead += 1
            typeCounts.add(.workout)
            if let failure = try workouts.begin(tag.attributes, line: tag.line) {
                try skip(SkippedRecord(line: tag.line, element: "Workout", type: workouts.activityType,
                                       reason: failure.0, detail: failure.1))
                open = .skipped
            } else {
                open = .workout(line: tag.line)
            }
            if tag.kind == .empty { try closeTopLevel() }
        } else {
            otherElements[String(decoding: tag.name.prefix(64), as: UTF8.self), default: 0] += 1
        }
    }

    /// A tag inside a top-level element (`depth` ≥ 2; `stack[1]` is the top-level element).
    private mutating func child(_ tag: XMLTag) throws {
        switch open {
        case .record:
            if depth == 3, XMLAttributes.equals(tag.name, "InstantaneousBeatsPerMinute"),
               Self.equals(stack[2], "HeartRateVariabilityMetadataList") {
                try beat(tag)
            } else if depth == 2, keepsRecordMetadata, XMLAttributes.equals(tag.name, "MetadataEntry") {
                try metadataEntry(tag)
            }
        case .workout:
            // Direct children, and the route's file: not a WorkoutActivity's repeated statistics, not the
            // route's own metadata.
            if depth == 2 || (depth == 3 && Self.equals(stack[2], "WorkoutRoute") && XMLAttributes.equals(tag.name, "FileReference")) {
                try workouts.child(tag)
            }
        case .none, .skipped:
            if XMLAttributes.equals(tag.name, "Record") { nestedRecords += 1 }
        }
    }

    /// The end of the top-level element: emit the open record or workout, or drop it.
    private mutating func closeTopLevel() throws {
        let current = open
        open = .none
        switch current {
        case .none, .skipped:
            return
        case .record(var sample, let kind, let line, let typeChecked):
            if let childProblem {
                return try skip(SkippedRecord(line: line, element: "Record", type: records.lastTypeName,
                                              reason: childProblem.0, detail: childProblem.1))
            }
            if !beats.isEmpty || !metadata.isEmpty {
                var out: [UInt8] = [UInt8(ascii: "{")]
                if !beats.isEmpty {
                    JSONBytes.key("beats", to: &out)
                    out.append(UInt8(ascii: "[")); out.append(contentsOf: beats); out.append(UInt8(ascii: "]"))
                }
                if !metadata.isEmpty {
                    JSONBytes.separator(&out); JSONBytes.key("metadata", to: &out)
                    out.append(UInt8(ascii: "[")); out.append(contentsOf: metadata); out.append(UInt8(ascii: "]"))
                }
                out.append(UInt8(ascii: "}"))
                sample.details = String(decoding: out, as: UTF8.self)
            }
            try emit(sample, kind: kind, line: line, element: "Record", typeChecked: typeChecked)
        case .workout(let line):
            switch workouts.finish() {
            case .sample(let sample, let kind):
                if try emit(sample, kind: kind, line: line, element: "Workout"), !workouts.routes.isEmpty {
                    var workout = sample
                    workout.details = nil  // a small list: only what the route's parts take from their workout
                    routedWorkouts.append(RoutedWorkout(workout: workout, files: workouts.routes, line: line))
                }
            case .skip(let reason, let detail):
                try skip(SkippedRecord(line: line, element: "Workout", type: workouts.activityType, reason: reason, detail: detail))
            }
        }
    }

    /// Validates `sample` with the shared ``SampleValidation`` and keeps it, or skips it with the problem's reason.
    /// Returns whether it was kept. `typeChecked`: its type is known to pass ``SampleValidation/typeProblem(_:)``
    /// (the same problem, or none, is found either way).
    @discardableResult
    private mutating func emit(_ sample: consuming HealthSample, kind: SampleKind, line: Int, element: String,
                               typeChecked: Bool = false) throws -> Bool {
        if let problem = SampleValidation.problem(of: sample, kind: kind, typeChecked: typeChecked) {
            let type = element == "Workout" ? workouts.activityType : String(sample.type.rawValue.prefix(128))
            try skip(SkippedRecord(line: line, element: element, type: type, reason: .invalid(problem.reason),
                                   detail: problem.description))
            return false
        }
        samples.append(consume sample)
        return true
    }

    /// Counts a skipped record (or route or ECG file), or throws it when ``strict``: an ``XMLProblem`` of kind
    /// `.strict` for a record, ``ImportError`` naming the file for a file (`file` is the export's display name).
    mutating func skip(_ record: SkippedRecord, in file: String? = nil) throws {
        if strict {
            let reason = "\(record.element)\(record.type.map { " \($0)" } ?? "") cannot be imported (\(record.reason.key)): \(record.detail)"
            if let file, record.file != nil { throw ImportError.strictRefusal(file, reason: reason) }
            throw XMLProblem(kind: .strict, line: record.line, reason: reason)
        }
        skipped[record.reason, default: 0] += 1
        if firstSkipped.count < Self.keptSkips { firstSkipped.append(record) }
    }

    /// `<InstantaneousBeatsPerMinute bpm="80" time="11:17:20.53 AM"/>` → `{"bpm":80,"time":"11:17:20.53 AM"}`.
    private mutating func beat(_ tag: XMLTag) throws {
        guard childProblem == nil else { return }
        var bpm: Double?
        var bpmRaw: UnsafeRawBufferPointer?
        var time: String?
        try XMLAttributes.forEach(tag.attributes, line: tag.line) { key, value in
            if XMLAttributes.equals(key, "bpm") {
                bpmRaw = value
                bpm = RecordDecoder.number(value)
            } else if XMLAttributes.equals(key, "time") {
                time = XMLAttributes.decode(value)
            }
        }
        guard let bpm, bpm.isFinite else {
            childProblem = (.unreadableValue, bpmRaw.map { "InstantaneousBeatsPerMinute bpm \(RecordDecoder.quote($0)) is not a number" }
                                ?? "an InstantaneousBeatsPerMinute has no bpm attribute")
            return
        }
        JSONBytes.separator(&beats)
        beats.append(UInt8(ascii: "{"))
        JSONBytes.member("bpm", number: bpm, to: &beats)
        if let time { JSONBytes.member("time", string: time, to: &beats) }
        beats.append(UInt8(ascii: "}"))
    }

    /// `<MetadataEntry key="HKTimeZone" value="Europe/Paris"/>` → `["HKTimeZone","Europe/Paris"]`.
    private mutating func metadataEntry(_ tag: XMLTag) throws { try MetadataEntry.append(tag, to: &metadata) }

    /// Checks, at the end of the document, that it had a `<HealthData>` root and closed it.
    func finish(line: Int) throws {
        guard sawRoot else {
            throw XMLProblem(kind: .malformed, line: line,
                             reason: "no <HealthData> element: this is not an Apple Health export")
        }
        guard depth == 0 else {
            throw XMLProblem(kind: .truncated, line: line,
                             reason: "the file ends inside <\(String(decoding: stack[depth - 1].prefix(64), as: UTF8.self))>")
        }
    }

    private static func equals(_ name: [UInt8], _ literal: StaticString) -> Bool {
        name.withUnsafeBytes { XMLAttributes.equals($0, literal) }
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
