import Foundation
import StepSyncCore
#if canImport(StepSyncImport)
@testable import StepSyncImport
#endif

/// The oracle of the `attachments` fuzz target: byte 0 picks the reader (even: a workout route, `GPXRoute`; odd: an
/// ECG file, `ElectrocardiogramCSV`), the rest is the file. Whatever the bytes:
/// - a refusal is short and names a line that exists in the input (or none);
/// - an accepted route has every point inside −90…90 / −180…180 and inside ``Instants``, and written out again as GPX
///   by ``gpx(_:)`` reads back as the same route;
/// - an accepted ECG has finite voltages (at least one), a positive rate and an instant inside ``Instants``, and written
///   out again by ``csv(_:)`` reads back as the same recording.
enum AttachmentsOracle {
    static func problems(_ data: UnsafeRawBufferPointer) -> [String] {
        guard let selector = data.first else { return [] }
        let file = Array(data.dropFirst())
        let lines = file.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        return selector % 2 == 0 ? routeProblems(file, lines: lines) : ecgProblems(file, lines: lines)
    }

    static func routeProblems(_ file: [UInt8], lines: Int) -> [String] {
        let route: GPXRoute
        do {
            route = try GPXRoute.parse(file)
        } catch {
            return refusalProblems("\(error)", line: error.line, lines: lines)
        }
        var problems: [String] = []
        for (k, point) in route.points.enumerated() {
            if !(-90...90).contains(point.latitude) || !(-180...180).contains(point.longitude) {
                problems.append("point \(k) outside the globe: \(point.latitude), \(point.longitude)")
            }
            if point.timeMs < Instants.min || point.timeMs > Instants.max { problems.append("point \(k) at \(point.timeMs)") }
        }
        guard problems.isEmpty else { return problems }
        do {
            let again = try GPXRoute.parse(Array(gpx(route).utf8))
            if again != route { problems.append("written out and read again: \(again.points.count) points, not the same") }
        } catch {
            problems.append("written out, it no longer reads: \(error)")
        }
        return problems
    }

    static func ecgProblems(_ file: [UInt8], lines: Int) -> [String] {
        let ecg: ElectrocardiogramCSV
        do {
            ecg = try ElectrocardiogramCSV.parse(file)
        } catch {
            return refusalProblems("\(error)", line: error.line, lines: lines)
        }
        var problems: [String] = []
        if ecg.microvolts.isEmpty || !ecg.microvolts.allSatisfy(\.isFinite) { problems.append("voltages: \(ecg.microvolts.prefix(4))") }
        if !(ecg.sampleRateHz > 0) { problems.append("rate \(ecg.sampleRateHz)") }
        if ecg.recordedMs < Instants.min || ecg.recordedMs > Instants.max { problems.append("recorded at \(ecg.recordedMs)") }
        guard problems.isEmpty else { return problems }
        do {
            let again = try ElectrocardiogramCSV.parse(Array(csv(ecg).utf8))
            if again != ecg { problems.append("written out and read again, not the same: \(ImportFuzzText.head("\(again)"))") }
        } catch {
            problems.append("written out, it no longer reads: \(error)")
        }
        return problems
    }

    static func refusalProblems(_ message: String, line: Int?, lines: Int) -> [String] {
        var problems: [String] = []
        if message.unicodeScalars.count > 400 { problems.append("refusal of \(message.unicodeScalars.count) scalars") }
        if let line, !(1...lines).contains(line) { problems.append("refusal names line \(line) of \(lines)") }
        return problems
    }

    /// A route as minimal GPX, every number in Swift's shortest round-tripping form.
    static func gpx(_ route: GPXRoute) -> String {
        var out = "<gpx version=\"1.1\"><trk>"
        if let name = route.name {
            out += "<name>" + name.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;") + "</name>"
        }
        out += "<trkseg>\n"
        for p in route.points {
            out += "<trkpt lat=\"\(p.latitude)\" lon=\"\(p.longitude)\"><time>\(ISO8601Millis.format(p.timeMs))</time>"
            if let e = p.elevation { out += "<ele>\(e)</ele>" }
            out += "<extensions>"
            if let v = p.speed { out += "<speed>\(v)</speed>" }
            if let v = p.course { out += "<course>\(v)</course>" }
            if let v = p.horizontalAccuracy { out += "<hAcc>\(v)</hAcc>" }
            if let v = p.verticalAccuracy { out += "<vAcc>\(v)</vAcc>" }
            out += "</extensions></trkpt>\n"
        }
        return out + "</trkseg></trk></gpx>\n"
    }

    /// A recording as an Apple-shaped CSV, values quoted (RFC 4180), voltages in Swift's shortest form.
    static func csv(_ ecg: ElectrocardiogramCSV) -> String {
        func quoted(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        let seconds = Int64((Double(ecg.recordedMs) / 1000).rounded(.down))
        let local = ISO8601Millis.format((seconds + Int64(ecg.utcOffsetSeconds)) * 1000)
        let offset = abs(Int(ecg.utcOffsetSeconds))
        let zone = (ecg.utcOffsetSeconds < 0 ? "-" : "+") + String(format: "%02d%02d", offset / 3600, offset % 3600 / 60)
        var lines = ["Recorded Date,\(local.prefix(10)) \(local.dropFirst(11).prefix(8)) \(zone)",
                     "Sample Rate,\(plain(ecg.sampleRateHz)) hertz"]
        for (key, value) in [("Classification", ecg.classification), ("Symptoms", ecg.symptoms),
                             ("Software Version", ecg.softwareVersion), ("Device", ecg.device), ("Lead", ecg.lead),
                             ("Unit", ecg.unit)] {
            if let value { lines.append("\(key),\(quoted(value))") }
        }
        lines.append("")
        lines += ecg.microvolts.map(plain)
        return lines.joined(separator: "\n") + "\n"
    }

    /// `value` as a plain decimal (no exponent: Apple never writes one), exact, so it reads back as the same Double.
    static func plain(_ value: Double) -> String {
        var text = String(format: "%.1100f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
