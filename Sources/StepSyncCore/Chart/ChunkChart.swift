import Foundation

/// A picture of the interval ledger as SVG: time across, one mark per interval spanning its range, as tall as its
/// share of the layering limit (the larger of steps ÷ step limit and samples ÷ sample limit), coloured by status,
/// oversize intervals outlined and flagged, the limit drawn as a dashed line at 100 %.
///
/// Pure and deterministic (no clock, no locale): the same ledger gives the same bytes, which the tests compare.
/// Readable from one day (hour ticks) to ten years (year ticks, ≈ 5,000 marks of ≥ 0.25 px, each with a `<title>`
/// tooltip); the size is about 220 bytes a mark. Times are shown in the chart's zone (UTC by default; `chunks --svg`
/// passes `--tz`), which the caption names.
///
/// ```swift
/// let svg = ChunkChart(intervals: try store.intervals(of: .stepCount), limits: .init(maxSteps: 10_000, maxSamples: 5_000)).svg()
/// ```
public struct ChunkChart: Sendable {
    /// The limits the intervals were layered with; the chart's 100 % line.
    public struct Limits: Hashable, Sendable {
        /// The step (or sum) limit of an interval.
        public var maxSteps: Double
        /// The sample limit of an interval.
        public var maxSamples: Int

        /// Limits; both must be positive.
        public init(maxSteps: Double, maxSamples: Int) {
            precondition(maxSteps > 0 && maxSamples > 0, "limits must be positive")
            self.maxSteps = maxSteps
            self.maxSamples = maxSamples
        }
    }

    /// The intervals, in the order they are drawn (later ones on top).
    public let intervals: [SyncInterval]
    /// The limits drawn.
    public let limits: Limits
    /// The picture's size in pixels.
    public let width: Int, height: Int
    /// The zone the times are shown in, and its name for the caption.
    public let timeZone: TimeZone, zoneName: String

    /// Margins of the plot area.
    private static let left = 56.0, right = 16.0, top = 40.0, bottom = 40.0
    /// The highest share drawn; taller oversize marks are cut there and flagged.
    static let maxShare = 3.0

    /// A chart of `intervals` against `limits`, `width` × `height` pixels, times in `timeZone` (named `zoneName`).
    public init(intervals: [SyncInterval], limits: Limits, width: Int = 1200, height: Int = 420,
                timeZone: TimeZone = TimeZone(identifier: "UTC")!, zoneName: String = "UTC") {
        self.intervals = intervals
        self.limits = limits
        self.width = max(320, width)
        self.height = max(200, height)
        self.timeZone = timeZone
        self.zoneName = zoneName
    }

    /// `ms` as wall-clock milliseconds in the chart's zone.
    func local(_ ms: Int64) -> Int64 {
        let seconds = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(ms) / 1000))
        return ms + Int64(seconds) * 1000
    }

    /// The instant whose wall-clock time in the chart's zone is `wall` (the offset read at that moment).
    func instant(wall: Int64) -> Int64 {
        let guess = wall - (local(wall) - wall)
        return wall - (local(guess) - guess)
    }

    /// The colour of a status: synced green, pending grey, in flight blue, failed red.
    public static func colour(of status: IntervalStatus) -> String {
        switch status {
        case .synced: "rgb(46,157,87)"
        case .pending: "rgb(154,165,180)"
        case .inFlight: "rgb(47,111,222)"
        case .failed: "rgb(192,57,43)"
        }
    }

    /// An interval's share of the limits: the larger of steps ÷ `maxSteps` and samples ÷ `maxSamples` for step
    /// counts; samples ÷ `maxSamples` for every other type (the step limit is not theirs: an energy interval's
    /// kilocalories against 10,000 steps would read 300 %).
    public func share(of interval: SyncInterval) -> Double {
        let bySamples = Double(interval.samples) / Double(limits.maxSamples)
        guard interval.kind == .samples, interval.type == .stepCount else { return bySamples }
        return max(interval.steps / limits.maxSteps, bySamples)
    }

    /// The SVG document.
    public func svg() -> String {
        var out = ""
        out.reserveCapacity(2_048 + intervals.count * 230)
        let w = Double(width), h = Double(height)
        out += #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(width)" height="\#(height)" viewBox="0 0 \#(width) \#(height)" font-family="system-ui,sans-serif" font-size="12">"#
        out += "\n" + #"<rect width="100%" height="100%" fill="rgb(255,255,255)"/>"# + "\n"
        let counts = Dictionary(grouping: intervals, by: \.status).mapValues(\.count)
        let oversize = intervals.filter(\.oversize).count
        out += #"<text x="\#(Self.fixed(Self.left))" y="18" font-size="14" font-weight="600" fill="rgb(29,35,48)">"#
        out += Self.escaped("\(Self.number(intervals.count)) sync intervals") + "</text>\n"
        legend(&out, counts: counts, oversize: oversize)
        guard let first = intervals.map(\.range.start).min(), let last = intervals.map(\.range.end).max() else {
            out += #"<text x="\#(Self.fixed(w / 2))" y="\#(Self.fixed(h / 2))" text-anchor="middle" fill="rgb(95,107,122)">no intervals: run stepsync layer</text>"#
            return out + "\n</svg>\n"
        }
        let span = max(1, last - first)
        let plotW = w - Self.left - Self.right, plotH = h - Self.top - Self.bottom
        let highest = min(Self.maxShare, max(1.25, intervals.map(share(of:)).max() ?? 1))
        let yMax = (highest * 4).rounded(.up) / 4
        func x(_ ms: Int64) -> Double { Self.left + Double(ms - first) / Double(span) * plotW }
        func y(_ share: Double) -> Double { Self.top + plotH - min(share, yMax) / yMax * plotH }

        // Grid and share axis, every 25 % (every 50 % above 200 %).
        let stepShare = yMax > 2 ? 0.5 : 0.25
        var s = 0.0
        while s <= yMax + 1e-9 {
            let gy = Self.fixed(y(s))
            out += #"<line x1="\#(Self.fixed(Self.left))" x2="\#(Self.fixed(w - Self.right))" y1="\#(gy)" y2="\#(gy)" stroke="rgb(227,231,238)"/>"#
            out += #"<text x="\#(Self.fixed(Self.left - 6))" y="\#(Self.fixed(y(s) + 4))" text-anchor="end" fill="rgb(95,107,122)">\#(Int((s * 100).rounded())) %</text>"# + "\n"
            s += stepShare
        }
        timeAxis(&out, first: first, last: last, x: x, baseline: Self.top + plotH)

        // One mark per interval.
        out += #"<g stroke-width="0">"# + "\n"
        for interval in intervals {
            let share = share(of: interval)
            let x0 = x(interval.range.start), x1 = x(interval.range.end)
            let top = y(share), bottom = y(0)
            let colour = Self.colour(of: interval.status)
            var attributes = #"class="interval \#(interval.status.rawValue)\#(interval.oversize ? " oversize" : "")" x="\#(Self.fixed(x0))" y="\#(Self.fixed(top))" width="\#(Self.fixed(max(0.25, x1 - x0)))" height="\#(Self.fixed(max(0.5, bottom - top)))" fill="\#(colour)""#
            if interval.oversize { attributes += #" stroke="rgb(192,57,43)" stroke-width="1.5""# }
            out += "<rect \(attributes)><title>\(Self.escaped(tooltip(interval)))</title></rect>\n"
            if interval.oversize {
                let cx = Self.fixed((x0 + x1) / 2), ty = top - 3
                out += #"<path class="oversize-flag" d="M\#(cx) \#(Self.fixed(ty))l-4 -7h8z" fill="rgb(192,57,43)"/>"# + "\n"
            }
        }
        out += "</g>\n"

        // The limit.
        let ly = Self.fixed(y(1))
        out += #"<line class="limit" x1="\#(Self.fixed(Self.left))" x2="\#(Self.fixed(w - Self.right))" y1="\#(ly)" y2="\#(ly)" stroke="rgb(29,35,48)" stroke-width="1.5" stroke-dasharray="6 4"/>"#
        let limitText = "limit: \(Self.number(limits.maxSteps)) steps or \(Self.number(Double(limits.maxSamples))) samples"
        out += "\n" + #"<text x="\#(Self.fixed(w - Self.right))" y="\#(Self.fixed(y(1) - 5))" text-anchor="end" fill="rgb(29,35,48)">\#(Self.escaped(limitText))</text>"#
        out += "\n" + #"<line x1="\#(Self.fixed(Self.left))" x2="\#(Self.fixed(w - Self.right))" y1="\#(Self.fixed(Self.top + plotH))" y2="\#(Self.fixed(Self.top + plotH))" stroke="rgb(95,107,122)"/>"#
        return out + "\n</svg>\n"
    }

    // MARK: - Parts

    private func legend(_ out: inout String, counts: [IntervalStatus: Int], oversize: Int) {
        var x = Double(width) - Self.right
        var items = IntervalStatus.allCases.reversed().map { status in
            (Self.colour(of: status), "\(status.rawValue) \(Self.number(counts[status] ?? 0))", false)
        }
        items.insert(("rgb(255,255,255)", "oversize \(Self.number(oversize))", true), at: 0)
        for (colour, label, outlined) in items {
            let textWidth = Double(label.count) * 6.6
            x -= textWidth
            out += #"<text x="\#(Self.fixed(x))" y="18" fill="rgb(29,35,48)">\#(Self.escaped(label))</text>"#
            x -= 14
            let stroke = outlined ? #" stroke="rgb(192,57,43)" stroke-width="1.5""# : ""
            out += #"<rect x="\#(Self.fixed(x))" y="8" width="10" height="10" fill="\#(colour)"\#(stroke)/>"# + "\n"
            x -= 14
        }
    }

    private func tooltip(_ interval: SyncInterval) -> String {
        var text = "#\(interval.id) \(interval.type.shortName) \(Self.minute(local(interval.range.start))) – "
            + "\(Self.minute(local(interval.range.end))) \(zoneName): "
        if interval.kind == .samples, interval.type.kind == .cumulative {
            text += "\(Self.number(interval.steps)) \(interval.type == .stepCount ? "steps" : "sum"), "
        }
        let noun = interval.kind == .deletions ? "deletion" : "sample"
        text += "\(Self.number(interval.samples)) \(noun)\(interval.samples == 1 ? "" : "s"), "
            + interval.status.rawValue
        if interval.oversize { text += ", oversize" }
        return text
    }

    /// Tick marks and labels under the plot: hours, days, months or years of the chart's zone, whichever gives at
    /// most 10.
    private func timeAxis(_ out: inout String, first utcFirst: Int64, last utcLast: Int64, x utcX: (Int64) -> Double,
                          baseline: Double) {
        // Ticks are found on the zone's wall clock and placed at the instants they name.
        let first = local(utcFirst), last = local(utcLast)
        func x(_ wall: Int64) -> Double { utcX(instant(wall: wall)) }
        let hour: Int64 = 3_600_000, day = 24 * hour
        let fixedSteps: [Int64] = [hour, 2 * hour, 3 * hour, 6 * hour, 12 * hour, day, 2 * day, 7 * day, 14 * day]
        var ticks: [(ms: Int64, label: String)] = []
        if let step = fixedSteps.first(where: { (last - first) / $0 <= 10 }) {
            var t = -Self.floorDiv(-first, step) * step // the first multiple of step at or after first
            while t <= last {
                ticks.append((t, step < day ? Self.minute(t).suffix(5).description : Self.date(t)))
                t += step
            }
        } else {
            let firstDate = CivilDate(daysSinceEpoch: Int(Self.floorDiv(first, day)))
            let lastDate = CivilDate(daysSinceEpoch: Int(Self.floorDiv(last, day)))
            let months = (lastDate.year - firstDate.year) * 12 + lastDate.month - firstDate.month
            let every = [1, 2, 3, 6, 12, 24, 60, 120, 600, 1200].first { months / $0 <= 10 } ?? 12_000
            var index = firstDate.year * 12 + firstDate.month - 1 + 1 // the month after the first's
            index = (index + every - 1) / every * every
            while true {
                let date = CivilDate(year: index / 12, month: index % 12 + 1, day: 1)
                let ms = Int64(date.daysSinceEpoch) * day
                guard ms <= last else { break }
                if ms >= first { ticks.append((ms, every >= 12 ? String(date.year) : String(date.description.prefix(7)))) }
                index += every
            }
        }
        for tick in ticks {
            let tx = Self.fixed(x(tick.ms))
            out += #"<line x1="\#(tx)" x2="\#(tx)" y1="\#(Self.fixed(baseline))" y2="\#(Self.fixed(baseline + 5))" stroke="rgb(95,107,122)"/>"#
            out += #"<text x="\#(tx)" y="\#(Self.fixed(baseline + 18))" text-anchor="middle" fill="rgb(95,107,122)">\#(tick.label)</text>"# + "\n"
        }
        let caption = "\(Self.minute(first)) – \(Self.minute(last)) \(zoneName)"
        out += #"<text x="\#(Self.fixed(Self.left))" y="\#(Self.fixed(baseline + 34))" fill="rgb(95,107,122)">\#(Self.escaped(caption))</text>"# + "\n"
    }

    // MARK: - Formatting (locale-free)

    /// `yyyy-MM-dd HH:mm` (UTC).
    static func minute(_ ms: Int64) -> String {
        let iso = ISO8601Millis.format(ms)
        return iso.prefix(10) + " " + iso.dropFirst(11).prefix(5)
    }

    /// `yyyy-MM-dd` (UTC).
    static func date(_ ms: Int64) -> String { String(ISO8601Millis.format(ms).prefix(10)) }

    /// A whole number with thousands separators (`12,345`); fractions rounded.
    static func number(_ value: Double) -> String { number(Int64(value.rounded())) }

    /// `12,345`.
    static func number(_ value: some BinaryInteger) -> String { GroupedNumber.string(value) }

    /// A coordinate with at most one decimal (`12.5`, `13`).
    static func fixed(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let magnitude = tenths.magnitude
        return magnitude % 10 == 0 ? sign + String(magnitude / 10) : sign + "\(magnitude / 10).\(magnitude % 10)"
    }

    /// Text with `&`, `<`, `>` and `"` escaped for XML.
    static func escaped(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return a % b < 0 ? q - 1 : q
    }
}
