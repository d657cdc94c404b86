import Foundation

/// Decodes and validates HealthStepsSync request bodies, all or nothing.
///
/// `{"samples":[…]}` is parsed by a hand-written parser (`JSONDecoder` was ≈ 10× slower and would have capped
/// ingest: see `Planning/wire-format.md`), and every sample is checked in order. The first problem found rejects the whole
/// request with a ``WireError`` naming it, its field and the sample's index. Unknown fields are ignored, and a
/// `null` `sourceDeviceName` counts as absent.
public enum WireDecoder {
    /// The samples of a request body, or the first problem in it.
    public static func decodeRequest(_ body: some ContiguousBytes) throws(WireError) -> [WireSample] {
        let result: Result<[WireSample], WireError> = body.withUnsafeBytes { raw in
            var parser = WireParser(raw)
            do throws(WireError) { return .success(try parser.parseRequest()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// One wire object (a line of `steps.jsonl`, without its newline), validated; `index` names it in errors.
    public static func decodeSample(_ object: some ContiguousBytes, index: Int? = nil) throws(WireError) -> WireSample {
        let result: Result<WireSample, WireError> = object.withUnsafeBytes { raw in
            var parser = WireParser(raw)
            do throws(WireError) { return .success(try parser.parseSingleSample(index: index)) } catch {
                return .failure(error)
            }
        }
        return try result.get()
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

    /// The fields of one sample as found, before validation.
    struct RawSample {
        var uuid: String
        var startDate: String
        var endDate: String
        var count: Double
        var sourceBundleId: String
        var sourceDeviceName: String?
    }
}
