import Foundation
import StepSyncCore

/// One workout route as the Health app exports it: `workout-routes/route_YYYY-MM-DD_H.MMam.gpx` in `export.zip`,
/// referenced by its workout's `<WorkoutRoute><FileReference path="/workout-routes/…"/></WorkoutRoute>`.
///
/// GPX 1.1 as Apple writes it (`Planning/import.md`): one `<trk>` with a `<name>` and one `<trkseg>`, a `<trkpt lat lon>`
/// a second, each with `<ele>` (metres), `<time>` (UTC, `2024-12-08T15:07:56Z`) and `<extensions>` holding `<speed>`
/// (m/s), `<course>` (degrees), `<hAcc>` and `<vAcc>` (metres). Older exports have no extensions. The reader takes any
/// number of tracks and segments in order, ignores elements it does not know, and refuses a point without a valid
/// latitude, longitude or time.
public struct GPXRoute: Hashable, Sendable {
    /// One track point: the series point stored and synced (time, position, elevation and the extensions).
    public typealias Point = RoutePoint

    /// The track's name (`Route 2024-12-08 3:07pm`).
    public var name: String?
    /// Every point, in file order.
    public var points: [Point]

    /// The most bytes a route file may have (a day-long route a second is about 22 MB).
    public static let maxBytes = 256 << 20

    /// Parses one file's bytes.
    ///
    /// - Throws: ``GPXRouteError`` naming the line and the problem: not GPX, a point without a valid `lat`, `lon` or
    ///   `<time>`, a number that is not one, a tag that never ends, more than ``maxBytes`` bytes.
    public static func parse(_ bytes: [UInt8]) throws(GPXRouteError) -> GPXRoute {
        guard bytes.count <= maxBytes else {
            throw GPXRouteError(line: nil, problem: "is \(bytes.count) bytes, over the limit of \(maxBytes) for a route")
        }
        var parser = Parser(bytes: bytes)
        return try parser.run()
    }

    /// A forward scan over the bytes: tags, and the text of the leaf elements a point needs.
    private struct Parser {
        let bytes: [UInt8]
        var i = 0
        var line = 1
        var sawGPX = false
        var name: String?
        var points: [Point] = []
        /// The point being read, with the line its tag started on.
        var point: (Point, line: Int, hasTime: Bool)?
        /// The leaf element whose text is being collected.
        var leaf: String?
        var text: [UInt8] = []
        var inTrackName = false

        init(bytes: [UInt8]) { self.bytes = bytes }

        static let commentOpen = Array("<!--".utf8), commentClose = Array("-->".utf8)
        static let cdataOpen = Array("<![CDATA[".utf8), cdataClose = Array("]]>".utf8)

        mutating func run() throws(GPXRouteError) -> GPXRoute {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
            while i < bytes.count {
                let c = bytes[i]
                if c == UInt8(ascii: "<") {
                    try tag()
                } else {
                    if c == 0x0A { line += 1 }
                    if leaf != nil || inTrackName { text.append(c) }
                    i += 1
                }
            }
            guard sawGPX else { throw GPXRouteError(line: nil, problem: "is not GPX: no <gpx> element") }
            guard point == nil else { throw GPXRouteError(line: line, problem: "ends inside a <trkpt>") }
            return GPXRoute(name: name, points: points)
        }

        /// At `<`: a declaration, comment, or element tag.
        mutating func tag() throws(GPXRouteError) {
            let start = line
            // Comments and CDATA start `<!`: the (costly) prefix checks only run then.
            let bang = i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "!")
            if bang, bytes[i...].starts(with: Self.commentOpen) {
                try skip(past: Self.commentClose, from: start)
                return
            }
            if bang, bytes[i...].starts(with: Self.cdataOpen) {
                let from = i + 9
                try skip(past: Self.cdataClose, from: start)
                if leaf != nil || inTrackName { text.append(contentsOf: bytes[from..<(i - 3)]) }
                return
            }
            if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "?") || bytes[i + 1] == UInt8(ascii: "!") {
                try skip(past: [UInt8(ascii: ">")], from: start)
                return
            }
            // An element tag: up to the `>` outside quotes.
            var j = i + 1
            var quote: UInt8 = 0
            while j < bytes.count {
                let c = bytes[j]
                if c == 0x0A { line += 1 }
                if quote != 0 {
                    if c == quote { quote = 0 }
                } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                    quote = c
                } else if c == UInt8(ascii: ">") {
                    break
                }
                j += 1
            }
            guard j < bytes.count else { throw GPXRouteError(line: start, problem: "has a tag that never ends") }
            let inner = bytes[(i + 1)..<j]
            i = j + 1
            let closing = inner.first == UInt8(ascii: "/")
            let selfClosing = inner.last == UInt8(ascii: "/")
            let body = inner.dropFirst(closing ? 1 : 0).dropLast(selfClosing ? 1 : 0)
            let nameEnd = body.firstIndex { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D } ?? body.endIndex
            var tagName = String(decoding: body[body.startIndex..<nameEnd], as: UTF8.self)
            if let colon = tagName.lastIndex(of: ":") { tagName = String(tagName[tagName.index(after: colon)...]) }
            if closing {
                try end(tagName, line: start)
            } else {
                try begin(tagName, attributes: body[nameEnd...], line: start)
                if selfClosing { try end(tagName, line: start) }
            }
        }

        mutating func skip(past terminator: [UInt8], from start: Int) throws(GPXRouteError) {
            var j = i
            while j + terminator.count <= bytes.count {
                if bytes[j] == 0x0A { line += 1 }
                if bytes[j..<(j + terminator.count)].elementsEqual(terminator) {
                    i = j + terminator.count
                    return
                }
                j += 1
            }
            throw GPXRouteError(line: start, problem: "has a comment or declaration that never ends")
        }

        mutating func begin(_ tag: String, attributes: ArraySlice<UInt8>, line: Int) throws(GPXRouteError) {
            switch tag {
            case "gpx":
                sawGPX = true
            case "trkpt":
                guard point == nil else { throw GPXRouteError(line: line, problem: "has a <trkpt> inside a <trkpt>") }
                let attributes = Self.attributes(attributes)
                guard let lat = attributes["lat"].flatMap(Double.init), (-90...90).contains(lat) else {
                    throw GPXRouteError(line: line, problem: "has a <trkpt> without a latitude (lat) within −90…90")
                }
                guard let lon = attributes["lon"].flatMap(Double.init), (-180...180).contains(lon) else {
                    throw GPXRouteError(line: line, problem: "has a <trkpt> without a longitude (lon) within −180…180")
                }
                point = (Point(timeMs: 0, latitude: lat, longitude: lon), line, false)
            case "ele", "time", "speed", "course", "hAcc", "vAcc":
                if point != nil {
                    leaf = tag
                    text = []
                }
            case "name":
                if point == nil, name == nil {
                    inTrackName = true
                    text = []
                }
            default:
                break
            }
        }

        mutating func end(_ tag: String, line: Int) throws(GPXRouteError) {
            if inTrackName, tag == "name" {
                name = Self.unescape(String(decoding: text, as: UTF8.self)).trimmingCharacters(in: .whitespacesAndNewlines)
                inTrackName = false
                return
            }
            if let leafName = leaf, tag == leafName, var current = point {
                let value = String(decoding: Self.trimmed(text), as: UTF8.self)
                leaf = nil
                if tag == "time" {
                    guard let ms = Self.instant(value), ms >= Instants.min, ms <= Instants.max else {
                        throw GPXRouteError(line: line, problem: "has a <time> \(InputExcerpt.of(value)) that is not an ISO-8601 instant")
                    }
                    current.0.timeMs = ms
                    current.hasTime = true
                } else {
                    guard let number = Double(value), number.isFinite else {
                        throw GPXRouteError(line: line, problem: "has an <\(tag)> \(InputExcerpt.of(value)) that is not a number")
                    }
                    switch tag {
                    case "ele": current.0.elevation = number
                    case "speed": current.0.speed = number
                    case "course": current.0.course = number
                    case "hAcc": current.0.horizontalAccuracy = number
                    default: current.0.verticalAccuracy = number
                    }
                }
                point = current
                return
            }
            if tag == "trkpt", let current = point {
                guard current.hasTime else {
                    throw GPXRouteError(line: current.line, problem: "has a <trkpt> without a <time>")
                }
                points.append(current.0)
                point = nil
            }
        }

        /// `name="value"` pairs of a tag (either quote), names without a namespace prefix.
        static func attributes(_ bytes: ArraySlice<UInt8>) -> [String: String] {
            var result: [String: String] = [:]
            var k = bytes.startIndex
            while k < bytes.endIndex {
                while k < bytes.endIndex, bytes[k] == 0x20 || bytes[k] == 0x09 || bytes[k] == 0x0A || bytes[k] == 0x0D { k += 1 }
                let nameStart = k
                while k < bytes.endIndex, bytes[k] != UInt8(ascii: "=") { k += 1 }
                guard k < bytes.endIndex else { break }
                let attributeName = String(decoding: bytes[nameStart..<k], as: UTF8.self).trimmingCharacters(in: .whitespaces)
                k += 1
                while k < bytes.endIndex, bytes[k] == 0x20 { k += 1 }
                guard k < bytes.endIndex, bytes[k] == UInt8(ascii: "\"") || bytes[k] == UInt8(ascii: "'") else { break }
                let quote = bytes[k]
                k += 1
                let valueStart = k
                while k < bytes.endIndex, bytes[k] != quote { k += 1 }
                result[attributeName] = String(decoding: bytes[valueStart..<k], as: UTF8.self)
                k += 1
            }
            return result
        }

        /// `2024-12-08T15:07:56Z`, with optional fractional seconds and a `Z` or `±HH:MM` offset.
        static func instant(_ text: String) -> Int64? {
            let u = Array(text.utf8)
            func number(_ from: Int, _ count: Int) -> Int? {
                u.withUnsafeBytes { ISO8601Millis.digits($0, at: from, count: count) }
            }
            guard u.count >= 20, let year = number(0, 4), u[4] == UInt8(ascii: "-"), let month = number(5, 2),
                  u[7] == UInt8(ascii: "-"), let day = number(8, 2), u[10] == UInt8(ascii: "T"),
                  let hour = number(11, 2), u[13] == UInt8(ascii: ":"), let minute = number(14, 2),
                  u[16] == UInt8(ascii: ":"), let second = number(17, 2),
                  (1...12).contains(month), day >= 1, day <= ISO8601Millis.daysIn(month: month, year: year),
                  hour < 24, minute < 60, second < 61, year >= 1
            else { return nil }
            var k = 19
            var millis = 0
            if k < u.count, u[k] == UInt8(ascii: ".") {
                k += 1
                var digits = 0
                while k < u.count, u[k] >= 0x30, u[k] <= 0x39 {
                    if digits < 3 { millis = millis * 10 + Int(u[k] - 0x30) }
                    digits += 1
                    k += 1
                }
                guard digits > 0 else { return nil }
                if digits < 3 { for _ in digits..<3 { millis *= 10 } }
            }
            var offsetSeconds = 0
            if k < u.count, u[k] == UInt8(ascii: "Z"), k + 1 == u.count {
                offsetSeconds = 0
            } else if k + 6 == u.count, u[k] == UInt8(ascii: "+") || u[k] == UInt8(ascii: "-"),
                      let h = number(k + 1, 2), u[k + 3] == UInt8(ascii: ":"), let m = number(k + 4, 2), h < 24, m < 60 {
                offsetSeconds = (h * 3600 + m * 60) * (u[k] == UInt8(ascii: "-") ? -1 : 1)
            } else {
                return nil
            }
            let days = ISO8601Millis.days(fromCivil: Int64(year), month, day)
            let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
            return seconds * 1000 + Int64(millis)
        }

        /// `bytes` without leading and trailing ASCII whitespace (a leaf's text: a number or an instant).
        static func trimmed(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
            func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
            guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
            else { return [] }
            return bytes[first...last]
        }

        /// The five predefined entities (track names are user text).
        static func unescape(_ text: String) -> String {
            guard text.contains("&") else { return text }
            return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
    }
}

/// A route file that cannot be read: where, and what is wrong.
public struct GPXRouteError: Error, Hashable, CustomStringConvertible {
    /// The 1-based line at fault, when one is.
    public var line: Int?
    /// What is wrong, as a predicate of the file or line.
    public var problem: String

    public var description: String {
        if let line { return "line \(line) \(problem)" }
        return "the file \(problem)"
    }
}
