/// A JSON value, typed: for the rare, small parts of a body (sleep points, workouts and their routes) that
/// ``HAESleepReader`` and ``HAEWorkoutReader`` read by key, made by ``HAEBodyScanner/json(depth:)``. The metric
/// points, which are most of a body, are read as ``HAEPoint`` instead. A number too large for `Double` is infinite.
enum HAEJSON: Sendable {
    case object([String: HAEJSON])
    case array([HAEJSON])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// The value that is all of `text`; `nil` when it is not one JSON value.
    init?(parsing text: some StringProtocol) {
        var text = String(text)
        let value = text.withUTF8 { utf8 -> HAEJSON? in
            var scanner = HAEBodyScanner(UnsafeRawBufferPointer(utf8))
            guard let value = try? scanner.json(), (try? scanner.parser.expectEnd()) != nil else { return nil }
            return value
        }
        guard let value else { return nil }
        self = value
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
