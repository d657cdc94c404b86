import Foundation
import StepSyncCore

/// What ``DeletionRequest/parse(_:type:)`` (the bodies of `POST /steps/delete` and `POST /samples/delete`) promises
/// for any bytes, as a check that returns the broken promises (empty when all hold). The first byte chooses the
/// endpoint (even: `/steps/delete`, type fixed to step counts; odd: `/samples/delete`, the body names the type); the
/// rest is the body. The promises:
/// 1. any body is safe, and a refusal names its field (`type`, `uuids`, or none for malformed JSON) and quotes at
///    most 64 Unicode scalars of a value;
/// 2. an accepted body is a JSON object whose `uuids` (as `JSONSerialization` reads it) are the request's uuids,
///    in order, and whose type is the endpoint's or a valid `type` field (``SampleValidation``);
/// 3. ``WireEncoder/encodeDeletions(_:type:)`` of an accepted request reads back as the same request.
enum DeletionOracle {
    /// Messages are at most this many Unicode scalars besides a quoted value of 64 scalars and `…`.
    static let maxFixedScalars = 160

    /// The promises `input` breaks.
    static func problems(_ input: UnsafeRawBufferPointer) -> [String] {
        let fixedType: SampleType? = (input.first ?? 0) % 2 == 0 ? .stepCount : nil
        let body = Data(input.dropFirst())
        let request: DeletionRequest
        do {
            request = try DeletionRequest.parse(body, type: fixedType)
        } catch {
            var problems: [String] = []
            if error.message.unicodeScalars.count > InputExcerpt.maxScalars + 1 + maxFixedScalars {
                problems.append("the message quotes too much: \(FuzzText.head(error.message))")
            }
            let field: String? = switch error.kind {
            case "malformed_json": nil
            case "invalid_uuid": "uuids"
            case "invalid_type": "type"
            default: error.message.contains("\"type\"") ? "type" : "uuids"
            }
            if error.field != field { problems.append("\(error.kind) names field \(error.field ?? "nil"), not \(field ?? "nil")") }
            if fixedType != nil && error.field == "type" { problems.append("/steps/delete refused a type: \(error)") }
            return problems
        }
        var problems: [String] = []
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let list = object["uuids"] as? [String] else {
            return ["accepted, but JSONSerialization finds no uuids array of strings"]
        }
        if list.map({ UUID(uuidString: $0) }) != request.uuids { problems.append("the uuids differ from JSONSerialization's") }
        if let fixedType {
            if request.type != fixedType { problems.append("the endpoint's type became \(request.type.rawValue)") }
        } else if object["type"] as? String != request.type.rawValue || SampleValidation.typeProblem(request.type) != nil {
            problems.append("the type \(FuzzText.head(request.type.rawValue)) is not the body's valid type")
        }
        let encoded = WireEncoder.encodeDeletions(request.uuids, type: fixedType == nil ? request.type : nil)
        do {
            let again = try DeletionRequest.parse(Data(encoded), type: fixedType)
            if again != request { problems.append("the re-encoded body reads back differently") }
        } catch {
            problems.append("the re-encoded body is refused: \(error)")
        }
        return problems
    }
}
