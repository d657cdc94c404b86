/// A JSON value, typed: for the rare, small parts of a body (sleep points, workouts and their routes) that
/// ``HAESleepReader`` and ``HAEWorkoutReader`` read by key. The metric points, which are most of a body, are read as
/// ``HAEPoint`` instead. A scalar that is none of these reads as ``null``.
enum HAEJSON: Decodable, Sendable {
    case object([String: HAEJSON])
    case array([HAEJSON])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: HAEJSONKey.self) {
            var out: [String: HAEJSON] = [:]
            for key in object.allKeys { out[key.stringValue] = try object.decode(HAEJSON.self, forKey: key) }
            self = .object(out)
        } else if var array = try? decoder.unkeyedContainer() {
            var out: [HAEJSON] = []
            while !array.isAtEnd { out.append(try array.decode(HAEJSON.self)) }
            self = .array(out)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let string = try? single.decode(String.self) {
                self = .string(string)
            } else if let number = try? single.decode(Double.self) {
                self = .number(number)
            } else if let flag = try? single.decode(Bool.self) {
                self = .bool(flag)
            } else {
                self = .null
            }
        }
    }

    /// The member `key` of an object; `nil` when absent or when this is not an object.
    subscript(key: String) -> HAEJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The members, if this is an object.
    var object: [String: HAEJSON]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements, if this is an array.
    var array: [HAEJSON]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The string, if this is one.
    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// A number, a string holding one (at most 64 bytes read; `"NaN"` reads as not finite) or a Boolean as 1 or 0;
    /// `nil` otherwise.
    var number: Double? {
        switch self {
        case .number(let value): value
        case .string(let text): Double(text.prefix(64))
        case .bool(let flag): flag ? 1 : 0
        case .object, .array, .null: nil
        }
    }
}
