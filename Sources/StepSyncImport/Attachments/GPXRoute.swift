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

    /// The most bytes a route file may have: 64 MiB (Apple writes ≈ 330 bytes a point, so ≈ 200,000 points, 55 hours a
    /// point a second; a marathon's file is a few MB). A larger file is skipped by reason without being inflated (the
    /// zip's directory says its size; one that lies is cut at the limit), so a route is imported in bounded memory.
    public static let maxBytes = 64 << 20
    /// The most points a route may have: ``SeriesLimits/maxAnswerPoints`` (what a sink answers for one route).
    public static let maxPoints = SeriesLimits.maxAnswerPoints

    /// Parses one file's bytes.
    ///
    /// - Throws: ``GPXRouteError`` naming the line and the problem: not GPX, a point without a valid `lat`, `lon` or
    ///   `<time>`, a number that is not one, a tag that never ends, more than ``maxBytes`` bytes, more than
    ///   `maxPoints` points (``maxPoints``).
    public static func parse(_ bytes: [UInt8], maxPoints: Int = maxPoints) throws(GPXRouteError) -> GPXRoute {
        guard bytes.count <= maxBytes else {
            throw GPXRouteError(line: nil, problem: "is \(bytes.count) bytes, over the limit of \(maxBytes) for a route")
        }
        var parser = Parser(bytes: bytes)
        parser.maxPoints = maxPoints
        return try parser.run()
    }

    /// A forward scan over the bytes: tags, and the text of the leaf elements a point needs.
    ///
    /// The per-point path works on the bytes alone: a tag's local name is matched as bytes (``Tag``), `lat` and `lon`
    /// are found without collecting the other attributes, and numbers and instants are read from the leaf's bytes.
    /// Strings are only made for the track's name, for error messages, and in the (never Apple-written) case of a tag
    /// or attribute name with non-ASCII bytes, where the reader falls back to comparing `String`s as it always did.
    private struct Parser {
        let bytes: [UInt8]
        var i = 0
        var line = 1
        var sawGPX = false
        var name: String?
        var points: [Point] = []
        var maxPoints = GPXRoute.maxPoints
        /// The point being read, with the line its tag started on.
        var point: (Point, line: Int, hasTime: Bool)?
        /// The leaf element whose text is being collected.
        var leaf: Tag?
        var text: [UInt8] = []
        var inTrackName = false

        init(bytes: [UInt8]) { self.bytes = bytes }

        static let commentOpen = Array("<!--".utf8), commentClose = Array("-->".utf8)
        static let cdataOpen = Array("<![CDATA[".utf8), cdataClose = Array("]]>".utf8)

        /// The element names the reader acts on (local names, any namespace prefix dropped); `other` for the rest.
        enum Tag: String {
            case gpx, trkpt, ele, time, speed, course, hAcc, vAcc, name, other

            /// The tag a local name (`trkpt`, or the part after the last `:` of `gpx:trkpt`) is.
            init(_ name: ArraySlice<UInt8>) {
                guard name.allSatisfy({ $0 < 0x80 }) else {
                    // As `String`s (grapheme clusters and canonical equivalence), exactly as before.
                    var text = String(decoding: name, as: UTF8.self)
                    if let colon = text.lastIndex(of: ":") { text = String(text[text.index(after: colon)...]) }
                    self = Tag(rawValue: text) ?? .other
                    return
                }
                var local = name
                if let colon = name.lastIndex(of: UInt8(ascii: ":")) { local = name[(colon + 1)...] }
                switch local.count {
                case 3: self = Self.is(local, "gpx") ? .gpx : Self.is(local, "ele") ? .ele : .other
                case 4:
                    self = Self.is(local, "time") ? .time : Self.is(local, "hAcc") ? .hAcc : Self.is(local, "vAcc") ? .vAcc
                        : Self.is(local, "name") ? .name : .other
                case 5: self = Self.is(local, "trkpt") ? .trkpt : Self.is(local, "speed") ? .speed : .other
                case 6: self = Self.is(local, "course") ? .course : .other
                default: self = .other
                }
            }

            /// Whether `bytes` are `name`'s (ASCII) bytes.
            static func `is`(_ bytes: ArraySlice<UInt8>, _ name: StaticString) -> Bool {
                guard bytes.count == name.utf8CodeUnitCount else { return false }
                var k = 0
                for c in bytes {
                    if c != name.utf8Start[k] { return false }
                    k += 1
                }
                return true
            }
        }

        mutating func run() throws(GPXRouteError) -> GPXRoute {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
            let count = bytes.count
            while i < count {
                if bytes[i] == UInt8(ascii: "<") {
                    try tag()
                    continue
                }
                // Text up to the next tag: count its lines, and keep it when a leaf or the track's name is open.
                let from = i
                while i < count, bytes[i] != UInt8(ascii: "<") {
                    if bytes[i] == 0x0A { line += 1 }
                    i += 1
                }
                if leaf != nil || inTrackName { text.append(contentsOf: bytes[from..<i]) }
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
            var from = i + 1, to = j
            i = j + 1
            let closing = from < to && bytes[from] == UInt8(ascii: "/")
            let selfClosing = from < to && bytes[to - 1] == UInt8(ascii: "/")
            if closing { from += 1 }
            if selfClosing, from < to { to -= 1 }
            var nameEnd = from
            while nameEnd < to, !Self.isSpace(bytes[nameEnd]) { nameEnd += 1 }
            let tag = Tag(bytes[from..<nameEnd])
            if closing {
                try end(tag, line: start)
            } else {
                try begin(tag, attributes: nameEnd..<to, line: start)
                if selfClosing { try end(tag, line: start) }
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

        mutating func begin(_ tag: Tag, attributes: Range<Int>, line: Int) throws(GPXRouteError) {
            switch tag {
            case .gpx:
                sawGPX = true
            case .trkpt:
                guard point == nil else { throw GPXRouteError(line: line, problem: "has a <trkpt> inside a <trkpt>") }
                let (latText, lonText) = latitudeAndLongitude(attributes)
                guard let lat = latText.flatMap(Self.number), (-90...90).contains(lat) else {
                    throw GPXRouteError(line: line, problem: "has a <trkpt> without a latitude (lat) within −90…90")
                }
                guard let lon = lonText.flatMap(Self.number), (-180...180).contains(lon) else {
                    throw GPXRouteError(line: line, problem: "has a <trkpt> without a longitude (lon) within −180…180")
                }
                point = (Point(timeMs: 0, latitude: lat, longitude: lon), line, false)
            case .ele, .time, .speed, .course, .hAcc, .vAcc:
                if point != nil {
                    leaf = tag
                    text.removeAll(keepingCapacity: true)
                }
            case .name:
                if point == nil, name == nil {
                    inTrackName = true
                    text.removeAll(keepingCapacity: true)
                }
            case .other:
                break
            }
        }

        mutating func end(_ tag: Tag, line: Int) throws(GPXRouteError) {
            if inTrackName, tag == .name {
                name = Self.unescape(String(decoding: text, as: UTF8.self)).trimmingCharacters(in: .whitespacesAndNewlines)
                inTrackName = false
                return
            }
            if let leafTag = leaf, tag == leafTag, var current = point {
                let value = Self.trimmed(text)
                leaf = nil
                if tag == .time {
                    guard let ms = Self.instant(value), ms >= Instants.min, ms <= Instants.max else {
                        let shown = InputExcerpt.of(String(decoding: value, as: UTF8.self))
                        throw GPXRouteError(line: line, problem: "has a <time> \(shown) that is not an ISO-8601 instant")
                    }
                    current.0.timeMs = ms
                    current.hasTime = true
                } else {
                    guard let number = Self.number(value), number.isFinite else {
                        let shown = InputExcerpt.of(String(decoding: value, as: UTF8.self))
                        throw GPXRouteError(line: line, problem: "has an <\(tag.rawValue)> \(shown) that is not a number")
                    }
                    switch tag {
                    case .ele: current.0.elevation = number
                    case .speed: current.0.speed = number
                    case .course: current.0.course = number
                    case .hAcc: current.0.horizontalAccuracy = number
                    default: current.0.verticalAccuracy = number
                    }
                }
                point = current
                return
            }
            if tag == .trkpt, let current = point {
                guard current.hasTime else {
                    throw GPXRouteError(line: current.line, problem: "has a <trkpt> without a <time>")
                }
                guard points.count < maxPoints else {
                    throw GPXRouteError(line: current.line, problem: "is a point past the limit of \(maxPoints) for a route")
                }
                points.append(current.0)
                point = nil
            }
        }

        /// The values of a tag's `lat` and `lon` attributes (either quote; the last of each when repeated), read from
        /// its `name="value"` pairs (`range`: the bytes after the tag name) without collecting the others.
        func latitudeAndLongitude(_ range: Range<Int>) -> (lat: ArraySlice<UInt8>?, lon: ArraySlice<UInt8>?) {
            var lat: ArraySlice<UInt8>?, lon: ArraySlice<UInt8>?
            var k = range.lowerBound
            let end = range.upperBound
            while k < end {
                while k < end, Self.isSpace(bytes[k]) { k += 1 }
                let nameStart = k
                while k < end, bytes[k] != UInt8(ascii: "=") { k += 1 }
                guard k < end else { break }
                let attributeName = bytes[nameStart..<k]
                k += 1
                while k < end, bytes[k] == 0x20 { k += 1 }
                guard k < end, bytes[k] == UInt8(ascii: "\"") || bytes[k] == UInt8(ascii: "'") else { break }
                let quote = bytes[k]
                k += 1
                let valueStart = k
                while k < end, bytes[k] != quote { k += 1 }
                switch Self.attribute(attributeName) {
                case .lat: lat = bytes[valueStart..<k]
                case .lon: lon = bytes[valueStart..<k]
                case nil: break
                }
                k += 1
            }
            return (lat, lon)
        }

        /// Whether an attribute's name, trimmed of spaces and tabs (`CharacterSet.whitespaces`), is `lat` or `lon`.
        static func attribute(_ name: ArraySlice<UInt8>) -> Coordinate? {
            guard name.allSatisfy({ $0 < 0x80 }) else {
                // Unicode spaces (U+00A0, U+3000, …) trim as well: decide as `String`s, exactly as before.
                let text = String(decoding: name, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                return text == "lat" ? .lat : text == "lon" ? .lon : nil
            }
            var from = name.startIndex, to = name.endIndex
            while from < to, name[from] == 0x20 || name[from] == 0x09 { from += 1 }
            while to > from, name[to - 1] == 0x20 || name[to - 1] == 0x09 { to -= 1 }
            guard to - from == 3, name[from] == UInt8(ascii: "l") else { return nil }
            if name[from + 1] == UInt8(ascii: "a"), name[from + 2] == UInt8(ascii: "t") { return .lat }
            if name[from + 1] == UInt8(ascii: "o"), name[from + 2] == UInt8(ascii: "n") { return .lon }
            return nil
        }

        /// The two attributes of a `<trkpt>`.
        enum Coordinate { case lat, lon }

        /// A number as `Double(String)` reads it.
        ///
        /// Plain decimals of at most 15 significant digits and 22 decimals (every number Apple writes) are computed
        /// exactly here: the digits and the power of ten are both exact doubles, so one correctly rounded division
        /// gives the correctly rounded value (Clinger's fast path), which is what `strtod` returns. Anything else
        /// (exponents, `inf`, hex, a `+`, more digits) goes to `Double(String)`.
        static func number(_ text: ArraySlice<UInt8>) -> Double? {
            var k = text.startIndex
            let end = text.endIndex
            let negative = k < end && text[k] == UInt8(ascii: "-")
            if negative { k += 1 }
            var mantissa: UInt64 = 0
            var digits = 0, decimals = 0
            var fast = k < end
            var sawPoint = false
            while fast, k < end {
                let c = text[k]
                if c >= 0x30, c <= 0x39 {
                    if mantissa != 0 || c != 0x30 { digits += 1 }
                    mantissa = mantissa &* 10 &+ UInt64(c &- 0x30)
                    if sawPoint { decimals += 1 }
                } else if c == UInt8(ascii: "."), !sawPoint {
                    sawPoint = true
                    // A digit before the point and one after: `1.`, `.5` are left to `strtod`.
                    fast = k > text.startIndex + (negative ? 1 : 0) && k + 1 < end
                } else {
                    fast = false
                }
                k += 1
            }
            if fast, digits <= 15, decimals <= 22 {
                let value = Double(mantissa) / powersOfTen[decimals]
                return negative ? -value : value
            }
            return Double(String(decoding: text, as: UTF8.self))
        }

        /// 10⁰ … 10²², each exact as a `Double`.
        static let powersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
                                            1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

        /// `2024-12-08T15:07:56Z`, with optional fractional seconds and a `Z` or `±HH:MM` offset.
        static func instant(_ u: ArraySlice<UInt8>) -> Int64? {
            let base = u.startIndex
            let count = u.count
            func byte(_ k: Int) -> UInt8 { u[base + k] }
            func number(_ from: Int, _ digits: Int) -> Int? {
                var value = 0
                for k in from..<(from + digits) {
                    let c = byte(k)
                    guard c >= 0x30, c <= 0x39 else { return nil }
                    value = value * 10 + Int(c - 0x30)
                }
                return value
            }
            guard count >= 20, let year = number(0, 4), byte(4) == UInt8(ascii: "-"), let month = number(5, 2),
                  byte(7) == UInt8(ascii: "-"), let day = number(8, 2), byte(10) == UInt8(ascii: "T"),
                  let hour = number(11, 2), byte(13) == UInt8(ascii: ":"), let minute = number(14, 2),
                  byte(16) == UInt8(ascii: ":"), let second = number(17, 2),
                  (1...12).contains(month), day >= 1, day <= ISO8601Millis.daysIn(month: month, year: year),
                  hour < 24, minute < 60, second < 61, year >= 1
            else { return nil }
            var k = 19
            var millis = 0
            if k < count, byte(k) == UInt8(ascii: ".") {
                k += 1
                var digits = 0
                while k < count, byte(k) >= 0x30, byte(k) <= 0x39 {
                    if digits < 3 { millis = millis * 10 + Int(byte(k) - 0x30) }
                    digits += 1
                    k += 1
                }
                guard digits > 0 else { return nil }
                if digits < 3 { for _ in digits..<3 { millis *= 10 } }
            }
            var offsetSeconds = 0
            if k < count, byte(k) == UInt8(ascii: "Z"), k + 1 == count {
                offsetSeconds = 0
            } else if k + 6 == count, byte(k) == UInt8(ascii: "+") || byte(k) == UInt8(ascii: "-"),
                      let h = number(k + 1, 2), byte(k + 3) == UInt8(ascii: ":"), let m = number(k + 4, 2), h < 24, m < 60 {
                offsetSeconds = (h * 3600 + m * 60) * (byte(k) == UInt8(ascii: "-") ? -1 : 1)
            } else {
                return nil
            }
            let days = ISO8601Millis.days(fromCivil: Int64(year), month, day)
            let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
            return seconds * 1000 + Int64(millis)
        }

        static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

        /// `bytes` without leading and trailing ASCII whitespace (a leaf's text: a number or an instant).
        static func trimmed(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
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
