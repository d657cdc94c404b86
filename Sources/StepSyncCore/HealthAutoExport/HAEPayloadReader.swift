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

    /// Reads `body` in one pass with `JSONDecoder` (``HAEPayloadBody``): each point becomes its samples as it is
    /// decoded, so what is held is the body, the decoder's compact index of it and the samples.
    public func read(_ body: Data) throws(HAEPayloadError) -> HAEReading {
        let decoder = JSONDecoder()
        decoder.userInfo[HAEPayloadBody.readerKey] = self
        do {
            return try decoder.decode(HAEPayloadBody.self, from: body).reading
        } catch let error as HAEPayloadError {
            throw error
        } catch {
            throw HAEPayloadError(field: "body", "is not JSON (\(String(describing: error).prefix(200)))")
        }
    }

    /// A `{date, qty}` or `{date, Min, Avg, Max}` point.
    func readPoint(_ point: HAEPoint, type: SampleType, units: String, metric: String, index: Int,
                   into reading: inout HAEReading) {
        guard let date = point.date?.string.flatMap(HAEDate.parse) else {
            return reading.skip(metric, index, "unreadableDate")
        }
        let (unit, factor) = HAEMetricTable.unit(point.units?.string ?? units)
        let source = Self.source(point.source?.string)
        if point.qty == nil, point.avg != nil || point.min != nil || point.max != nil {
            let avg = point.avg?.number, low = point.min?.number, high = point.max?.number
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
        guard let value = point.qty?.number else { return reading.skip(metric, index, "missingValue") }
        if let sample = sample(type: type, date: date, value: value * factor, unit: unit, source: source, role: "",
                               metric: metric, index: index, into: &reading) {
            reading.samples.append(sample)
        }
    }

    func readBloodPressure(_ point: HAEPoint, metric: String, index: Int, into reading: inout HAEReading) {
        guard let date = point.date?.string.flatMap(HAEDate.parse) else {
            return reading.skip(metric, index, "unreadableDate")
        }
        guard let systolic = point.systolic?.number, let diastolic = point.diastolic?.number else {
            return reading.skip(metric, index, "missingValue")
        }
        let source = Self.source(point.source?.string)
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

    /// The point's `source` (at most 256 bytes), or ``defaultSource``.
    static func source(_ point: [String: HAEJSON]) -> String {
        source(point["source"]?.string)
    }

    /// `text` (at most 256 bytes), or ``defaultSource`` when it is absent or empty.
    static func source(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return defaultSource }
        return String(decoding: text.utf8.prefix(256), as: UTF8.self)
    }
}
