import Foundation
import StepSyncCore

/// What `WireDecoder` promises for any bytes, as checks that return the broken promises (empty when all hold).
///
/// The `wire-request` and `wire-line` fuzz targets (which compile this file) stop on the first input with a problem;
/// `FuzzReplayTests` runs every corpus and crash file through them once. The promises:
/// 1. any input is safe (no trap, no out-of-bounds read);
/// 2. a refusal is a ``WireError`` whose message echoes at most 64 characters of the input (its UTF-8 stays under
///    ``maxErrorBytes``), and a stored line's error names the index it was given;
/// 3. every accepted sample is valid: both instants inside ``Instants``, `end ≥ start`, `0 ≤ count ≤ 1,000,000`;
/// 4. what is accepted re-encodes (``WireEncoder``) to bytes that decode to the same samples and re-encode to the
///    same bytes; an encoded line is one line;
/// 5. what is accepted is valid UTF-8 (issue 21.5) and JSON: Foundation's `JSONSerialization` reads the same body
///    (when it holds no `\u` surrogate escape) and finds the same uuids, instants, counts and strings;
/// 6. a line accepted alone is accepted inside `{"samples":[…]}` as the same sample, and read as the sink's stored
///    step-count line it writes back (``WireEncoder/appendStoredLine(_:to:)``) as the same ``HealthSample``;
/// 7. a `POST /samples` body (``samplesRequestProblems(_:)``): what is accepted passes ``SampleValidation``,
///    re-encodes (``WireEncoder/encodeSamplesRequest(_:)``) to the same samples and stable bytes, each sample's
///    stored line reads back the same, `details` is a JSON object, and `JSONSerialization` finds the same fields.
enum WireOracle {
    /// The longest error message allowed: 64 echoed characters of at most 4 bytes each plus the fixed text.
    static let maxErrorBytes = 64 * 4 + 200

    /// The promises a `POST /steps` body breaks.
    static func requestProblems(_ bytes: UnsafeRawBufferPointer) -> [String] {
        let samples: [WireSample]
        do {
            samples = try WireDecoder.decodeRequest(bytes)
        } catch {
            return errorProblems(error, index: nil)
        }
        var problems = samples.enumerated().flatMap { sampleProblems($1, index: $0) }
        let encoded = WireEncoder.encodeRequest(samples)
        if let again = try? WireDecoder.decodeRequest(encoded) {
            if again != samples { problems.append("re-encoded samples decode differently") }
            if WireEncoder.encodeRequest(again) != encoded { problems.append("re-encoding is not stable") }
        } else {
            problems.append("re-encoded samples are refused: \(String(decoding: encoded.prefix(200), as: UTF8.self))")
        }
        problems += foundationProblems(bytes, samples)
        return problems
    }

    /// The promises a stored line (`steps.jsonl`, without its newline) breaks.
    static func lineProblems(_ bytes: UnsafeRawBufferPointer) -> [String] {
        let sample: WireSample
        do {
            sample = try WireDecoder.decodeSample(bytes, index: 7)
        } catch {
            return errorProblems(error, index: 7)
        }
        var problems = sampleProblems(sample, index: 0)
        var line: [UInt8] = []
        WireEncoder.appendLine(sample, to: &line)
        if line.last != 0x0A || line.dropLast().contains(0x0A) { problems.append("the encoded line is not one line") }
        let object = Array(line.dropLast())
        if let again = try? WireDecoder.decodeSample(object) {
            if again != sample { problems.append("the re-encoded line decodes differently") }
            var line2: [UInt8] = []
            WireEncoder.appendLine(again, to: &line2)
            if line2 != line { problems.append("re-encoding the line is not stable") }
        } else {
            problems.append("the re-encoded line is refused: \(String(decoding: object.prefix(200), as: UTF8.self))")
        }
        let wrapped = Array(#"{"samples":["#.utf8) + Array(bytes) + Array("]}".utf8)
        do {
            let samples = try WireDecoder.decodeRequest(wrapped)
            if samples != [sample] { problems.append("inside a request the line gives \(samples.count) other sample(s)") }
        } catch {
            problems.append("inside a request the line is refused: \(error)")
        }
        problems += foundationProblems(wrapped, [sample])
        if let stored = try? WireDecoder.decodeStoredSample(bytes, type: .stepCount, index: 7) {
            problems += storedLineProblems(stored)
        } else {
            problems.append("decodeSample accepts the line, decodeStoredSample refuses it")
        }
        return problems
    }

    /// The promises a `POST /samples` body breaks.
    static func samplesRequestProblems(_ bytes: UnsafeRawBufferPointer) -> [String] {
        let samples: [HealthSample]
        do {
            samples = try WireDecoder.decodeSamplesRequest(bytes)
        } catch {
            return errorProblems(error, index: nil)
        }
        var problems: [String] = []
        for (i, sample) in samples.enumerated() {
            if let problem = SampleValidation.problem(of: sample) {
                problems.append("sample \(i): accepted though \(problem.reason.rawValue) (\(problem.field))")
            }
            problems += storedLineProblems(sample)
        }
        let encoded = WireEncoder.encodeSamplesRequest(samples)
        if let again = try? WireDecoder.decodeSamplesRequest(encoded) {
            if again != samples { problems.append("re-encoded samples decode differently") }
            if WireEncoder.encodeSamplesRequest(again) != encoded { problems.append("re-encoding is not stable") }
        } else {
            problems.append("re-encoded samples are refused: \(String(decoding: encoded.prefix(200), as: UTF8.self))")
        }
        problems += foundationSamplesProblems(bytes, samples)
        return problems
    }

    /// The sink's stored line of `sample` is one line that reads back as `sample`, and writes back the same bytes.
    static func storedLineProblems(_ sample: HealthSample) -> [String] {
        var line: [UInt8] = []
        WireEncoder.appendStoredLine(sample, to: &line)
        var problems: [String] = []
        if line.last != 0x0A || line.dropLast().contains(0x0A) { problems.append("a stored line is not one line") }
        do {
            let again = try WireDecoder.decodeStoredSample(line.dropLast(), type: sample.type)
            if again != sample { problems.append("a stored line reads back differently") }
            var line2: [UInt8] = []
            WireEncoder.appendStoredLine(again, to: &line2)
            if line2 != line { problems.append("writing a stored line again is not stable") }
        } catch {
            problems.append("a stored line is refused: \(error)")
        }
        if let details = sample.details, !hasSurrogateEscape(details),
           (try? JSONSerialization.jsonObject(with: Data(details.utf8))) as? [String: Any] == nil {
            problems.append("details that are not a JSON object: \(FuzzText.head(details))")
        }
        return problems
    }

    /// Checks an accepted `POST /samples` body against `JSONSerialization`, when it can judge it.
    static func foundationSamplesProblems(_ bytes: some Collection<UInt8>, _ samples: [HealthSample]) -> [String] {
        let (list, found) = foundationList(bytes, count: samples.count)
        var problems = found
        func optional(_ value: Any?) -> String? { value as? String }
        for (i, (item, s)) in zip(list, samples).enumerated() {
            guard let o = item as? [String: Any] else { problems.append("sample \(i): not an object to Foundation"); continue }
            var differs: [String] = []
            if (o["uuid"] as? String).flatMap(UUID.init(uuidString:)) != s.uuid { differs.append("uuid") }
            if o["type"] as? String != s.type.rawValue { differs.append("type") }
            if (o["startDate"] as? String).flatMap(ISO8601Millis.parse) != s.startMs { differs.append("startDate") }
            if (o["endDate"] as? String).flatMap(ISO8601Millis.parse) != s.endMs { differs.append("endDate") }
            if !sameNumber(o["value"], s.value) { differs.append("value") }
            if o["unit"] as? String != s.unit { differs.append("unit") }
            if o["sourceName"] as? String != s.sourceName { differs.append("sourceName") }
            if o["sourceBundleId"] as? String != s.sourceBundleId { differs.append("sourceBundleId") }
            if optional(o["sourceDeviceName"]) != s.deviceName { differs.append("sourceDeviceName") }
            if optional(o["sourceVersion"]) != s.sourceVersion { differs.append("sourceVersion") }
            if optional(o["deviceModel"]) != s.deviceModel { differs.append("deviceModel") }
            let theirs = o["details"] as? NSDictionary
            let ours = s.details.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? NSDictionary }
            if theirs != ours { differs.append("details") }
            if !differs.isEmpty { problems.append("sample \(i): Foundation reads \(differs.joined(separator: ", ")) differently") }
        }
        return problems
    }

    // MARK: - Pieces

    static func errorProblems(_ error: WireError, index: Int?) -> [String] {
        var problems: [String] = []
        let message = error.description
        if message.utf8.count > maxErrorBytes {
            problems.append("an error message of \(message.utf8.count) bytes: \(FuzzText.head(message))…")
        }
        if let index, error.sampleIndex != index {
            problems.append("the error names sample \(String(describing: error.sampleIndex)), not \(index): \(message.prefix(120))")
        }
        return problems
    }

    static func sampleProblems(_ s: WireSample, index: Int) -> [String] {
        var problems: [String] = []
        if !Instants.contains(s.startMs) || !Instants.contains(s.endMs) {
            problems.append("sample \(index): instants \(s.startMs)…\(s.endMs) outside \(Instants.description)")
        }
        if s.endMs < s.startMs { problems.append("sample \(index): end before start") }
        if !(s.count >= 0 && s.count <= WireSample.maximumCount) { problems.append("sample \(index): count \(s.count)") }
        return problems
    }

    /// Checks accepted `bytes` against `JSONSerialization`, when it can judge them.
    static func foundationProblems(_ bytes: some Collection<UInt8>, _ samples: [WireSample]) -> [String] {
        let (list, found) = foundationList(bytes, count: samples.count)
        var problems = found
        for (i, (item, s)) in zip(list, samples).enumerated() {
            guard let o = item as? [String: Any] else { problems.append("sample \(i): not an object to Foundation"); continue }
            if (o["uuid"] as? String).flatMap(UUID.init(uuidString:)) != s.uuid { problems.append("sample \(i): uuid differs") }
            if (o["startDate"] as? String).flatMap(ISO8601Millis.parse) != s.startMs { problems.append("sample \(i): startDate differs") }
            if (o["endDate"] as? String).flatMap(ISO8601Millis.parse) != s.endMs { problems.append("sample \(i): endDate differs") }
            if !sameNumber(o["count"], s.count) {
                problems.append("sample \(i): count \(s.count), Foundation \(String(describing: o["count"]))")
            }
            if o["sourceBundleId"] as? String != s.sourceBundleId { problems.append("sample \(i): sourceBundleId differs") }
            if o["sourceDeviceName"] as? String != s.sourceDeviceName { problems.append("sample \(i): sourceDeviceName differs") }
        }
        return problems
    }

    /// The `samples` array `JSONSerialization` reads from accepted `bytes`, or no items and the problem when it
    /// refuses them or finds another count; no items and no problem where it cannot judge (a surrogate escape).
    static func foundationList(_ bytes: some Collection<UInt8>, count: Int) -> (list: [Any], problems: [String]) {
        // Issue 21.5: what is accepted is UTF-8 (every byte outside strings is ASCII, and every string is checked).
        guard let text = FuzzText.validUTF8(bytes) else { return ([], ["accepted a body that is not valid UTF-8"]) }
        guard !hasSurrogateEscape(text) else { return ([], []) }
        guard let top = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            return ([], ["accepted, but JSONSerialization refuses it"])
        }
        guard let list = top["samples"] as? [Any], list.count == count else {
            return ([], ["JSONSerialization finds another samples array"])
        }
        return (list, [])
    }

    /// Whether Foundation's reading of a number is `value`. Foundation reads an integer of more than 19 digits as an
    /// `NSDecimalNumber` (38 significant digits, the rest dropped), whose `doubleValue` can be ulps off the correctly
    /// rounded `Double(String)` the parser gives (found by `wire-samples` on 2026-11-25: 129-digit values, 1 and 4
    /// ulps off): there the decimal's own text is read by `Double(String)`, and 1 ulp (the dropped digits at a
    /// rounding boundary) is the same number.
    static func sameNumber(_ foundation: Any?, _ value: Double) -> Bool {
        guard let number = foundation as? NSNumber else { return false }
        if number.doubleValue == value { return true }
        guard let decimal = number as? NSDecimalNumber, let read = Double(decimal.stringValue) else { return false }
        return read == value || read.nextUp == value || read.nextDown == value
    }

    /// Whether `text` holds a `\u` escape of a UTF-16 surrogate (`\uD800`…`\uDFFF`).
    static func hasSurrogateEscape(_ text: String) -> Bool {
        let u = Array(text.utf8)
        var i = 0
        while i + 2 < u.count {
            if u[i] == UInt8(ascii: "\\") {
                if u[i + 1] == UInt8(ascii: "u"), u[i + 2] | 0x20 == UInt8(ascii: "d"), i + 3 < u.count,
                   [UInt8]("89abcdefABCDEF".utf8).contains(u[i + 3]) { return true }
                i += 2
            } else {
                i += 1
            }
        }
        return false
    }
}
