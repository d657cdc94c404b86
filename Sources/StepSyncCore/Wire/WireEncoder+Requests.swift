import Foundation

/// The request bodies the engine sends besides `POST /steps`: `POST /samples` (every other type) and the deletions,
/// written by hand with precomputed keys like the `/steps` body (see `Planning/wire-format.md`, the contract with the
/// sinks). One `/samples` object is ``WireEncoder/appendSampleObject(_:to:)``.
extension WireEncoder {
    /// The request body `{"samples":[…]}` of `POST /samples` for `samples` (any types).
    public static func encodeSamplesRequest(_ samples: [HealthSample]) -> [UInt8] {
        var capacity = 16
        for sample in samples { capacity += 260 + (sample.details?.utf8.count ?? 0) }
        return encodeSamples(samples, capacity: capacity) { appendSampleObject($0, to: &$1) }
    }

    /// The body of a deletions request: `{"uuids":[…]}` for `POST /steps/delete` when `type` is `nil`, or
    /// `{"type":"HK…","uuids":[…]}` for `POST /samples/delete`. Uuids are written upper-case.
    public static func encodeDeletions(_ uuids: [UUID], type: SampleType?) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(48 + uuids.count * 39)
        if let type {
            out.append(contentsOf: deletionsTypeKey)
            appendEscaped(type.rawValue, to: &out)
            out.append(contentsOf: deletionsTypedUUIDsKey)
        } else {
            out.append(contentsOf: deletionsUUIDsKey)
        }
        for (i, uuid) in uuids.enumerated() {
            out.append(contentsOf: i == 0 ? quote : commaQuote)
            appendUUID(uuid, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        out.append(contentsOf: requestSuffix)
        return out
    }

    // MARK: - Pieces

    private static let requestSuffix = Array("]}".utf8)
    private static let deletionsUUIDsKey = Array(#"{"uuids":["#.utf8)
    private static let deletionsTypeKey = Array(#"{"type":""#.utf8)
    private static let deletionsTypedUUIDsKey = Array(#"","uuids":["#.utf8)
    private static let quote: [UInt8] = [UInt8(ascii: "\"")]
    private static let commaQuote: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: "\"")]
}
