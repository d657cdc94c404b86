import Foundation
import StepSyncCore

/// Checks a JSON value against a schema of the OpenAPI document, for the subset of JSON Schema the document uses:
/// `$ref` (within the document), `type` (a name or a list), `required`, `properties`, `additionalProperties`,
/// `items`, `minItems`, `maxItems`, `enum`, `const`, `oneOf`, `minimum`, `maximum`, and the formats `date-time`
/// (the sink's instants), `date` and `uuid`. A keyword outside the subset is reported as a problem, so the document
/// cannot drift past what this checks.
struct SchemaCheck {
    let document: [String: Any]

    static let known: Set<String> = [
        "$ref", "type", "required", "properties", "additionalProperties", "items", "enum", "const", "oneOf", "minimum",
        "maximum", "format", "description", "examples", "pattern", "minItems", "maxItems",
    ]

    /// The problems of `value` against `schema` (empty: it conforms), each naming where (`$.samples[0].uuid`).
    func problems(_ value: Any, _ schema: [String: Any], at path: String = "$") -> [String] {
        if let unknown = schema.keys.first(where: { !Self.known.contains($0) }) {
            return ["\(path): schema keyword \(unknown) is not checked by SchemaCheck"]
        }
        if let ref = schema["$ref"] as? String {
            guard let target = resolve(ref) else { return ["\(path): unresolved \(ref)"] }
            return problems(value, target, at: path)
        }
        if let options = schema["oneOf"] as? [[String: Any]] {
            let matching = options.filter { problems(value, $0, at: path).isEmpty }.count
            return matching == 1 ? [] : ["\(path): matches \(matching) of oneOf's \(options.count) schemas"]
        }
        if let allowed = schema["enum"] as? [Any], !allowed.contains(where: { Self.equal($0, value) }) {
            return ["\(path): \(value) is not one of \(allowed)"]
        }
        if let constant = schema["const"], !Self.equal(constant, value) { return ["\(path): \(value) is not \(constant)"] }
        if let type = schema["type"] {
            let types = (type as? [String]) ?? [type as? String ?? "?"]
            guard types.contains(where: { Self.isOfType(value, $0) }) else {
                return ["\(path): \(String(describing: value).prefix(64)) is not of type \(types.joined(separator: "|"))"]
            }
        }
        var found: [String] = []
        if let number = value as? NSNumber, !Self.isBool(value) {
            if let minimum = schema["minimum"] as? Double, number.doubleValue < minimum { found.append("\(path): below \(minimum)") }
            if let maximum = schema["maximum"] as? Double, number.doubleValue > maximum { found.append("\(path): above \(maximum)") }
        }
        if let text = value as? String {
            switch schema["format"] as? String {
            case "date-time" where ISO8601Millis.parse(text) == nil: found.append("\(path): \(text) is not an instant")
            case "date" where CivilDate(iso: text) == nil || text.count != 10: found.append("\(path): \(text) is not a date")
            case "uuid" where UUID(uuidString: text) == nil: found.append("\(path): \(text) is not a UUID")
            default: break
            }
            if let pattern = schema["pattern"] as? String, text.range(of: pattern, options: .regularExpression) == nil {
                found.append("\(path): \(text) does not match \(pattern)")
            }
        }
        if let object = value as? [String: Any] {
            for key in schema["required"] as? [String] ?? [] where object[key] == nil {
                found.append("\(path): \(key) is missing")
            }
            let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
            for (key, item) in object {
                if let property = properties[key] {
                    found += problems(item, property, at: "\(path).\(key)")
                } else if let additional = schema["additionalProperties"] as? [String: Any] {
                    found += problems(item, additional, at: "\(path).\(key)")
                }
            }
        }
        if let array = value as? [Any] {
            if let least = schema["minItems"] as? Int, array.count < least { found.append("\(path): fewer than \(least) items") }
            if let most = schema["maxItems"] as? Int, array.count > most { found.append("\(path): more than \(most) items") }
            if let items = schema["items"] as? [String: Any] {
                for (i, item) in array.enumerated() { found += problems(item, items, at: "\(path)[\(i)]") }
            }
        }
        return found
    }

    /// The keywords of `schema` and its subschemas (not following `$ref`) that ``problems(_:_:at:)`` does not check.
    func uncheckedKeywords(in schema: [String: Any]) -> [String] {
        var found = schema.keys.filter { !Self.known.contains($0) }
        for property in (schema["properties"] as? [String: [String: Any]] ?? [:]).values {
            found += uncheckedKeywords(in: property)
        }
        for key in ["items", "additionalProperties"] {
            if let sub = schema[key] as? [String: Any] { found += uncheckedKeywords(in: sub) }
        }
        for option in schema["oneOf"] as? [[String: Any]] ?? [] { found += uncheckedKeywords(in: option) }
        return found
    }

    /// The object a `#/a/b/c` reference points at.
    func resolve(_ ref: String) -> [String: Any]? {
        guard ref.hasPrefix("#/") else { return nil }
        var node: Any = document
        for part in ref.dropFirst(2).split(separator: "/") {
            guard let object = node as? [String: Any], let next = object[String(part)] else { return nil }
            node = next
        }
        return node as? [String: Any]
    }

    /// `node`, or what it refers to when it is a `$ref`.
    func dereferenced(_ node: [String: Any]) -> [String: Any] {
        (node["$ref"] as? String).flatMap(resolve) ?? node
    }

    static func isBool(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c" // how Foundation marks a JSON true/false
    }

    static func isOfType(_ value: Any, _ type: String) -> Bool {
        switch type {
        case "null": value is NSNull
        case "object": value is [String: Any]
        case "array": value is [Any]
        case "string": value is String
        case "boolean": isBool(value)
        case "integer":
            if let number = value as? NSNumber, !isBool(value) { number.doubleValue.rounded() == number.doubleValue } else { false }
        case "number": value is NSNumber && !isBool(value)
        default: false
        }
    }

    static func equal(_ a: Any, _ b: Any) -> Bool {
        switch (a, b) {
        case let (x as String, y as String): x == y
        case let (x as NSNumber, y as NSNumber): x == y
        case (is NSNull, is NSNull): true
        default: false
        }
    }
}
