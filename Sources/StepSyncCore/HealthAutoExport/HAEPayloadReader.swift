import Foundation

/// Reads a Health Auto Export REST body (`{"data":{"metrics":[…],"workouts":[…],…}}`, export format version 2, and
/// version-1 workouts) into the sink's samples: pure, no I/O.
///
/// - A body that is not JSON, or not this shape (no `data` object, a `metrics` entry without `name` or `data`), is
///   refused whole with ``HAEPayloadError`` naming the field.
/// - A point with an unreadable date, a missing, negative (cumulative types) or non-finite value is skipped, counted
///   by reason and named (metric, index) in ``HAEReading``; the rest is read.
/// - Each point covers `[date, date + bucket)` (``HAEAggregation``) and is named by ``HAEPointIdentity``.
/// - Heart-rate points `{Min, Avg, Max}` become one sample of `Avg`, plus one of `Min` and one of `Max` when they
///   differ from it (roles `min`, `max`), so a day's band reports the lowest `Min` and the highest `Max`; blood
///   pressure becomes a systolic and a diastolic sample; sleep is read by ``HAESleepReader``.
/// - The arrays the sink does not store (`symptoms`, `ecg`, `heartRateNotifications`, `stateOfMind`,
///   `cycleTracking`, `medications`, any other) are counted in ``HAEReading/notStored``.
public struct HAEPayloadReader: Sendable {
    /// The bucket of every point (the `automation-aggregation` header).
    public var aggregation: HAEAggregation
    /// The source name of a point without `source`.
    public static let defaultSource = "Health Auto Export"
    /// The bundle id stored with every sample (the app gives none).
    public static let bundleId = "health-auto-export"

    /// The samples a sink reads from a body before it stores them (``read(_:map:cursor:into:upTo:)``): a body of any
    /// size holds one batch at a time, each its own durable write, so a retry after a crash finds the batches stored
    /// as duplicates and ends exact.
    public static let batchSamples = 25_000

    /// A reader of bodies sent with `aggregation`.
    public init(aggregation: HAEAggregation) {
        self.aggregation = aggregation
    }

    /// Reads all of `body` (``HAEBodyMap`` then every part): for tests and small bodies. The sink reads a body a
    /// batch at a time instead (``read(_:map:cursor:into:upTo:)``).
    public func read(_ body: Data) throws(HAEPayloadError) -> HAEReading {
        try body.withUnsafeBytes { bytes in
            Result { () throws(HAEPayloadError) -> HAEReading in
                let map = try HAEBodyMap(bytes, reader: self)
                var reading = HAEReading(map)
                var cursor = HAEBodyCursor()
                read(bytes, map: map, cursor: &cursor, into: &reading, upTo: .max)
                return reading
            }
        }.get()
    }

    /// Reads the parts of `map` (made of these `bytes`) from `cursor` into `reading`, stopping between points once
    /// `reading` holds at least `limit` samples (or at the end): the sink hands them off (``HAEReading/handOff()``),
    /// stores them and reads on. A body the map accepted reads without error.
    public func read(_ bytes: UnsafeRawBufferPointer, map: HAEBodyMap, cursor: inout HAEBodyCursor,
                     into reading: inout HAEReading, upTo limit: Int) {
        var scanner = HAEBodyScanner(bytes)
        while cursor.part < map.parts.count, reading.samples.count < limit {
            switch map.parts[cursor.part] {
            case .workout(let index, let offset):
                scanner.offset = offset
                if let workout = try? scanner.json() {
                    try? HAEWorkoutReader(reader: self).read(workout, at: index, into: &reading)
                }
                cursor.part += 1
            case .metric(let metric):
                let done: Bool? = try? readMetric(metric, &scanner, cursor: &cursor, into: &reading, upTo: limit)
                if done != false {
                    cursor.part += 1
                    cursor.point = nil
                }
            }
        }
    }

    /// Reads `metric`'s points from the cursor; true at the end of its array, false when `limit` stopped it.
    private func readMetric(_ metric: HAEBodyMap.Metric, _ s: inout HAEBodyScanner, cursor: inout HAEBodyCursor,
                            into reading: inout HAEReading, upTo limit: Int) throws(WireError) -> Bool {
        var k: Int
        if let point = cursor.point {
            s.offset = point.offset
            k = point.index
        } else {
            s.offset = metric.offset
            guard try s.openArray() else { return true }
            k = 0
        }
        let kind = MetricKind(type: metric.type, units: HAEMetricTable.unit(metric.units))
        while true {
            switch metric.shape {
            case .sleep:
                if let point = try s.json().object {
                    HAESleepReader(reader: self).read(point, metric: metric.name, index: k, into: &reading)
                }
            case .bloodPressure:
                let point = try HAEPoint(&s, sources: &cursor.sources)
                readBloodPressure(point, metric: metric.name, index: k, cursor: &cursor, into: &reading)
            case .points:
                let point = try HAEPoint(&s, sources: &cursor.sources)
                readPoint(point, kind, metric: metric.name, index: k, cursor: &cursor, into: &reading)
            }
            k += 1
            guard try s.nextElement() else { return true }
            if reading.samples.count >= limit {
                cursor.point = (s.offset, k)
                return false
            }
        }
    }

    /// What every point of a metric shares: its type, checked once, and its unit.
    struct MetricKind {
        var type: SampleType
        var kind: SampleKind
        /// Whether ``SampleValidation/typeProblem(_:)`` passed the type.
        var typeChecked: Bool
        /// HealthKit's unit and the factor of the metric's `units` (``HAEMetricTable/unit(_:)``).
        var units: (unit: String, factor: Double)

        init(type: SampleType, units: (unit: String, factor: Double)) {
            self.type = type
            kind = type.kind
            typeChecked = SampleValidation.typeProblem(type) == nil
            self.units = units
        }
    }

    /// A `{date, qty}` or `{date, Min, Avg, Max}` point of a metric of `kind` (a point's own `units` win).
    func readPoint(_ point: HAEPoint, _ kind: MetricKind, metric: String, index: Int, cursor: inout HAEBodyCursor,
                   into reading: inout HAEReading) {
        guard let date = point.date else { return reading.skip(metric, index, "unreadableDate") }
        let (unit, factor) = point.units.map(HAEMetricTable.unit) ?? kind.units
        let source = Self.source(point.source)
        var values = (point.qty, nil as Double?, nil as Double?)
        if point.qty == nil, point.avg != nil || point.min != nil || point.max != nil {
            guard let middle = point.avg ?? point.min ?? point.max else { return reading.skip(metric, index, "missingValue") }
            values = (middle, point.min.flatMap { $0 != middle ? $0 : nil }, point.max.flatMap { $0 != middle ? $0 : nil })
            guard middle.isFinite, values.1?.isFinite ?? true, values.2?.isFinite ?? true else {
                return reading.skip(metric, index, "nonFiniteValue")
            }
        }
        guard let value = values.0 else { return reading.skip(metric, index, "missingValue") }
        guard let length = aggregation.lengthMs(startMs: date.ms, offsetSeconds: date.offsetSeconds) else {
            return reading.skip(metric, index, "unreadableDate")
        }
        let device = cursor.device(ofSource: source)
        let before = reading.samples.count
        func add(_ role: String, _ value: Double) -> Bool {
            let sample = HealthSample(
                uuid: cursor.uuid(type: kind.type, source: source, startMs: date.ms, lengthMs: length, role: role),
                type: kind.type, startMs: date.ms, endMs: date.ms + length, utcOffsetSeconds: date.offsetSeconds,
                value: value * factor, unit: unit, sourceName: source, sourceBundleId: Self.bundleId,
                deviceName: device)
            guard Self.valid(sample, kind: kind.kind, typeChecked: kind.typeChecked, metric: metric, index: index,
                             into: &reading) else {
                // A point is stored whole or not at all.
                reading.samples.removeSubrange(before...)
                return false
            }
            reading.samples.append(sample)
            return true
        }
        guard add("", value) else { return }
        if let low = values.1 { guard add("min", low) else { return } }
        if let high = values.2 { _ = add("max", high) }
    }

    /// A `{date, systolic, diastolic}` point: a systolic and a diastolic sample, or neither.
    func readBloodPressure(_ point: HAEPoint, metric: String, index: Int, cursor: inout HAEBodyCursor,
                           into reading: inout HAEReading) {
        guard let date = point.date else { return reading.skip(metric, index, "unreadableDate") }
        guard let systolic = point.systolic, let diastolic = point.diastolic else {
            return reading.skip(metric, index, "missingValue")
        }
        guard let length = aggregation.lengthMs(startMs: date.ms, offsetSeconds: date.offsetSeconds) else {
            return reading.skip(metric, index, "unreadableDate")
        }
        let source = Self.source(point.source)
        let device = cursor.device(ofSource: source)
        let before = reading.samples.count
        for (type, value) in [(HAEMetricTable.systolic, systolic), (HAEMetricTable.diastolic, diastolic)] {
            let sample = HealthSample(
                uuid: cursor.uuid(type: type, source: source, startMs: date.ms, lengthMs: length, role: ""),
                type: type, startMs: date.ms, endMs: date.ms + length, utcOffsetSeconds: date.offsetSeconds,
                value: value, unit: "mmHg", sourceName: source, sourceBundleId: Self.bundleId, deviceName: device)
            guard Self.valid(sample, metric: metric, index: index, into: &reading) else {
                return reading.samples.removeSubrange(before...)
            }
            reading.samples.append(sample)
        }
    }

    /// A sample of `[startMs, endMs)`, named by its bucket (or `uuid`), or `nil` (skipped and counted) when it is not
    /// valid: for sleep and workouts, which are few.
    func sample(type: SampleType, startMs: Int64, endMs: Int64, offset: Int32?, value: Double, unit: String,
                source: String, role: String, metric: String, index: Int, into reading: inout HAEReading,
                uuid: UUID? = nil) -> HealthSample? {
        let sample = HealthSample(
            uuid: uuid ?? HAEPointIdentity.uuid(type: type, source: source, startMs: startMs,
                                                lengthMs: endMs - startMs, role: role),
            type: type, startMs: startMs, endMs: endMs, utcOffsetSeconds: offset, value: value, unit: unit,
            sourceName: source, sourceBundleId: Self.bundleId,
            deviceName: HAEPointIdentity.deviceName(ofSource: source))
        return Self.valid(sample, metric: metric, index: index, into: &reading) ? sample : nil
    }

    /// Whether ``SampleValidation`` accepts `sample`; if not, the point is skipped and counted by reason.
    static func valid(_ sample: HealthSample, kind: SampleKind? = nil, typeChecked: Bool = false, metric: String,
                      index: Int, into reading: inout HAEReading) -> Bool {
        guard let problem = SampleValidation.problem(of: sample, kind: kind, typeChecked: typeChecked) else { return true }
        let reason = switch problem.reason {
        case .valueNotFinite: "nonFiniteValue"
        case .negativeValue: "negativeValue"
        case .instantOutOfRange, .endBeforeStart: "unreadableDate"
        default: "invalidValue"
        }
        reading.skip(metric, index, reason)
        return false
    }

    // MARK: - Values

    /// The point's `source` (at most 256 bytes), or ``defaultSource``.
    static func source(_ point: [String: JSONValue]) -> String {
        source(point["source"]?.string)
    }

    /// `text` (at most 256 bytes), or ``defaultSource`` when it is absent or empty.
    static func source(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return defaultSource }
        if text.utf8.count <= 256 { return text }
        return String(decoding: text.utf8.prefix(256), as: UTF8.self)
    }
}
