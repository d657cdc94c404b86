import Foundation

/// The body of a deletions request as the sink reads it: `POST /steps/delete {"uuids":["<UUID>",…]}` (the type is
/// fixed: step counts) or `POST /samples/delete {"type":"HK…","uuids":["<UUID>",…]}`. The inverse of
/// ``WireEncoder/encodeDeletions(_:type:)``. Pure, so that the `wire-delete` fuzz target can reach it.
public struct DeletionRequest: Hashable, Sendable {
    /// The type whose samples are deleted.
    public let type: SampleType
    /// The samples to delete, in the body's order (repeats kept).
    public let uuids: [UUID]

    /// Reads `body`. `fixedType` is the endpoint's type (`POST /steps/delete`), or `nil` when the body names it.
    ///
    /// - Throws: ``DeletionRequestError`` naming the field at fault (`type`, `uuids`), or malformed JSON.
    public static func parse(_ body: Data, type fixedType: SampleType?) throws(DeletionRequestError) -> DeletionRequest {
        let parsed = body.withUnsafeBytes { JSONValue(parsing: $0) }
        guard case .object(let object)? = parsed else { throw .malformedJSON(typed: fixedType == nil) }
        let type: SampleType
        if let fixedType {
            type = fixedType
        } else {
            guard let text = object["type"]?.string else { throw .badField("type", missing: object["type"] == nil) }
            type = SampleType(text)
            if let problem = SampleValidation.typeProblem(type) { throw .invalidType(problem) }
        }
        guard let list = object["uuids"]?.array else { throw .badField("uuids", missing: object["uuids"] == nil) }
        var uuids: [UUID] = []
        uuids.reserveCapacity(list.count)
        for (index, item) in list.enumerated() {
            guard let text = item.string, let uuid = UUID(uuidString: text) else {
                throw .invalidUUID(index: index, shown: item.string.map { "\"\(InputExcerpt.of($0))\"" }
                    ?? "a \(jsonTypeName(item))")
            }
            uuids.append(uuid)
        }
        return DeletionRequest(type: type, uuids: uuids)
    }

    /// `null`, `array`, `object`, `number` or `value`: what a JSON value that should have been a string is (a
    /// Boolean is a number, as `JSONSerialization`, which read these bodies before, had it).
    static func jsonTypeName(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .array: "array"
        case .object: "object"
        case .number, .bool: "number"
        case .string: "value"
        }
    }
}
