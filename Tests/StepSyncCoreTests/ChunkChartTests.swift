import Foundation
import StepSyncCore
import Testing

@Suite("ChunkChart: the interval ledger as SVG")
struct ChunkChartTests {
    static let limits = ChunkChart.Limits(maxSteps: 10_000, maxSamples: 5_000)
    static let day0 = ISO8601Millis.parse("2025-05-11T00:00:00.000Z")!

    /// Occurrences of `needle` in `text`.
    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test("one day: the exact bytes of three intervals (synced, failed, an oversize pending one) with hour ticks")
    func oneDayBytes() {
        let h = Milliseconds.hour
        let intervals = [
            SyncInterval(id: 1, range: TimeRange(start: Self.day0, end: Self.day0 + 8 * h), steps: 5_000, samples: 50,
                         status: .synced),
            SyncInterval(id: 2, range: TimeRange(start: Self.day0 + 8 * h, end: Self.day0 + 12 * h), steps: 10_000,
                         samples: 100, status: .failed, lastError: "HTTP 400"),
            SyncInterval(id: 3, range: TimeRange(start: Self.day0 + 12 * h, end: Self.day0 + 12 * h + 60_000), steps: 15_000,
                         samples: 1, oversize: true, status: .pending),
        ]
        let svg = ChunkChart(intervals: intervals, limits: Self.limits, width: 600, height: 300).svg()
        #expect(svg == Self.oneDayExpected, "\(svg)")
    }

    @Test("ten years, 5,000 intervals: one mark each, coloured by status, oversize flagged, year ticks, under 1.5 MB")
    func tenYears() {
        let start = ISO8601Millis.parse("2016-01-01T00:00:00.000Z")!
        let end = ISO8601Millis.parse("2026-01-01T00:00:00.000Z")!
        let step = (end - start) / 5_000
        let statuses: [IntervalStatus] = [.synced, .synced, .synced, .pending, .failed, .inFlight]
        let intervals = (0..<5_000).map { i in
            SyncInterval(id: Int64(i + 1), range: TimeRange(start: start + Int64(i) * step, end: start + Int64(i + 1) * step),
                         steps: Double(6_000 + (i * 37) % 4_000), samples: 40 + i % 60, oversize: i % 500 == 7,
                         status: statuses[i % statuses.count])
        }
        let svg = ChunkChart(intervals: intervals, limits: Self.limits).svg()
        #expect(Self.count(#"<rect class="interval "#, in: svg) == 5_000)
        #expect(Self.count(#"<rect class="interval synced"#, in: svg) == 2_501)
        #expect(Self.count(#"<rect class="interval failed"#, in: svg) == 833)
        #expect(Self.count(#"fill="\#(ChunkChart.colour(of: .failed))""#, in: svg) >= 833)
        #expect(Self.count(#"class="oversize-flag""#, in: svg) == 10)
        #expect(Self.count("<title>", in: svg) == 5_000)
        for year in 2017...2025 { #expect(svg.contains(">\(year)</text>"), "\(year)") }
        #expect(svg.contains(#"class="limit""#))
        #expect(svg.contains("synced 2,501"))
        #expect(svg.utf8.count < 1_500_000, "\(svg.utf8.count) bytes")
        // Deterministic: the same ledger, the same bytes.
        #expect(svg == ChunkChart(intervals: intervals, limits: Self.limits).svg())
    }

    @Test("a mark's height is its share of the binding limit; a type other than steps is measured by samples")
    func shares() {
        let chart = ChunkChart(intervals: [], limits: Self.limits)
        let range = TimeRange(start: 0, end: 1)
        #expect(chart.share(of: SyncInterval(range: range, steps: 5_000, samples: 100)) == 0.5)
        #expect(chart.share(of: SyncInterval(range: range, steps: 100, samples: 4_000)) == 0.8)
        #expect(chart.share(of: SyncInterval(type: .heartRate, range: range, steps: 9_999_999, samples: 2_500)) == 0.5)
        // Energy's kilocalories are not steps: 30,000 kcal in 500 samples is 10 % of the sample limit, not 300 %.
        #expect(chart.share(of: SyncInterval(type: .activeEnergyBurned, range: range, steps: 30_000, samples: 500)) == 0.1)
        #expect(chart.share(of: SyncInterval(type: .distanceWalkingRunning, range: range, steps: 42_000, samples: 50)) == 0.01)
    }

    @Test("in a zone: ticks at local midnights, tooltips and caption in local time, the zone named")
    func inZone() {
        let h = Milliseconds.hour
        // 2025-05-11 00:00 in New York is 04:00 UTC.
        let intervals = [SyncInterval(id: 1, range: TimeRange(start: Self.day0 + 4 * h, end: Self.day0 + 4 * h + 8 * 24 * h),
                                      steps: 5_000, samples: 50, status: .synced)]
        let zone = TimeZone(identifier: "America/New_York")!
        let svg = ChunkChart(intervals: intervals, limits: Self.limits, timeZone: zone, zoneName: "America/New_York").svg()
        #expect(svg.contains("#1 StepCount 2025-05-11 00:00 – 2025-05-19 00:00 America/New_York"), "\(svg)")
        #expect(svg.contains("2025-05-11 00:00 – 2025-05-19 00:00 America/New_York</text>"))
        #expect(!svg.contains(" UTC"))
        // Day ticks at local midnights: the first (the 12th, 04:00 UTC) an eighth of the way across the plot, where
        // a UTC chart puts its first (the 12th, 00:00 UTC) a 48th less far.
        let utc = ChunkChart(intervals: intervals, limits: Self.limits).svg()
        #expect(utc.contains("2025-05-11 04:00 – 2025-05-19 04:00 UTC"))
        // The plot is 1,128 px wide from x = 56: 56 + 1,128 ÷ 8 = 197, and 197 − 1,128 ÷ 48 = 173.5.
        #expect(svg.contains(#"<text x="197" y="#) && svg.contains(">2025-05-12</text>"))
        #expect(utc.contains(#"<text x="173.5" y="#) && !utc.contains(#"<text x="197" y="#))
    }

    @Test("an empty ledger says so; text from the ledger is escaped for XML")
    func emptyAndEscaped() {
        let empty = ChunkChart(intervals: [], limits: Self.limits).svg()
        #expect(empty.contains("no intervals: run stepsync layer"))
        #expect(empty.hasSuffix("</svg>\n"))
        let odd = ChunkChart(intervals: [SyncInterval(type: SampleType("HK<&\">"), range: TimeRange(start: 0, end: 1),
                                                      steps: 1, samples: 1)], limits: Self.limits).svg()
        #expect(odd.contains("&lt;&amp;&quot;&gt;"))
        #expect(!odd.contains("HK<&"))
    }

    static let oneDayExpected = #"""
        <svg xmlns="http://www.w3.org/2000/svg" width="600" height="300" viewBox="0 0 600 300" font-family="system-ui,sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="rgb(255,255,255)"/>
        <text x="56" y="18" font-size="14" font-weight="600" fill="rgb(29,35,48)">3 sync intervals</text>
        <text x="518" y="18" fill="rgb(29,35,48)">oversize 1</text><rect x="504" y="8" width="10" height="10" fill="rgb(255,255,255)" stroke="rgb(192,57,43)" stroke-width="1.5"/>
        <text x="437.2" y="18" fill="rgb(29,35,48)">failed 1</text><rect x="423.2" y="8" width="10" height="10" fill="rgb(192,57,43)"/>
        <text x="356.4" y="18" fill="rgb(29,35,48)">synced 1</text><rect x="342.4" y="8" width="10" height="10" fill="rgb(46,157,87)"/>
        <text x="262.4" y="18" fill="rgb(29,35,48)">inFlight 0</text><rect x="248.4" y="8" width="10" height="10" fill="rgb(47,111,222)"/>
        <text x="175" y="18" fill="rgb(29,35,48)">pending 1</text><rect x="161" y="8" width="10" height="10" fill="rgb(154,165,180)"/>
        <line x1="56" x2="584" y1="260" y2="260" stroke="rgb(227,231,238)"/><text x="50" y="264" text-anchor="end" fill="rgb(95,107,122)">0 %</text>
        <line x1="56" x2="584" y1="223.3" y2="223.3" stroke="rgb(227,231,238)"/><text x="50" y="227.3" text-anchor="end" fill="rgb(95,107,122)">25 %</text>
        <line x1="56" x2="584" y1="186.7" y2="186.7" stroke="rgb(227,231,238)"/><text x="50" y="190.7" text-anchor="end" fill="rgb(95,107,122)">50 %</text>
        <line x1="56" x2="584" y1="150" y2="150" stroke="rgb(227,231,238)"/><text x="50" y="154" text-anchor="end" fill="rgb(95,107,122)">75 %</text>
        <line x1="56" x2="584" y1="113.3" y2="113.3" stroke="rgb(227,231,238)"/><text x="50" y="117.3" text-anchor="end" fill="rgb(95,107,122)">100 %</text>
        <line x1="56" x2="584" y1="76.7" y2="76.7" stroke="rgb(227,231,238)"/><text x="50" y="80.7" text-anchor="end" fill="rgb(95,107,122)">125 %</text>
        <line x1="56" x2="584" y1="40" y2="40" stroke="rgb(227,231,238)"/><text x="50" y="44" text-anchor="end" fill="rgb(95,107,122)">150 %</text>
        <line x1="56" x2="56" y1="260" y2="265" stroke="rgb(95,107,122)"/><text x="56" y="278" text-anchor="middle" fill="rgb(95,107,122)">00:00</text>
        <line x1="143.9" x2="143.9" y1="260" y2="265" stroke="rgb(95,107,122)"/><text x="143.9" y="278" text-anchor="middle" fill="rgb(95,107,122)">02:00</text>
        <line x1="231.8" x2="231.8" y1="260" y2="265" stroke="rgb(95,107,122)"/><text x="231.8" y="278" text-anchor="middle" fill="rgb(95,107,122)">04:00</text>
        <line x1="319.6" x2="319.6" y1="260" y2="265" stroke="rgb(95,107,122)"/><text x="319.6" y="278" text-anchor="middle" fill="rgb(95,107,122)">06:00</text>
        <line x1="407.5" x2="407.5" y1="260" y2="265" stroke="rgb(95,107,122)"/><text x="407.5" y="278" text-anchor="middle" fill="rgb(95,107,122)">08:00</text>
        <line x1="495.4" x2="495.4" y1="260" y2="265" stroke="rgb(95,107,122)"/><text x="495.4" y="278" text-anchor="middle" fill="rgb(95,107,122)">10:00</text>
        <line x1="583.3" x2="583.3" y1="260" y2="265" stroke="rgb(95,107,122)"/><text x="583.3" y="278" text-anchor="middle" fill="rgb(95,107,122)">12:00</text>
        <text x="56" y="294" fill="rgb(95,107,122)">2025-05-11 00:00 – 2025-05-11 12:01 UTC</text>
        <g stroke-width="0">
        <rect class="interval synced" x="56" y="186.7" width="351.5" height="73.3" fill="rgb(46,157,87)"><title>#1 StepCount 2025-05-11 00:00 – 2025-05-11 08:00 UTC: 5,000 steps, 50 samples, synced</title></rect>
        <rect class="interval failed" x="407.5" y="113.3" width="175.8" height="146.7" fill="rgb(192,57,43)"><title>#2 StepCount 2025-05-11 08:00 – 2025-05-11 12:00 UTC: 10,000 steps, 100 samples, failed</title></rect>
        <rect class="interval pending oversize" x="583.3" y="40" width="0.7" height="220" fill="rgb(154,165,180)" stroke="rgb(192,57,43)" stroke-width="1.5"><title>#3 StepCount 2025-05-11 12:00 – 2025-05-11 12:01 UTC: 15,000 steps, 1 sample, pending, oversize</title></rect>
        <path class="oversize-flag" d="M583.6 37l-4 -7h8z" fill="rgb(192,57,43)"/>
        </g>
        <line class="limit" x1="56" x2="584" y1="113.3" y2="113.3" stroke="rgb(29,35,48)" stroke-width="1.5" stroke-dasharray="6 4"/>
        <text x="584" y="108.3" text-anchor="end" fill="rgb(29,35,48)">limit: 10,000 steps or 5,000 samples</text>
        <line x1="56" x2="584" y1="260" y2="260" stroke="rgb(95,107,122)"/>
        </svg>

        """#
}
