import StepSyncCore
import Testing

@Suite("Layering edge cases")
struct LayeringEdgeCaseTests {
    let t0: Int64 = 1_715_444_842_000  // 2024-05-11T16:27:22Z

    func layer(_ samples: [(start: Int64, value: Double)], maxSteps: Double = 10_000, maxSamples: Int = 5_000)
        throws -> (LayeringResult, InMemoryStatisticsSource)
    {
        let source = InMemoryStatisticsSource(samples)
        let result = try LayeringEngine(maxSteps: maxSteps, maxSamples: maxSamples).layer(source, type: .stepCount)
        #expect(LayeringInvariants.check(result.intervals, samples: source, maxSteps: maxSteps, maxSamples: maxSamples) == [])
        return (result, source)
    }

    @Test("an empty store gives no interval after one query")
    func empty() throws {
        let (result, source) = try layer([])
        #expect(result.intervals.isEmpty)
        #expect(source.queries == 1)
    }

    @Test("one sample gives one interval from its start to one millisecond later")
    func oneSample() throws {
        let (result, _) = try layer([(t0, 42)])
        #expect(result.intervals.map(\.range) == [TimeRange(start: t0, end: t0 + 1)])
        #expect(result.intervals.map(\.steps) == [42])
        #expect(result.intervals.map(\.oversize) == [false])
    }

    @Test("one sample over the limit is an oversize interval of its own")
    func oneSampleOverLimit() throws {
        let (result, _) = try layer([(t0 - 5_000, 9_000), (t0, 24_000), (t0 + 5_000, 3_000)])
        #expect(result.intervals.map(\.steps) == [9_000, 24_000, 3_000])
        #expect(result.intervals.map(\.oversize) == [false, true, false])
    }

    @Test("a thousand samples in one millisecond stay together; oversize only when over the sample limit",
          arguments: [5_000, 999, 1_000])
    func burst(maxSamples: Int) throws {
        let samples = [(t0 - 1, 1.0)] + Array(repeating: (t0, 1.0), count: 1_000) + [(t0 + 1, 1.0)]
        let (result, _) = try layer(samples, maxSamples: maxSamples)
        let holding = try #require(result.intervals.first { $0.range.contains(t0) })
        #expect(holding.samples >= 1_000)
        #expect(holding.oversize == (maxSamples < 1_000))
        if maxSamples < 1_000 { #expect(holding.samples == 1_000) }
    }

    @Test("samples exactly on every layer's grid lines and one millisecond before them")
    func gridLines() throws {
        var samples: [(start: Int64, value: Double)] = []
        for length in LayeringEngine.layers {
            let line = LayeringEngine.floorMultiple(t0, of: length)
            samples += [(line, 3_000), (line - 1, 3_000), (line + length, 3_000)]
        }
        let (result, _) = try layer(samples)
        #expect(result.steps == 3_000 * Double(samples.count))
    }

    @Test("decades without data cost no more queries than dense data")
    func yearsWithoutData() throws {
        let year = 365 * Milliseconds.day
        let samples = [(-30 * year, 10.0), (-30 * year + 1, 20.0), (t0, 30.0), (t0 + 100 * year, 40.0)]
        let (result, source) = try layer(samples)
        #expect(result.intervals.count == 1)
        #expect(result.intervals[0].range == TimeRange(start: -30 * year, end: t0 + 100 * year + 1))
        #expect(source.queries <= 3)
    }

    @Test("daylight-saving nights: the UTC grid packs a minute-by-minute night the same as any other night",
          arguments: ["2024-03-31T00:00:00Z", "2024-10-27T00:00:00Z", "2024-06-15T00:00:00Z"])
    func daylightSavingNight(midnight: String) throws {
        let start = try #require(ISO8601Millis.parse(midnight))
        // Europe/Berlin changes its clocks at 01:00 UTC on these nights; 100 steps every minute for 6 hours.
        let samples = (0..<360).map { (start + Int64($0) * Milliseconds.minute, 100.0) }
        let (result, _) = try layer(samples)
        #expect(result.intervals.map(\.samples) == [100, 100, 100, 60])
        #expect(result.intervals.dropLast().allSatisfy { $0.range.duration == 100 * Milliseconds.minute })
    }

    @Test("cuts land on the coarsest grid line between two buckets")
    func roundCuts() throws {
        let day = LayeringEngine.floorMultiple(t0, of: Milliseconds.day)
        let (result, _) = try layer([(day - 3_600_000, 6_000), (day + 7_200_000, 6_000)])
        #expect(result.intervals.map { $0.range.end } == [day, day + 7_200_001])
    }
}
