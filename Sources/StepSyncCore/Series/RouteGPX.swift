import Foundation

/// A workout route as GPX 1.1 the way Apple Health writes its `workout-routes/*.gpx` (`application/gpx+xml`), the
/// answer of a sink's `GET /workouts/{uuid}/route?format=gpx`:
///
/// ```xml
/// <?xml version="1.0" encoding="UTF-8"?>
/// <gpx version="1.1" creator="stepsync" xmlns="http://www.topografix.com/GPX/1/1" …>
///  <metadata>
///   <time>2025-06-01T17:05:00Z</time>
///  </metadata>
///  <trk>
///   <name>route_2025-06-01_7.05pm</name>
///   <trkseg>
///    <trkpt lon="13.404954" lat="52.520008"><ele>34.5</ele><time>2025-06-01T17:05:00Z</time><extensions><speed>2.87</speed><course>0.25</course><hAcc>3.1</hAcc><vAcc>2.4</vAcc></extensions></trkpt>
///   </trkseg>
///  </trk>
/// </gpx>
/// ```
///
/// One `<trk>` of one `<trkseg>`, a `<trkpt lon lat>` (lon first, as Apple writes it) a point, with `<ele>` when the
/// point has an elevation, `<time>` in UTC (whole seconds as `…:56Z`, like Apple's, otherwise with milliseconds), and
/// `<extensions>` holding whichever of `speed`, `course`, `hAcc`, `vAcc` the point has (none: no `<extensions>`).
/// The metadata time is the first point's (Apple's is the export's). The track's name is the route file's name
/// without its folder and `.gpx`, else `Route <workout uuid>`. Numbers are the shortest text that reads back as the
/// same double, so a GPX reader gets every point back exactly.
public enum RouteGPX {
    /// The media type of the answer.
    public static let contentType = "application/gpx+xml"

    /// The GPX document of `route`, as UTF-8 (``head(workout:file:firstTimeMs:)``, ``appendPoints(_:to:)``,
    /// ``tail``: the pieces a sink streams part by part).
    public static func document(_ route: AssembledRoute) -> [UInt8] {
        var out = head(workout: route.workout, file: route.file, firstTimeMs: route.points.first?.timeMs)
        out.reserveCapacity(out.count + route.points.count * 220 + 32)
        appendPoints(route.points, to: &out)
        out.append(contentsOf: tail)
        return out
    }

    /// The document up to its first point: declaration, `<gpx>`, `<metadata>` with `firstTimeMs` (none: no
    /// metadata), the track's name and `<trkseg>`.
    public static func head(workout: UUID, file: String?, firstTimeMs: Int64?) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(640)
        out.append(contentsOf: """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="stepsync" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">

            """.utf8)
        if let firstTimeMs {
            out.append(contentsOf: " <metadata>\n  <time>".utf8)
            appendTime(firstTimeMs, to: &out)
            out.append(contentsOf: "</time>\n </metadata>\n".utf8)
        }
        out.append(contentsOf: " <trk>\n  <name>".utf8)
        appendEscaped(trackName(workout: workout, file: file), to: &out)
        out.append(contentsOf: "</name>\n  <trkseg>\n".utf8)
        return out
    }

    /// Between the points of two route files of one workout: the segment ends and the next begins (one `<trkseg>` a
    /// file, so a GPX reader does not draw the gap between them as a path).
    public static let segmentBreak = Array("  </trkseg>\n  <trkseg>\n".utf8)

    /// The document's end after the last point.
    public static let tail = Array("  </trkseg>\n </trk>\n</gpx>\n".utf8)

    /// Appends one `<trkpt>` line per point.
    public static func appendPoints(_ points: some Sequence<RoutePoint>, to out: inout [UInt8]) {
        for p in points {
            out.append(contentsOf: #"   <trkpt lon=""#.utf8)
            appendDecimal(p.longitude, to: &out)
            out.append(contentsOf: #"" lat=""#.utf8)
            appendDecimal(p.latitude, to: &out)
            out.append(contentsOf: #"">"#.utf8)
            if let elevation = p.elevation { element("ele", elevation, to: &out) }
            out.append(contentsOf: "<time>".utf8)
            appendTime(p.timeMs, to: &out)
            out.append(contentsOf: "</time>".utf8)
            if p.speed != nil || p.course != nil || p.horizontalAccuracy != nil || p.verticalAccuracy != nil {
                out.append(contentsOf: "<extensions>".utf8)
                if let v = p.speed { element("speed", v, to: &out) }
                if let v = p.course { element("course", v, to: &out) }
                if let v = p.horizontalAccuracy { element("hAcc", v, to: &out) }
                if let v = p.verticalAccuracy { element("vAcc", v, to: &out) }
                out.append(contentsOf: "</extensions>".utf8)
            }
            out.append(contentsOf: "</trkpt>\n".utf8)
        }
    }

    /// The track's name: the file's name without folder and extension, else `Route <workout uuid>`.
    static func trackName(_ route: AssembledRoute) -> String { trackName(workout: route.workout, file: route.file) }

    /// The track's name of `workout`'s route in `file`.
    static func trackName(workout: UUID, file: String?) -> String {
        if let file, let name = file.split(separator: "/").last, !name.isEmpty {
            return name.hasSuffix(".gpx") ? String(name.dropLast(4)) : String(name)
        }
        return "Route \(workout.uuidString)"
    }

    /// `<name>value</name>`.
    private static func element(_ name: StaticString, _ value: Double, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "<"))
        out.append(name.utf8Start, count: name.utf8CodeUnitCount)
        out.append(UInt8(ascii: ">"))
        appendDecimal(value, to: &out)
        out.append(contentsOf: "</".utf8)
        out.append(name.utf8Start, count: name.utf8CodeUnitCount)
        out.append(UInt8(ascii: ">"))
    }

    /// `value` as a plain decimal (`xsd:decimal`, which GPX's numbers are: `0.00003`, never `3e-05`), the shortest
    /// that reads back as the same double.
    static func appendDecimal(_ value: Double, to out: inout [UInt8]) {
        var text: [UInt8] = []
        JSONBytes.appendNumber(value, to: &text)
        guard let e = text.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
              let exponent = Int(String(decoding: text[(e + 1)...], as: UTF8.self)) else {
            out.append(contentsOf: text)
            return
        }
        var mantissa = text[..<e]
        if mantissa.first == UInt8(ascii: "-") {
            out.append(UInt8(ascii: "-"))
            mantissa = mantissa.dropFirst()
        }
        let point = mantissa.firstIndex(of: UInt8(ascii: ".")).map { $0 - mantissa.startIndex } ?? mantissa.count
        let digits = mantissa.filter { $0 != UInt8(ascii: ".") }
        let position = point + exponent // where the decimal point goes among `digits`
        let zero = UInt8(ascii: "0")
        if position <= 0 {
            out.append(contentsOf: [zero, UInt8(ascii: ".")])
            out.append(contentsOf: repeatElement(zero, count: -position))
            out.append(contentsOf: digits)
        } else if position >= digits.count {
            out.append(contentsOf: digits)
            out.append(contentsOf: repeatElement(zero, count: position - digits.count))
        } else {
            out.append(contentsOf: digits[..<position])
            out.append(UInt8(ascii: "."))
            out.append(contentsOf: digits[position...])
        }
    }

    /// `2025-06-01T17:05:00Z` for a whole second (as Apple writes it), else `2025-06-01T17:05:00.250Z`.
    private static func appendTime(_ ms: Int64, to out: inout [UInt8]) {
        let text = ISO8601Millis.format(ms)
        if ms % 1000 == 0, text.hasSuffix(".000Z") {
            out.append(contentsOf: text.utf8.dropLast(5))
            out.append(UInt8(ascii: "Z"))
        } else {
            out.append(contentsOf: text.utf8)
        }
    }

    /// Text with the XML metacharacters escaped, and every character XML 1.0 forbids (§2.2 `Char`: the C0 controls
    /// but tab, LF and CR; U+FFFE and U+FFFF) replaced by U+FFFD, so the document stays well-formed whatever a
    /// client stored as the route's file name. (Lone surrogates cannot occur in a Swift `String`.)
    static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x26: out.append(contentsOf: "&amp;".utf8)
            case 0x3C: out.append(contentsOf: "&lt;".utf8)
            case 0x3E: out.append(contentsOf: "&gt;".utf8)
            case 0x22: out.append(contentsOf: "&quot;".utf8)
            case 0x27: out.append(contentsOf: "&apos;".utf8)
            case 0x09, 0x0A, 0x0D: out.append(UInt8(scalar.value))
            case 0..<0x20, 0xFFFE, 0xFFFF: out.append(contentsOf: "\u{FFFD}".utf8)
            default: out.append(contentsOf: String(scalar).utf8)
            }
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends `count` bytes from `start` (a `StaticString`'s).
    fileprivate mutating func append(_ start: UnsafePointer<UInt8>, count: Int) {
        append(contentsOf: UnsafeBufferPointer(start: start, count: count))
    }
}
