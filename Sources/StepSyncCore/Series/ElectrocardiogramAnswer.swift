import Foundation

/// The JSON a sink answers about ECG recordings (`GET /electrocardiograms`, `GET /electrocardiograms/{uuid}`).
///
/// A recording is described by its part 0 (``ElectrocardiogramPart``: every part holds the header):
///
/// ```json
/// {"uuid":"UUID","start":"2025-06-05T08:07:00.000Z","end":"2025-06-05T08:07:30.000Z","utcOffsetSeconds":7200,
///  "classification":"Sinusrhythmus","symptoms":null,"softwareVersion":"1.70","device":"Watch6,2",
///  "sampleRateHz":512,"lead":"Lead I","unit":"µV","samples":15360}
/// ```
///
/// `end` is the instant after the last voltage (`start` + `samples` ÷ `sampleRateHz`, to the millisecond), `samples`
/// the recording's voltage count, and a header value the export did not have is `null`. One recording adds
/// `"microvolts":[…],"complete":…,"missingParts":[…],"truncated":…` (the voltages of the parts present, in order; at
/// most ``SeriesLimits/maxAnswerVoltages``, `truncated` when the recording has more).
public enum ElectrocardiogramAnswer {
    /// One recording's summary (its uuid and header).
    public struct Summary: Hashable, Sendable {
        /// The recording's uuid (part 0's).
        public var recording: UUID
        /// Its header.
        public var header: ElectrocardiogramHeader

        /// Creates a summary.
        public init(recording: UUID, header: ElectrocardiogramHeader) {
            self.recording = recording
            self.header = header
        }

        /// The summary of the recording `part` belongs to.
        public init(_ part: ElectrocardiogramPart) {
            self.init(recording: part.recording, header: part.header)
        }

        /// The summary of the recording whose part 0 has these `details`, read without its voltages (the
        /// `microvolts` array is cut out before decoding: a list of recordings needs only their headers); `nil` when
        /// the details are not a readable ECG part, or are another part's.
        public init?(partZeroDetails details: String) {
            var bytes = Array(details.utf8)
            let key = Array(#""microvolts":["#.utf8)
            if let start = Self.firstIndex(of: key, in: bytes),
               let close = bytes[(start + key.count)...].firstIndex(of: UInt8(ascii: "]")) {
                bytes.removeSubrange((start + key.count)..<close)
            }
            // The cut is a shortcut for the details the sink writes; where it does not read (a key spelled with escapes,
            // the same bytes inside another member), the whole details are read, checked like any part.
            guard let part = (try? ElectrocardiogramPart(details: String(decoding: bytes, as: UTF8.self), voltagesCut: true))
                    ?? (try? ElectrocardiogramPart(details: details)),
                  part.index == 0 else { return nil }
            self.init(part)
        }

        private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
            guard let head = needle.first, haystack.count >= needle.count else { return nil }
            var i = 0
            while i + needle.count <= haystack.count {
                if haystack[i] == head, haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
                i += 1
            }
            return nil
        }
    }

    /// `{"electrocardiograms":[…]}` of `summaries`, in start order (then uuid), whatever order they come in.
    public static func list(_ summaries: [Summary]) -> [UInt8] {
        let sorted = summaries.sorted {
            ($0.header.recordedMs, $0.recording.uuidString) < ($1.header.recordedMs, $1.recording.uuidString)
        }
        var out: [UInt8] = []
        out.reserveCapacity(32 + sorted.count * 320)
        out.append(contentsOf: #"{"electrocardiograms":["#.utf8)
        for (i, summary) in sorted.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "{"))
            appendSummaryMembers(summary, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }

    /// One recording: its summary, then `microvolts`, `complete`, `missingParts` and `truncated` (``recordingHead(_:)``,
    /// ``appendVoltages(_:after:to:)``, ``recordingTail(missingParts:truncated:)``: the pieces a sink streams part
    /// by part).
    public static func recording(_ ecg: AssembledElectrocardiogram, truncated: Bool = false) -> [UInt8] {
        var out = recordingHead(Summary(recording: ecg.recording, header: ecg.header))
        out.reserveCapacity(out.count + ecg.microvolts.count * 9 + 64)
        appendVoltages(ecg.microvolts, after: 0, to: &out)
        out.append(contentsOf: recordingTail(missingParts: ecg.missingParts, truncated: truncated))
        return out
    }

    /// A recording's answer up to its first voltage: `{` the summary's members `,"microvolts":[`.
    public static func recordingHead(_ summary: Summary) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(512)
        appendSummaryMembers(summary, to: &out)
        out.append(UInt8(ascii: ","))
        JSONBytes.key("microvolts", to: &out)
        out.append(UInt8(ascii: "["))
        return out
    }

    /// Appends `voltages` to the `microvolts` array, `written` of which are already out (a comma before each but the
    /// array's first).
    public static func appendVoltages(_ voltages: some Sequence<Double>, after written: Int, to out: inout [UInt8]) {
        var first = written == 0
        for value in voltages {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONBytes.appendNumber(value, to: &out)
        }
    }

    /// The answer's end after the last voltage: `],"complete":…,"missingParts":[…],"truncated":…}`.
    public static func recordingTail(missingParts: [Int], truncated: Bool) -> [UInt8] {
        var out: [UInt8] = Array("],".utf8)
        JSONBytes.key("complete", to: &out)
        out.append(contentsOf: (missingParts.isEmpty ? "true" : "false").utf8)
        out.append(UInt8(ascii: ","))
        JSONBytes.key("missingParts", to: &out)
        out.append(UInt8(ascii: "["))
        for (i, index) in missingParts.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONBytes.appendInteger(Int64(index), to: &out)
        }
        out.append(contentsOf: "],".utf8)
        JSONBytes.key("truncated", to: &out)
        out.append(contentsOf: (truncated ? "true" : "false").utf8)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The members of a summary object (without braces).
    static func appendSummaryMembers(_ summary: Summary, to out: inout [UInt8]) {
        let header = summary.header
        JSONBytes.member("uuid", string: summary.recording.uuidString, to: &out)
        JSONBytes.member("start", string: ISO8601Millis.format(header.recordedMs), to: &out)
        JSONBytes.member("end", string: ISO8601Millis.format(end(of: header)), to: &out)
        SeriesDetails.integer("utcOffsetSeconds", Int64(header.utcOffsetSeconds), to: &out)
        optional("classification", header.classification, to: &out)
        optional("symptoms", header.symptoms, to: &out)
        optional("softwareVersion", header.softwareVersion, to: &out)
        optional("device", header.device, to: &out)
        JSONBytes.member("sampleRateHz", number: header.sampleRateHz, to: &out)
        optional("lead", header.lead, to: &out)
        optional("unit", header.unit, to: &out)
        SeriesDetails.integer("samples", Int64(header.voltageCount), to: &out)
    }

    /// The instant after the last voltage, within ``Instants`` whatever the stored header says (a part's details come
    /// from a client: a count and a rate that put it past 9999 must not trap).
    static func end(of header: ElectrocardiogramHeader) -> Int64 {
        let rate = header.sampleRateHz
        guard rate > 0, rate.isFinite else { return header.recordedMs }
        let end = Double(header.recordedMs) + (Double(header.voltageCount) / rate * 1000).rounded()
        guard end.isFinite, end < Double(Instants.max) else { return Instants.max }
        return max(header.recordedMs, Int64(end))
    }

    /// `"key":"text"` or `"key":null`.
    private static func optional(_ name: StaticString, _ text: String?, to out: inout [UInt8]) {
        if let text {
            JSONBytes.member(name, string: text, to: &out)
        } else {
            JSONBytes.separator(&out)
            JSONBytes.key(name, to: &out)
            out.append(contentsOf: "null".utf8)
        }
    }
}
