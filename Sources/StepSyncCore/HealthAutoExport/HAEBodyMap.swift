/// Where the parts of a Health Auto Export body are, found by one pass over all of it (``init(_:reader:)``) that
/// checks its JSON syntax and the app's shape before a single sample is made: a body refused is refused whole, so the
/// sink stores nothing of it, and a body accepted can then be read and stored a batch at a time
/// (``HAEPayloadReader/read(_:map:cursor:into:upTo:)``) while only one batch of samples is held.
///
/// The pass skips the points themselves (checking that each is an object); workouts, which are few, are read to find
/// the faults that refuse a body (a workout or a heart-rate point that is not an object).
public struct HAEBodyMap: Sendable {
    /// One metric's points.
    struct Metric: Sendable {
        /// How a metric's points read.
        enum Shape: Sendable {
            /// `{date, qty}` or `{date, Min, Avg, Max}` (``HAEPayloadReader/readPoint(_:_:metric:index:cursor:into:)``).
            case points
            /// `{date, systolic, diastolic}`.
            case bloodPressure
            /// Summarized or staged nights (``HAESleepReader``).
            case sleep
        }

        /// The metric's index in `data.metrics`.
        var index: Int
        var name: String
        var units: String
        /// Its HealthKit type (``HAEMetricTable/type(of:)``), decided once here.
        var type: SampleType
        var shape: Shape
        /// The offset of its `data` array's `[`.
        var offset: Int
    }

    /// A part of the body, read in turn.
    enum Part: Sendable {
        case metric(Metric)
        /// A workout: its index in `data.workouts` and the offset of its `{`.
        case workout(index: Int, offset: Int)
    }

    /// The parts, in body order.
    var parts: [Part] = []
    /// Entries of the arrays the sink does not store (`symptoms`, `ecg`, …), per array.
    public private(set) var notStored: [String: Int] = [:]
    /// Metric names the table does not know (kept under a type of their own), in body order.
    public private(set) var unknownMetrics: [String] = []
    /// The points of every metric and the workouts: what the reading will go through.
    public private(set) var entries = 0
    /// The sample types the body's samples can have (a metric's type, blood pressure's two, a workout's own, its
    /// route's and heart rate's when it has them): what a sink checks against its limit of types before storing.
    public private(set) var types: Set<SampleType> = []

    /// Maps `bytes`, or refuses them whole: ``HAEPayloadError`` naming the field, or `body` with the byte offset of
    /// a syntax error.
    public init(_ bytes: UnsafeRawBufferPointer, reader: HAEPayloadReader) throws(HAEPayloadError) {
        var scanner = HAEBodyScanner(bytes)
        do {
            try map(&scanner, reader: reader)
        } catch let error as HAEPayloadError {
            throw error
        } catch {
            throw HAEPayloadError(field: "body", "is not JSON (\(String(describing: error).prefix(200)))")
        }
    }

    private mutating func map(_ s: inout HAEBodyScanner, reader: HAEPayloadReader) throws {
        guard try s.at(UInt8(ascii: "{")) else {
            try s.skipValue()
            try s.parser.expectEnd()
            throw HAEPayloadError(field: "body", "is not a JSON object")
        }
        var sawData = false
        if try s.openObject() {
            repeat {
                guard try s.key() == "data" else { try s.skipValue(); continue }
                guard try s.at(UInt8(ascii: "{")) else { try s.skipValue(); sawData = false; continue }
                self = HAEBodyMap()
                try mapData(&s, reader: reader)
                sawData = true
            } while try s.nextMember()
        }
        try s.parser.expectEnd()
        guard sawData else {
            throw HAEPayloadError(field: "data", "is missing or not an object; the app sends {\"data\":{\"metrics\":[…]}}")
        }
    }

    private init() {}

    private mutating func mapData(_ s: inout HAEBodyScanner, reader: HAEPayloadReader) throws {
        var unknown: Set<String> = []
        guard try s.openObject() else { return }
        repeat {
            let key = try s.key()
            switch key {
            case "metrics":
                guard try s.at(UInt8(ascii: "[")) else { throw HAEPayloadError(field: "data.metrics", "is not an array") }
                guard try s.openArray() else { continue }
                var i = 0
                repeat {
                    try mapMetric(&s, at: i, unknown: &unknown)
                    i += 1
                } while try s.nextElement()
            case "workouts":
                guard try s.at(UInt8(ascii: "[")) else { throw HAEPayloadError(field: "data.workouts", "is not an array") }
                guard try s.openArray() else { continue }
                var i = 0
                repeat {
                    _ = s.peek()
                    let offset = s.offset
                    var scratch = HAEReading()
                    let workout = try s.json()
                    try HAEWorkoutReader(reader: reader).read(workout, at: i, into: &scratch)
                    types.insert(.workout)
                    if workout["route"]?.array?.isEmpty == false { types.insert(.workoutRoute) }
                    if workout["heartRateData"] != nil || workout["heartRateRecovery"] != nil { types.insert(.heartRate) }
                    parts.append(.workout(index: i, offset: offset))
                    entries += 1
                    i += 1
                } while try s.nextElement()
            default:
                var count = 1
                if try s.at(UInt8(ascii: "[")) {
                    count = 0
                    if try s.openArray() {
                        repeat { try s.skipValue(); count += 1 } while try s.nextElement()
                    }
                } else {
                    try s.skipValue()
                }
                notStored[String(key.prefix(64)), default: 0] += count
            }
        } while try s.nextMember()
    }

    private mutating func mapMetric(_ s: inout HAEBodyScanner, at i: Int, unknown: inout Set<String>) throws {
        let field = "data.metrics[\(i)]"
        guard try s.at(UInt8(ascii: "{")) else { throw HAEPayloadError(field: field, "is not an object") }
        var name: String?, units = "", offset: Int?, points = 0
        if try s.openObject() {
            repeat {
                switch try s.key() {
                case "name":
                    if case .string(let text) = try s.json() { name = text } else { name = nil }
                case "units":
                    if case .string(let text) = try s.json() { units = text }
                case "data":
                    guard try s.at(UInt8(ascii: "[")) else { try s.skipValue(); offset = nil; continue }
                    offset = s.offset
                    points = 0
                    guard try s.openArray() else { continue }
                    repeat {
                        guard try s.at(UInt8(ascii: "{")) else {
                            throw HAEPayloadError(field: "\(field).data[\(points)]", "is not an object")
                        }
                        try s.skipValue()
                        points += 1
                    } while try s.nextElement()
                default:
                    try s.skipValue()
                }
            } while try s.nextMember()
        }
        guard let name else { throw HAEPayloadError(field: field + ".name", "is missing or not a string") }
        guard let offset else { throw HAEPayloadError(field: field + ".data", "is missing or not an array") }
        let (type, known) = HAEMetricTable.type(of: name)
        let shape: Metric.Shape = name == "blood_pressure" ? .bloodPressure : name == "sleep_analysis" ? .sleep : .points
        if shape == .bloodPressure {
            types.formUnion([HAEMetricTable.systolic, HAEMetricTable.diastolic])
        } else {
            types.insert(type)
            if !known {
                let kept = String(name.prefix(128))
                if unknown.insert(kept).inserted { unknownMetrics.append(kept) }
            }
        }
        parts.append(.metric(Metric(index: i, name: name, units: units, type: type, shape: shape, offset: offset)))
        entries += points
    }
}
