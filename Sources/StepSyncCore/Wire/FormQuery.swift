/// The parameters of a URL query string, decoded as `application/x-www-form-urlencoded`: the encoding that HTML
/// forms, Python's `urlencode` (and so requests and httpx), JavaScript's `URLSearchParams`, Go's `url.Values` and
/// curl's `--data-urlencode` produce.
///
/// The rules (WHATWG URL, "application/x-www-form-urlencoded parsing"): pairs are separated by `&`; a pair's name
/// ends at its first `=` (a pair without `=` has the empty value); in names and values `+` is a space and `%XX` is the
/// byte `XX`; the decoded bytes must be UTF-8. Unlike browsers, which replace a bad escape or bad UTF-8 silently, a
/// query that has one is refused naming the parameter (``FormQueryError``), since a silently changed value (a device
/// name in a priority list) changes answers without a word. Empty pairs (`a=1&&b=2`) are skipped. When a name repeats,
/// the first value wins.
public struct FormQuery: Sendable {
    /// The decoded pairs in query order.
    public private(set) var pairs: [(name: String, value: String)]

    /// Decodes `query` (what follows `?`, without it; `nil` for none).
    ///
    /// - Throws: ``FormQueryError`` naming the first parameter with an invalid percent-escape or invalid UTF-8.
    public init(parsing query: Substring?) throws(FormQueryError) {
        pairs = []
        guard let query, !query.isEmpty else { return }
        for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let rawName = equals.map { pair[pair.startIndex..<$0] } ?? pair[...]
            let rawValue = equals.map { pair[pair.index(after: $0)...] } ?? pair[pair.endIndex...]
            let name = try Self.decode(rawName, parameter: nil)
            let value = try Self.decode(rawValue, parameter: name)
            pairs.append((name, value))
        }
    }

    /// The first value of `name`, or `nil` when the query has no such parameter.
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Decodes one name or value. `parameter` is the decoded name when decoding a value (for the error), `nil` when
    /// decoding the name itself (the error then names it as written).
    static func decode(_ raw: Substring.UTF8View.SubSequence, parameter: String?) throws(FormQueryError) -> String {
        if !raw.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") || $0 >= 0x80 }) {
            return String(decoding: raw, as: UTF8.self)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count)
        var i = raw.startIndex
        while i < raw.endIndex {
            let byte = raw[i]
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(0x20)
                i = raw.index(after: i)
            case UInt8(ascii: "%"):
                guard let end = raw.index(i, offsetBy: 3, limitedBy: raw.endIndex),
                      let high = hexValue(raw[raw.index(i, offsetBy: 1)]), let low = hexValue(raw[raw.index(i, offsetBy: 2)])
                else {
                    let shown = raw[i..<(raw.index(i, offsetBy: 3, limitedBy: raw.endIndex) ?? raw.endIndex)]
                    throw FormQueryError(
                        parameter: parameter ?? Self.asWritten(raw),
                        problem: """
                            has an invalid percent-escape "\(String(decoding: shown, as: UTF8.self))" \
                            (% must be followed by two hex digits; write a % itself as %25)
                            """)
                }
                bytes.append(high << 4 | low)
                i = end
            default:
                bytes.append(byte)
                i = raw.index(after: i)
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw FormQueryError(parameter: parameter ?? Self.asWritten(raw), problem: "is not valid UTF-8 once decoded")
        }
        return text
    }

    /// A name as written in the query (at most 64 bytes), for an error about the name itself.
    private static func asWritten(_ raw: Substring.UTF8View.SubSequence) -> String {
        String(decoding: raw.prefix(64), as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A query string that cannot be decoded: names the parameter and what is wrong with it.
public struct FormQueryError: Error, Equatable, CustomStringConvertible {
    /// The parameter at fault (decoded, or as written when its name itself is at fault).
    public let parameter: String
    /// What is wrong, as a predicate: "has an invalid percent-escape …".
    public let problem: String

    public var description: String { "query parameter \(parameter.prefix(64)) \(problem)" }
}
