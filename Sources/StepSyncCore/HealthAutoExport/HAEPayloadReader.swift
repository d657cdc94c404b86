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

    /// A reader of bodies sent with `aggregation`.
    public init(aggregation: HAEAggregation) {
        self.aggregation = aggregation
    }

    /// Reads `body`.
    public func read(_ body: Data) throws(HAEPayloadError) -> HAEReading {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: body, options: [])
        } catch {
            throw HAEPayloadError(field: "body", "is not JSON (\(String(describing: error).prefix(200)))")
        }
        guard let object = root as? [String: Any] else { throw HAEPayloadError(field: "body", "is not a JSON object") }
        guard let data = object["data"] as? [String: Any] else {
            throw HAEPayloadError(field: "data", "is missing or not an object; the app sends {\"data\":{\"metrics\":[…]}}")
        }
        var reading = HAEReading()
        for (key, value) in data.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "metrics":
                guard let metrics = value as? [Any] else { throw HAEPayloadError(field: "data.metrics", "is not an array") }
                for (i, metric) in metrics.enumerated() { try readMetric(metric, at: i, into: &reading) }
            case "workouts":
                guard let workouts = value as? [Any] else { throw HAEPayloadError(field: "data.workouts", "is not an array") }
                for (i, workout) in workouts.enumerated() {
                    try HAEWorkoutReader(reader: self).read(workout, at: i, into: &reading)
                }
            default:
                reading.notStored[String(key.prefix(64)), default: 0] += (value as? [Any])?.count ?? 1
            }
        }
        return reading
    }

    // MARK: - Metrics

    private func readMetric(_ value: Any, at i: Int, into reading: inout HAEReading) throws(HAEPayloadError) {
        let field = "data.metrics[\(i)]"
        guard let metric = value as? [String: Any] else { throw HAEPayloadError(field: field, "is not an object") }
        guard let name = metric["name"] as? String else { throw HAEPayloadError(field: field + ".name", "is missing or not a string") }
        guard let points = metric["data"] as? [Any] else { throw HAEPayloadError(field: field + ".data", "is missing or not an array") }
        let units = metric["units"] as? String ?? ""
        let (type, known) = HAEMetricTable.type(of: name)
        if !known, name != "blood_pressure", !reading.unknownMetrics.contains(name) { reading.unknownMetrics.append(String(name.prefix(128))) }
        for (k, point) in points.enumerated() {
            guard let point = point as? [String: Any] else {
                throw HAEPayloadError(field: "\(field).data[\(k)]", "is not an object")
            }
            switch name {
            case "sleep_analysis": HAESleepReader(reader: self).read(point, metric: name, index: k, into: &reading)
            case "blood_pressure": readBloodPressure(point, metric: name, index: k, into: &reading)
            default: readPoint(point, type: type, units: units, metric: name, index: k, into: &reading)
            }
        }
    }

    /// A `{date, qty}` or `{date, Min, Avg, Max}` point.
    func readPoint(_ point: [String: Any], type: SampleType, units: String, metric: String, index: Int,
                   into reading: inout HAEReading) {
        guard let date = (point["date"] as? String).flatMap(HAEDate.parse) else {
            return reading.skip(metric, index, "unreadableDate")
        }
        let (unit, factor) = HAEMetricTable.unit((point["units"] as? String) ?? units)
        let source = Self.source(point)
        if point["qty"] == nil, point["Avg"] != nil || point["Min"] != nil || point["Max"] != nil {
            let avg = Self.number(point["Avg"]), low = Self.number(point["Min"]), high = Self.number(point["Max"])
            guard let middle = avg ?? low ?? high else { return reading.skip(metric, index, "missingValue") }
            var roles = [("", middle)]
            if let low, low != middle { roles.append(("min", low)) }
            if let high, high != middle { roles.append(("max", high)) }
            guard roles.allSatisfy({ $0.1.isFinite }) else { return reading.skip(metric, index, "nonFiniteValue") }
            var made: [HealthSample] = []
            for (role, value) in roles {
                guard let sample = sample(type: type, date: date, value: value * factor, unit: unit, source: source,
                                          role: role, metric: metric, index: index, into: &reading) else { return }
                made.append(sample)
            }
            reading.samples += made
            return
        }
        guard let value = Self.number(point["qty"]) else { return reading.skip(metric, index, "missingValue") }
        if let sample = sample(type: type, date: date, value: value * factor, unit: unit, source: source, role: "",
                               metric: metric, index: index, into: &reading) {
            reading.samples.append(sample)
        }
    }

    private func readBloodPressure(_ point: [String: Any], metric: String, index: Int, into reading: inout HAEReading) {
        guard let date = (point["date"] as? String).flatMap(HAEDate.parse) else {
            return reading.skip(metric, index, "unreadableDate")
        }
        guard let systolic = Self.number(point["systolic"]), let diastolic = Self.number(point["diastolic"]) else {
            return reading.skip(metric, index, "missingValue")
        }
        let source = Self.source(point)
        guard let a = sample(type: HAEMetricTable.systolic, date: date, value: systolic, unit: "mmHg", source: source,
                             role: "", metric: metric, index: index, into: &reading),
              let b = sample(type: HAEMetricTable.diastolic, date: date, value: diastolic, unit: "mmHg",
                             source: source, role: "", metric: metric, index: index, into: &reading) else { return }
        reading.samples += [a, b]
    }

    /// The sample of a point dated `date` covering its bucket, or `nil` (skipped and counted) when it is not valid.
    func sample(type: SampleType, date: HAEDate.Instant, value: Double, unit: String, source: String, role: String,
                metric: String, index: Int, into reading: inout HAEReading) -> HealthSample? {
        guard let length = aggregation.lengthMs(startMs: date.ms, offsetSeconds: date.offsetSeconds) else {
            reading.skip(metric, index, "unreadableDate")
            return nil
        }
        return sample(type: type, startMs: date.ms, endMs: date.ms + length, offset: date.offsetSeconds, value: value,
                      unit: unit, source: source, role: role, metric: metric, index: index, into: &reading)
    }

    /// A sample of `[startMs, endMs)`, named by its bucket, or `nil` (skipped and counted) when it is not valid.
    func sample(type: SampleType, startMs: Int64, endMs: Int64, offset: Int32?, value: Double, unit: String,
                source: String, role: String, metric: String, index: Int, into reading: inout HAEReading,
                uuid: UUID? = nil) -> HealthSample? {
        let sample = HealthSample(
            uuid: uuid ?? HAEPointIdentity.uuid(type: type, source: source, startMs: startMs,
                                                lengthMs: endMs - startMs, role: role),
            type: type, startMs: startMs, endMs: endMs, utcOffsetSeconds: offset, value: value, unit: unit,
            sourceName: source, sourceBundleId: Self.bundleId,
            deviceName: HAEPointIdentity.deviceName(ofSource: source))
        if let problem = SampleValidation.problem(of: sample) {
            let reason = switch problem.reason {
            case .valueNotFinite: "nonFiniteValue"
            case .negativeValue: "negativeValue"
            case .instantOutOfRange, .endBeforeStart: "unreadableDate"
            default: "invalidValue"
            }
            reading.skip(metric, index, reason)
            return nil
        }
        return sample
    }

    // MARK: - Values

    /// A JSON number, or a string holding one (`"NaN"` reads as not finite, and is skipped as such); `nil` otherwise.
    static func number(_ value: Any?) -> Double? {
        switch value {
        case let string as String: Double(string.prefix(64))
        case let number as NSNumber: number.doubleValue
        default: nil
        }
    }

    /// The point's `source` (at most 256 bytes), or ``defaultSource``.
    static func source(_ point: [String: Any]) -> String {
        guard let text = point["source"] as? String, !text.isEmpty else { return defaultSource }
        return String(decoding: text.utf8.prefix(256), as: UTF8.self)
    }
}
