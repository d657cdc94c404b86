/// A JSON value, typed, made by ``WireParser/value(depth:)``: for bodies and fields read by key that are small or
/// rare (a deletions request, a workout's details, a Health Auto Export body's sleep points and workouts). A body's
/// bulk is read straight from its bytes instead (``WireParser``, ``HAEPoint``).
public enum JSONValue: Hashable, Sendable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// The value that is all of `text` (a repeated key keeps its last value); `nil` when it is not one JSON value,
    /// nests deeper than 64 or holds a number too large for `Double`.
    public init?(parsing text: some StringProtocol) {
        var text = String(text)
        guard let value = text.withUTF8({ JSONValue(parsing: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = value
    }

    /// The value that is all of `bytes`, as ``init(parsing:)-(StringProtocol)`` reads it.
    public init?(parsing bytes: UnsafeRawBufferPointer) {
        var parser = WireParser(bytes)
        guard let value = try? parser.value(), (try? parser.expectEnd()) != nil else { return nil }
        self = value
    }

    /// The member `key` of an object; `nil` when absent or when this is not an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The members, if this is an object.
    public var object: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements, if this is an array.
    public var array: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The string, if this is one.
    public var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// A number, a string holding one (at most 64 bytes read; `"NaN"` reads as not finite) or a Boolean as 1 or 0;
    /// `nil` otherwise.
    public var number: Double? {
        switch self {
        case .number(let value): value
        case .string(let text): Double(text.prefix(64))
        case .bool(let flag): flag ? 1 : 0
        case .object, .array, .null: nil
        }
    }
}

extension WireParser {
    /// Any JSON value, typed (``JSONValue``); a repeated key keeps its last value. A number too large for `Double` is
    /// a syntax error unless ``readsAnyNumber`` (then it is infinite).
    mutating func value(depth: Int = 0) throws(WireError) -> JSONValue {
        guard depth < 64 else { throw syntax("nesting too deep") }
        skipWhitespace()
        guard let c = peek else { throw syntax("unexpected end of input") }
        switch c {
        case UInt8(ascii: "{"):
            i += 1
            var members: [String: JSONValue] = [:]
            if try consumeObjectEnd() { return .object(members) }
            repeat {
                let key = try parseKey()
                members[key] = try value(depth: depth + 1)
            } while try nextMember()
            return .object(members)
        case UInt8(ascii: "["):
            i += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if peek == UInt8(ascii: "]") { i += 1; return .array(elements) }
            while true {
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                switch peek {
                case UInt8(ascii: ","): i += 1
                case UInt8(ascii: "]"): i += 1; return .array(elements)
                default: throw syntax(peek == nil ? "unexpected end of input" : "expected , or ]")
                }
            }
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            guard matchLiteral("true") else { throw syntax("invalid literal") }
            return .bool(true)
        case UInt8(ascii: "f"):
            guard matchLiteral("false") else { throw syntax("invalid literal") }
            return .bool(false)
        case UInt8(ascii: "n"):
            guard matchLiteral("null") else { throw syntax("invalid literal") }
            return .null
        case UInt8(ascii: "-"), 48...57: return .number(readsAnyNumber ? try parseAnyNumber() : try parseNumber())
        default: throw syntax("unexpected character")
        }
    }
}
