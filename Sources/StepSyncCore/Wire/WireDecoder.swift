import Foundation

/// Decodes and validates HealthStepsSync request bodies, all or nothing.
///
/// `{"samples":[…]}` is parsed with `JSONDecoder` (fast enough for the ingest target: see
/// `Planning/wire-format.md`), then every sample is checked in order. The first problem found rejects the whole
/// request with a ``WireError`` naming it, its field and the sample's index. Unknown fields are ignored, and a
/// `null` `sourceDeviceName` counts as absent.
public enum WireDecoder {
    /// The samples of a request body, or the first problem in it.
    public static func decodeRequest(_ body: Data) throws(WireError) -> [WireSample] {
        let request: RawRequest
        do {
            request = try JSONDecoder().decode(RawRequest.self, from: body)
        } catch let error as DecodingError {
            throw wireError(error)
        } catch {
            throw .malformedJSON("\(error)")
        }
        var samples: [WireSample] = []
        samples.reserveCapacity(request.samples.count)
        for (index, raw) in request.samples.enumerated() {
            samples.append(try validate(raw, index: index))
        }
        return samples
    }

    /// One wire object (a line of `steps.jsonl`), validated; `index` names it in errors.
    public static func decodeSample(_ object: Data, index: Int? = nil) throws(WireError) -> WireSample {
        let raw: RawSample
        do {
            raw = try JSONDecoder().decode(RawSample.self, from: object)
        } catch let error as DecodingError {
            throw wireError(error, index: index)
        } catch {
            throw .malformedJSON("\(error)", index: index)
        }
        return try validate(raw, index: index)
    }

    /// Checks one decoded object: uuid, dates, their order and the count.
    static func validate(_ raw: RawSample, index: Int?) throws(WireError) -> WireSample {
        guard let uuid = UUID(uuidString: raw.uuid) else { throw .invalidUUID(raw.uuid, index: index) }
        guard let start = ISO8601Millis.parse(raw.startDate) else {
            throw .invalidDate("startDate", raw.startDate, index: index)
        }
        guard let end = ISO8601Millis.parse(raw.endDate) else { throw .invalidDate("endDate", raw.endDate, index: index) }
        guard end >= start else { throw .endBeforeStart(index: index) }
        guard raw.count >= 0, raw.count <= WireSample.maximumCount else { throw .invalidCount(raw.count, index: index) }
        return WireSample(uuid: uuid, startMs: start, endMs: end, count: raw.count,
                          sourceBundleId: raw.sourceBundleId, sourceDeviceName: raw.sourceDeviceName)
    }

    // MARK: - Decoding errors → WireError

    static func wireError(_ error: DecodingError, index fallbackIndex: Int? = nil) -> WireError {
        func locate(_ path: [any CodingKey]) -> (index: Int?, field: String?) {
            var index = fallbackIndex
            var field: String?
            for key in path {
                if let i = key.intValue { index = i } else { field = key.stringValue }
            }
            return (index, field)
        }
        switch error {
        case let .keyNotFound(key, context):
            let (index, _) = locate(context.codingPath)
            return .missingField(key.stringValue, index: index)
        case let .typeMismatch(type, context), let .valueNotFound(type, context):
            let (index, field) = locate(context.codingPath)
            let expected = type == [RawSample].self ? "an array" : type == String.self ? "a string"
                : type == Double.self ? "a number" : "\(type)"
            return .wrongType(field ?? "samples", index: index, expected: expected)
        case let .dataCorrupted(context):
            let (index, field) = locate(context.codingPath)
            if let field, index != nil { return .wrongType(field, index: index, expected: "a valid value") }
            let underlying = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return .malformedJSON(underlying ?? context.debugDescription, index: index)
        @unknown default:
            return .malformedJSON("\(error)")
        }
    }

    struct RawRequest: Decodable {
        var samples: [RawSample]
    }

    struct RawSample: Decodable {
        var uuid: String
        var startDate: String
        var endDate: String
        var count: Double
        var sourceBundleId: String
        var sourceDeviceName: String?
    }
}
