import Foundation
import StepSyncCore

/// Reads one top-level `<Workout>` and its children into a sample of type ``StepSyncCore/SampleType/workout``.
///
/// The sample's value is the duration in seconds (unit `s`; the `duration` attribute converted from its
/// `durationUnit`, or end − start when the export gives none); source and device are read as for records. Its
/// ``StepSyncCore/HealthSample/details`` is one compact JSON object:
///
/// ```json
/// {"activityType":"HKWorkoutActivityTypeRunning","duration":1800,
///  "totalDistance":5.2,"totalDistanceUnit":"km","totalEnergyBurned":410.5,"totalEnergyBurnedUnit":"kcal",
///  "statistics":[{"type":"HKQuantityTypeIdentifierHeartRate","startDate":"…Z","endDate":"…Z",
///                 "average":152.4,"minimum":98,"maximum":178,"unit":"count/min"}],
///  "events":[{"type":"HKWorkoutEventTypeSegment","date":"…Z","duration":600}],
///  "route":"/workout-routes/route_2026-09-16_6.32pm.gpx",
///  "routes":["/workout-routes/route_2026-09-16_6.32pm.gpx","/workout-routes/route_2026-09-16_6.36pm.gpx"],
///  "metadata":[["HKIndoorWorkout","0"],["HKTimeZone","Europe/Paris"]]}
/// ```
///
/// `route` is the first route file named; `routes` (only when there are several) every one, once each, as named.
/// Dates are ISO-8601 UTC; durations are seconds; `metadata` is a list of pairs because a key may repeat. Only
/// *direct* children of the workout are read: the `WorkoutStatistics` and `WorkoutEvent` inside a
/// `WorkoutActivity` (iOS 16 and later) repeat the workout's own and are left out, as are `Location` points of old
/// routes (the GPX file is referenced instead).
///
/// Identity: a version-5 uuid in its own namespace over activity type, source, version, device, duration, start,
/// end and creation (not totals, statistics or events, which newer iOS versions write differently for the same
/// workout), with absent attributes marked as for records.
struct WorkoutDecoder {
    /// The namespace of workout uuids. Never change it.
    static let namespace = UUID(uuidString: "B7E2D0C4-1F3A-4E6B-8C9D-2A5F7E1B3C60")!

    private var sources = StringCache()
    private var versions = StringCache()
    private var devices = DeviceCache()

    /// The workout being read: its sample (details still to be written) and what its children added.
    private var sample: HealthSample?
    private var failure: (SkipReason, String)?
    private var statistics: [UInt8] = []
    private var events: [UInt8] = []
    private var metadata: [UInt8] = []
    private var head: [UInt8] = []
    /// The route files the workout being read names (`/workout-routes/….gpx`), once each, in the order named:
    /// watchOS often writes one `<WorkoutRoute>` a few minutes, and may name one file twice.
    private(set) var routes: [String] = []
    private var name: [UInt8] = []

    /// The activity type of the workout being read, for naming it when it is skipped.
    private(set) var activityType: String?

    init() {}

    /// Starts a workout from its start tag's attributes. Returns the reason it is skipped, if it already is.
    mutating func begin(_ attributes: UnsafeRawBufferPointer, line: Int) throws -> (SkipReason, String)? {
        sample = nil
        failure = nil
        routes.removeAll(keepingCapacity: true)
        activityType = nil
        statistics.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
        metadata.removeAll(keepingCapacity: true)
        head.removeAll(keepingCapacity: true)

        var a: [String: UnsafeRawBufferPointer] = [:]
        try XMLAttributes.forEach(attributes, line: line) { key, value in
            a[String(decoding: key, as: UTF8.self)] = value
        }
        guard let activityRaw = a["workoutActivityType"] else {
            return fail(.missingAttribute, "it has no workoutActivityType attribute")
        }
        let activity = XMLAttributes.decode(activityRaw)
        activityType = String(activity.prefix(128))
        guard let sourceRaw = a["sourceName"] else { return fail(.missingAttribute, "it has no sourceName attribute") }
        guard let startRaw = a["startDate"] else { return fail(.missingAttribute, "it has no startDate attribute") }
        guard let endRaw = a["endDate"] else { return fail(.missingAttribute, "it has no endDate attribute") }
        guard let start = HealthDate.parse(startRaw) else { return fail(.unreadableDate, RecordDecoder.notADate("startDate", startRaw)) }
        guard let end = HealthDate.parse(endRaw) else { return fail(.unreadableDate, RecordDecoder.notADate("endDate", endRaw)) }
        var creationMs = Int64.min
        if let creationRaw = a["creationDate"] {
            guard let creation = HealthDate.parse(creationRaw) else {
                return fail(.unreadableDate, RecordDecoder.notADate("creationDate", creationRaw))
            }
            creationMs = creation.ms
        }
        var duration: Double?
        if let durationRaw = a["duration"] {
            guard let number = RecordDecoder.number(durationRaw), number.isFinite else {
                return fail(.unreadableValue, "duration \(RecordDecoder.quote(durationRaw)) is not a number")
            }
            guard let seconds = Self.seconds(number, unit: a["durationUnit"]) else {
                return fail(.unreadableValue, "durationUnit \(RecordDecoder.quote(a["durationUnit"]!)) is not a unit of time")
            }
            duration = seconds
        }
        let value = duration ?? Double(end.ms - start.ms) / 1000

        JSONBytes.member("activityType", string: activity, to: &head)
        JSONBytes.member("duration", number: value.isFinite ? value : 0, to: &head)
        for (amount, unit) in [("totalDistance", "totalDistanceUnit"), ("totalEnergyBurned", "totalEnergyBurnedUnit")] {
            guard let raw = a[amount] else { continue }
            guard let number = RecordDecoder.number(raw), number.isFinite else {
                return fail(.unreadableValue, "\(amount) \(RecordDecoder.quote(raw)) is not a number")
            }
            if amount == "totalDistance" {
                JSONBytes.member("totalDistance", number: number, to: &head)
                if let unitRaw = a[unit] { JSONBytes.member("totalDistanceUnit", string: XMLAttributes.decode(unitRaw), to: &head) }
            } else {
                JSONBytes.member("totalEnergyBurned", number: number, to: &head)
                if let unitRaw = a[unit] { JSONBytes.member("totalEnergyBurnedUnit", string: XMLAttributes.decode(unitRaw), to: &head) }
            }
        }

        let sourceName = sources.value(for: sourceRaw)
        let sourceVersion = a["sourceVersion"].map { versions.value(for: $0) }
        let device = a["device"].map { devices.value(for: $0) }
        name.removeAll(keepingCapacity: true)
        name.append(contentsOf: activity.utf8); name.append(0)
        name.append(contentsOf: sourceName.utf8); name.append(0)
        RecordDecoder.appendOptional(sourceVersion, to: &name)
        RecordDecoder.appendOptional(device?.identity, to: &name)
        for word in [(duration ?? 0).bitPattern, UInt64(bitPattern: start.ms), UInt64(bitPattern: end.ms),
                     UInt64(bitPattern: creationMs)] {
            withUnsafeBytes(of: word.littleEndian) { name.append(contentsOf: $0) }
        }
        if duration == nil { name.append(RecordDecoder.absent) }
        let uuid = name.withUnsafeBytes { NameBasedUUID.v5(namespace: Self.namespace, name: $0) }
        sample = HealthSample(
            uuid: uuid, type: .workout, startMs: start.ms, endMs: end.ms, utcOffsetSeconds: start.offsetSeconds,
            value: value, unit: "s", sourceName: sourceName, sourceBundleId: "", sourceVersion: sourceVersion,
            deviceName: device?.name, deviceModel: device?.model)
        return nil
    }

    /// Reads a direct child of the workout (`MetadataEntry`, `WorkoutEvent`, `WorkoutStatistics`), or the
    /// `FileReference` of its `WorkoutRoute`.
    mutating func child(_ tag: XMLTag) throws {
        guard sample != nil, failure == nil else { return }
        if XMLAttributes.equals(tag.name, "WorkoutStatistics") {
            var out = statistics
            statistics = []
            defer { statistics = out }
            JSONBytes.separator(&out)
            out.append(UInt8(ascii: "{"))
            var problem: (SkipReason, String)?
            try XMLAttributes.forEach(tag.attributes, line: tag.line) { key, value in
                guard problem == nil else { return }
                if XMLAttributes.equals(key, "type") {
                    JSONBytes.member("type", string: XMLAttributes.decode(value), to: &out)
                } else if XMLAttributes.equals(key, "unit") {
                    JSONBytes.member("unit", string: XMLAttributes.decode(value), to: &out)
                } else if XMLAttributes.equals(key, "startDate") || XMLAttributes.equals(key, "endDate") {
                    guard let date = HealthDate.parse(value) else {
                        problem = (.unreadableDate, "WorkoutStatistics \(RecordDecoder.notADate(String(decoding: key, as: UTF8.self), value))")
                        return
                    }
                    JSONBytes.member(XMLAttributes.equals(key, "startDate") ? "startDate" : "endDate",
                                       string: ISO8601Millis.format(date.ms), to: &out)
                } else if let field = Self.statisticsField(key) {
                    guard let number = RecordDecoder.number(value), number.isFinite else {
                        problem = (.unreadableValue, "WorkoutStatistics \(String(decoding: key, as: UTF8.self)) \(RecordDecoder.quote(value)) is not a number")
                        return
                    }
                    JSONBytes.member(field, number: number, to: &out)
                }
            }
            if let problem { _ = fail(problem.0, problem.1); return }
            out.append(UInt8(ascii: "}"))
        } else if XMLAttributes.equals(tag.name, "WorkoutEvent") {
            var out = events
            events = []
            defer { events = out }
            JSONBytes.separator(&out)
            out.append(UInt8(ascii: "{"))
            var durationRaw, unitRaw: UnsafeRawBufferPointer?
            var problem: (SkipReason, String)?
            try XMLAttributes.forEach(tag.attributes, line: tag.line) { key, value in
                guard problem == nil else { return }
                if XMLAttributes.equals(key, "type") {
                    JSONBytes.member("type", string: XMLAttributes.decode(value), to: &out)
                } else if XMLAttributes.equals(key, "date") {
                    guard let date = HealthDate.parse(value) else {
                        problem = (.unreadableDate, "WorkoutEvent \(RecordDecoder.notADate("date", value))")
                        return
                    }
                    JSONBytes.member("date", string: ISO8601Millis.format(date.ms), to: &out)
                } else if XMLAttributes.equals(key, "duration") {
                    durationRaw = value
                } else if XMLAttributes.equals(key, "durationUnit") {
                    unitRaw = value
                }
            }
            if problem == nil, let durationRaw {
                if let number = RecordDecoder.number(durationRaw), number.isFinite,
                   let seconds = Self.seconds(number, unit: unitRaw) {
                    JSONBytes.member("duration", number: seconds, to: &out)
                } else {
                    problem = (.unreadableValue, "WorkoutEvent duration \(RecordDecoder.quote(durationRaw)) is not a duration")
                }
            }
            if let problem { _ = fail(problem.0, problem.1); return }
            out.append(UInt8(ascii: "}"))
        } else if XMLAttributes.equals(tag.name, "MetadataEntry") {
            try MetadataEntry.append(tag, to: &metadata)
        } else if XMLAttributes.equals(tag.name, "FileReference") {
            var path: String?
            try XMLAttributes.forEach(tag.attributes, line: tag.line) { k, v in
                if XMLAttributes.equals(k, "path") { path = XMLAttributes.decode(v) }
            }
            // Bounded: a route has at most `SeriesLimits.maxParts` parts, so more files could not be stored as one.
            if let path, routes.count < SeriesLimits.maxParts, !routes.contains(path) { routes.append(path) }
        }
    }

    /// Ends the workout: its sample with details, or why it is skipped.
    mutating func finish() -> RecordDecoder.Outcome {
        if let failure { return .skip(failure.0, failure.1) }
        guard var sample else { return .skip(.missingAttribute, "it could not be read") }
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.append(contentsOf: head)
        if !statistics.isEmpty {
            JSONBytes.separator(&out); JSONBytes.key("statistics", to: &out)
            out.append(UInt8(ascii: "[")); out.append(contentsOf: statistics); out.append(UInt8(ascii: "]"))
        }
        if !events.isEmpty {
            JSONBytes.separator(&out); JSONBytes.key("events", to: &out)
            out.append(UInt8(ascii: "[")); out.append(contentsOf: events); out.append(UInt8(ascii: "]"))
        }
        if let route = routes.first { JSONBytes.member("route", string: route, to: &out) }
        if routes.count > 1 {
            JSONBytes.separator(&out); JSONBytes.key("routes", to: &out)
            out.append(UInt8(ascii: "["))
            for (i, route) in routes.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONBytes.appendString(route, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        if !metadata.isEmpty {
            JSONBytes.separator(&out); JSONBytes.key("metadata", to: &out)
            out.append(UInt8(ascii: "[")); out.append(contentsOf: metadata); out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
        sample.details = String(decoding: out, as: UTF8.self)
        self.sample = nil
        return .sample(sample, .workout)
    }

    private mutating func fail(_ reason: SkipReason, _ detail: String) -> (SkipReason, String) {
        if failure == nil { failure = (reason, detail) }
        return failure!
    }

    /// The JSON key of a `WorkoutStatistics` number attribute.
    private static func statisticsField(_ key: UnsafeRawBufferPointer) -> StaticString? {
        if XMLAttributes.equals(key, "sum") { return "sum" }
        if XMLAttributes.equals(key, "average") { return "average" }
        if XMLAttributes.equals(key, "minimum") { return "minimum" }
        if XMLAttributes.equals(key, "maximum") { return "maximum" }
        return nil
    }

    /// `value` in seconds, for a duration unit as HealthKit spells it (`min` when the export gives none, as every
    /// export seen does when it writes a duration); `nil` for a unit that is not one of time.
    static func seconds(_ value: Double, unit: UnsafeRawBufferPointer?) -> Double? {
        guard let unit else { return value * 60 }
        switch String(decoding: unit, as: UTF8.self) {
        case "min": return value * 60
        case "s", "sec": return value
        case "ms": return value / 1000
        case "hr", "h": return value * 3600
        case "d", "day": return value * 86_400
        default: return nil
        }
    }
}
