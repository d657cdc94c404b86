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

    static let oneDayExpected = """
        PLACEHOLDER
        """
}
