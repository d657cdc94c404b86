import Foundation
import StepSyncCore

/// What the series readers promise for any `details` a client or a storage hands them (issue 31), as a check that
/// returns the broken promises. Byte 0 even: a route part's details (``RoutePart/init(details:)``); odd: an ECG
/// part's (``ElectrocardiogramPart/init(details:)``); the rest is the details text. The promises:
/// 1. any details are safe (no trap: the fuzzer's overflow checks and AddressSanitizer are the oracle there); a
///    refusal is short and names a field or none;
/// 2. an accepted part is in range: `parts` in `1…maxParts`, `part` in `0..<parts`, points non-empty and inside
///    ``Instants`` (routes), `first + voltages ≤ voltageCount ≤ maxVoltageCount` and a rate in range (ECGs);
/// 3. ``SeriesValidation`` agrees: it passes the part as a sample of its own uuid and point count, and refuses the
///    details (`details.*`) exactly when the reader does;
/// 4. the part's own `detailsJSON` reads back to the same part;
/// 5. the answers built from it (GeoJSON pulled in small chunks, GPX, the ECG answer and list) are well-formed:
///    `JSONSerialization` reads the JSON; the GPX holds no character XML 1.0 forbids; the chunked GeoJSON is the
///    whole one's bytes.
enum SeriesPartsOracle {
    /// The promises `input` breaks.
    static func problems(_ input: UnsafeRawBufferPointer) -> [String] {
        let route = (input.first ?? 0) % 2 == 0
        let details = String(decoding: UnsafeRawBufferPointer(rebasing: input.dropFirst()), as: UTF8.self)
        return route ? routeProblems(details) : electrocardiogramProblems(details)
    }

    static func routeProblems(_ details: String) -> [String] {
        let part: RoutePart
        do {
            part = try RoutePart(details: details)
        } catch {
            return refusalProblems(error, sample(.workoutRoute, uuid: UUID(), value: 1, details: details))
        }
        var problems: [String] = []
        if !(1...SeriesLimits.maxParts).contains(part.count) || !(0..<part.count).contains(part.index) {
            problems.append("part \(part.index) of \(part.count) accepted")
        }
        if part.points.isEmpty { problems.append("a part without points accepted") }
        if part.points.contains(where: { !Instants.contains($0.timeMs) }) { problems.append("a time outside Instants accepted") }
        problems += validationProblems(sample(.workoutRoute, uuid: part.uuid, value: Double(part.points.count), details: details))
        if (try? RoutePart(details: part.detailsJSON)) != part { problems.append("detailsJSON does not read back the same part") }
        let assembled = AssembledRoute(first: RoutePart(workout: part.workout, index: 0, count: max(2, part.count),
                                                        file: part.file, points: part.points), others: [])
        let whole = RouteGeoJSON.feature(assembled, truncated: true)
        if (try? JSONSerialization.jsonObject(with: Data(whole))) == nil { problems.append("the GeoJSON is not JSON") }
        var stream = RouteGeoJSONStream(workout: part.workout, file: part.file)
        var chunked: [UInt8] = []
        stream.append(part.points, to: &chunked)
        stream.finish(missingParts: assembled.missingParts, truncated: true)
        while stream.nextChunk(into: &chunked, maxBytes: chunked.count + 5) {}
        if chunked != whole { problems.append("the GeoJSON pulled in chunks differs from the whole") }
        let gpx = String(decoding: RouteGPX.document(assembled), as: UTF8.self)
        if gpx.unicodeScalars.contains(where: { ($0.value < 0x20 && ![0x09, 0x0A, 0x0D].contains($0.value)) || $0.value == 0xFFFE || $0.value == 0xFFFF }) {
            problems.append("the GPX holds a character XML 1.0 forbids")
        }
        return problems
    }

    static func electrocardiogramProblems(_ details: String) -> [String] {
        let part: ElectrocardiogramPart
        do {
            part = try ElectrocardiogramPart(details: details)
        } catch {
            return refusalProblems(error, sample(.electrocardiogram, uuid: UUID(), value: 1, details: details))
        }
        var problems: [String] = []
        let header = part.header
        if !(1...SeriesLimits.maxParts).contains(part.count) || !(0..<part.count).contains(part.index) {
            problems.append("part \(part.index) of \(part.count) accepted")
        }
        if part.microvolts.isEmpty || part.first < 0 || header.voltageCount > SeriesLimits.maxVoltageCount
            || part.microvolts.count > header.voltageCount - part.first {
            problems.append("voltages \(part.first)+\(part.microvolts.count) of \(header.voltageCount) accepted")
        }
        if !SeriesLimits.sampleRates.contains(header.sampleRateHz) { problems.append("rate \(header.sampleRateHz) accepted") }
        if !Instants.contains(header.instant(ofVoltage: part.first + part.microvolts.count)) {
            problems.append("a voltage's instant outside Instants")
        }
        problems += validationProblems(sample(.electrocardiogram, uuid: part.uuid, value: Double(part.microvolts.count),
                                              details: details))
        if (try? ElectrocardiogramPart(details: part.detailsJSON)) != part { problems.append("detailsJSON does not read back the same part") }
        let assembled = AssembledElectrocardiogram(first: part, others: [])
        if (try? JSONSerialization.jsonObject(with: Data(ElectrocardiogramAnswer.recording(assembled, truncated: true)))) == nil {
            problems.append("the ECG answer is not JSON")
        }
        let summary = ElectrocardiogramAnswer.Summary(part)
        if (try? JSONSerialization.jsonObject(with: Data(ElectrocardiogramAnswer.list([summary])))) == nil {
            problems.append("the ECG list is not JSON")
        }
        if part.index == 0, ElectrocardiogramAnswer.Summary(partZeroDetails: details) != summary {
            problems.append("the list's header-only reading differs from the part's")
        }
        return problems
    }

    /// A refusal: short, and the door refuses the same details (`details` or `details.<field>`).
    static func refusalProblems(_ error: SeriesDetailsError, _ sample: HealthSample) -> [String] {
        var problems: [String] = []
        if error.problem.unicodeScalars.count > 400 { problems.append("a refusal of \(error.problem.unicodeScalars.count) scalars") }
        let problem = SeriesValidation.problem(of: sample)
        if problem?.reason != .invalidDetails || !(problem?.field.hasPrefix("details") ?? false) {
            problems.append("the reader refuses (\(error)) but SeriesValidation says \(String(describing: problem))")
        }
        return problems
    }

    /// The door passes an accepted part as a sample of its own uuid and count (unless its details are over 56 KiB).
    static func validationProblems(_ sample: HealthSample) -> [String] {
        guard (sample.details?.utf8.count ?? 0) <= SeriesLimits.maxPartDetailsBytes else { return [] }
        if let problem = SeriesValidation.problem(of: sample) { return ["SeriesValidation refuses an accepted part: \(problem)"] }
        return []
    }

    static func sample(_ type: SampleType, uuid: UUID, value: Double, details: String) -> HealthSample {
        HealthSample(uuid: uuid, type: type, startMs: 0, endMs: 0, value: value, unit: "count", sourceName: "fuzz",
                     sourceBundleId: "fuzz", details: details)
    }
}
