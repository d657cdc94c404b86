import Foundation

/// A JSON value as parsed, keeping booleans, integers and fractions apart (JSONSerialization's NSNumber does not).
indirect enum JSONValue: Decodable, Equatable {
    case null, bool(Bool), integer(Int64), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    /// Parses `text` (one JSON document).
    static func parse(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    var object: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
    var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    var string: String? { if case .string(let s) = self { s } else { nil } }
    var double: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .number(let d): d
        default: nil
        }
    }
}

/// Checks a JSON value against a JSON Schema (draft 2020-12), the subset `docs/json/*.schema.json` use: `type`
/// (one or a list), `properties`, `required`, `additionalProperties` (false or a schema), `propertyNames`, `items`,
/// `enum`, `const`, `minimum`, `pattern`, `format` (`date-time`: ISO-8601 UTC with milliseconds, as stepsync writes
/// instants; `date`: `YYYY-MM-DD`), `$ref` to `#/$defs/…`, `anyOf`. An unknown keyword is an error, so a schema
/// cannot silently ask for more than is checked.
struct JSONSchemaValidator {
    let root: JSONValue

    static let known: Set<String> = [
        "$schema", "$id", "$defs", "$comment", "title", "description", "type", "properties", "required",
        "additionalProperties", "propertyNames", "items", "enum", "const", "minimum", "pattern", "format", "$ref", "anyOf",
    ]

    /// Every problem of `value` against the root schema, each with its JSON path; empty when it conforms.
    func problems(_ value: JSONValue) -> [String] {
        var out: [String] = []
        check(value, against: root, path: "$", into: &out)
        return out
    }

    private func check(_ value: JSONValue, against schema: JSONValue, path: String, into out: inout [String]) {
        guard let schema = schema.object else { out.append("\(path): the schema is not an object"); return }
        for key in schema.keys where !Self.known.contains(key) { out.append("\(path): unsupported keyword \(key)") }
        if let ref = schema["$ref"]?.string {
            let name = ref.replacingOccurrences(of: "#/$defs/", with: "")
            guard let target = root.object?["$defs"]?.object?[name] else { out.append("\(path): unknown $ref \(ref)"); return }
            check(value, against: target, path: path, into: &out)
        }
        if let anyOf = schema["anyOf"]?.array {
            let fits = anyOf.contains { option in
                var sub: [String] = []
                check(value, against: option, path: path, into: &sub)
                return sub.isEmpty
            }
            if !fits { out.append("\(path): matches none of anyOf: \(Self.brief(value))") }
        }
        if let type = schema["type"] {
            let allowed = type.array?.compactMap(\.string) ?? [type.string ?? "?"]
            if !allowed.contains(where: { Self.isType(value, $0) }) {
                out.append("\(path): \(Self.brief(value)) is not of type \(allowed.joined(separator: "|"))")
                return
            }
        }
        if let options = schema["enum"]?.array, !options.contains(value) {
            out.append("\(path): \(Self.brief(value)) is not one of \(options.map(Self.brief))")
        }
        if let constant = schema["const"], constant != value { out.append("\(path): \(Self.brief(value)) is not \(Self.brief(constant))") }
        if let minimum = schema["minimum"]?.double, let number = value.double, number < minimum {
            out.append("\(path): \(number) is below the minimum \(minimum)")
        }
        if let string = value.string {
            if let pattern = schema["pattern"]?.string, string.range(of: pattern, options: .regularExpression) == nil {
                out.append("\(path): \"\(string.prefix(64))\" does not match \(pattern)")
            }
            switch schema["format"]?.string {
            case "date-time"?:
                if string.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression) == nil {
                    out.append("\(path): \"\(string.prefix(64))\" is not an ISO-8601 UTC instant with milliseconds")
                }
            case "date"?:
                if string.range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) == nil {
                    out.append("\(path): \"\(string.prefix(64))\" is not a date YYYY-MM-DD")
                }
            case nil: break
            case let other?: out.append("\(path): unsupported format \(other)")
            }
        }
        if let items = schema["items"], let array = value.array {
            for (index, item) in array.enumerated() { check(item, against: items, path: "\(path)[\(index)]", into: &out) }
        }
        if let object = value.object {
            let properties = schema["properties"]?.object ?? [:]
            for name in schema["required"]?.array?.compactMap(\.string) ?? [] where object[name] == nil {
                out.append("\(path): the required key \(name) is missing")
            }
            for (key, item) in object.sorted(by: { $0.key < $1.key }) {
                if let names = schema["propertyNames"] { check(.string(key), against: names, path: "\(path) key \(key)", into: &out) }
                if let property = properties[key] {
                    check(item, against: property, path: "\(path).\(key)", into: &out)
                } else if let additional = schema["additionalProperties"] {
                    if additional == .bool(false) { out.append("\(path): the key \(key) is not in the schema") }
                    else { check(item, against: additional, path: "\(path).\(key)", into: &out) }
                }
            }
        }
    }

    private static func isType(_ value: JSONValue, _ type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("integer", .integer), ("number", .integer), ("number", .number),
             ("string", .string), ("array", .array), ("object", .object): true
        case ("integer", .number(let d)): d == d.rounded() && abs(d) < 9e15
        default: false
        }
    }

    private static func brief(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let b): "\(b)"
        case .integer(let i): "\(i)"
        case .number(let d): "\(d)"
        case .string(let s): "\"\(s.prefix(40))\""
        case .array(let a): "an array of \(a.count)"
        case .object(let o): "an object with keys \(o.keys.sorted().prefix(6).joined(separator: ","))"
        }
    }
}
