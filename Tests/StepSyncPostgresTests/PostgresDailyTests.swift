import DailyReference
import Foundation
import StepSyncCore
import StepSyncSink
@testable import StepSyncPostgres
import StepSyncTestSupport
import Testing

/// The input of the daily totals on PostgreSQL: `stepSpans` reads exactly the client's step samples overlapping a
/// range, in start order, in one query bounded by the longest sample (migration 2's partial index).
@Suite("PostgreSQL daily totals input", .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"))
struct PostgresDailyTests {
    @Test("40 random histories (samples up to two days long, starting before the first day): stepSpans feeds the sweep in start order and the totals equal the brute-force reference; another client's samples never count")
    func randomHistoriesMatchReference() async throws {
        try await withStorage { storage, _ in
            let other = try await storage.addClient(name: "other", token: .random())
            var longSamplesSeen = 0
            for seed in UInt64(0)..<40 {
                let dailyCase = DailyCase.random(seed: seed)
                let owner = try await storage.addClient(name: "c\(seed)", token: .random())
                _ = try await storage.insert(dailyCase.healthSamples(), client: owner.id)
                // The other client holds a shifted copy of the next case's samples, in the same days.
                let noise = DailyCase.random(seed: seed + 1_000).healthSamples().map { sample -> HealthSample in
                    var copy = sample
                    copy.uuid = UUID()
                    copy.value += 7
                    return copy
                }
                _ = try await storage.insert(noise, client: other.id)

                let request = try dailyCase.request()
                let span = DailyStepTotals(request: request).span
                let spans = try await storage.stepSpans(client: owner.id, overlapping: span.start..<span.end)
                let expected = dailyCase.samples.filter {
                    ($0.startMs < span.end && $0.endMs > span.start)
                        || ($0.startMs == $0.endMs && $0.startMs >= span.start && $0.startMs < span.end)
                }
                #expect(spans.map(\.startMs) == spans.map(\.startMs).sorted(), "seed \(seed): not in start order")
                #expect(spans.map(Self.key).sorted() == expected.map(Self.key).sorted(), "seed \(seed): \(dailyCase)")
                longSamplesSeen += expected.filter { $0.startMs < span.start - 3_600_000 }.count
                // The ordered sweep throws on a sample out of start order, so this also checks the order.
                let result = try DailyStepTotals.compute(
                    spans.map { DailyStepTotals.Sample(startMs: $0.startMs, endMs: $0.endMs, value: $0.value,
                                                       deviceName: $0.deviceName) },
                    request: request)
                #expect(result.days.map(\.microSteps) == dailyCase.referenceMicroSteps(), "seed \(seed): \(dailyCase)")
            }
            // The look-back mattered: some overlapping samples started more than an hour before the first day.
            #expect(longSamplesSeen > 5)
        }
    }

    @Test("a sample from 0001-01-01 to 9999-12-31 is found from a range at either end; a range before 0001 is refused by nothing")
    func lookBackClampedAtTheFirstInstant() async throws {
        try await withStorage { storage, _ in
            let owner = try await storage.addClient(name: "anna", token: .random())
            var samples = stepSamples(3)
            samples[0].startMs = Instants.min
            samples[0].endMs = Instants.max
            samples[1].startMs = Instants.min
            samples[1].endMs = Instants.min + 60_000
            _ = try await storage.insert(samples, client: owner.id)
            let day: Int64 = 86_400_000
            let early = try await storage.stepSpans(client: owner.id, overlapping: (Instants.min - day / 2)..<(Instants.min + day))
            #expect(early.map(\.startMs) == [Instants.min, Instants.min])
            #expect(Set(early.map(\.endMs)) == [Instants.max, Instants.min + 60_000])
            let recent = try await storage.stepSpans(client: owner.id, overlapping: samples[2].startMs..<(samples[2].startMs + day))
            #expect(recent.map(\.endMs) == [Instants.max, samples[2].endMs])
            let late = try await storage.stepSpans(client: owner.id, overlapping: (Instants.max - day)..<(Instants.max + 1))
            #expect(late.map(\.endMs) == [Instants.max])
        }
    }

    @Test("a two-day sample starting 40 hours before the range is found; without the long-sample bound it would be an hour's look-back")
    func longSampleBeforeTheRange() async throws {
        try await withStorage { storage, _ in
            let owner = try await storage.addClient(name: "anna", token: .random())
            let lower = ISO8601Millis.parse("2025-05-20T00:00:00.000Z")!
            let hour: Int64 = 3_600_000
            var samples = stepSamples(4, first: 10_000)
            samples[0].startMs = lower - 40 * hour; samples[0].endMs = lower + 8 * hour      // overlaps
            samples[1].startMs = lower - 50 * hour; samples[1].endMs = lower - 1             // ends just before
            samples[2].startMs = lower - hour + 1; samples[2].endMs = lower + 1              // short, overlaps
            samples[3].startMs = lower; samples[3].endMs = lower                              // zero length, inside
            _ = try await storage.insert(samples, client: owner.id)
            let spans = try await storage.stepSpans(client: owner.id, overlapping: lower..<(lower + 24 * hour))
            #expect(spans.map(\.startMs) == [lower - 40 * hour, lower - hour + 1, lower])
        }
    }

    static func key(_ sample: DailyStepTotals.Sample) -> String {
        "\(sample.startMs) \(sample.endMs) \(sample.value) \(sample.deviceName ?? "-")"
    }
}

/// Issue 31: step spans come from the database packed in chunks (``StepSpanChunk``); the chunks' seams lose and
/// repeat nothing, also among samples sharing a start.
@Suite("PostgreSQL step spans in chunks", .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"))
struct PostgresStepSpanChunkTests {
    @Test("read in chunks of 1, 2, 3 and 7 rows, 40 samples (a dozen sharing one start, three devices and none) come back exactly as in one chunk, in start order, each once")
    func chunkSeams() async throws {
        try await withStorage { storage, _ in
            let owner = try await storage.addClient(name: "anna", token: .random())
            var samples = stepSamples(40)
            let devices: [String?] = ["Apple Watch", nil, "iPhone", "Anna's \"old\" iPhone"]
            for i in samples.indices {
                if i >= 10 && i < 22 { samples[i].startMs = samples[10].startMs; samples[i].endMs = samples[10].startMs + Int64(i) * 1_000 }
                samples[i].deviceName = devices[i % devices.count]
                samples[i].value = Double(i) + 0.25
            }
            _ = try await storage.insert(samples, client: owner.id)
            let range = (samples[0].startMs - 86_400_000)..<(samples[39].endMs + 86_400_000)
            let expected = samples.map { StepSpan(startMs: $0.startMs, endMs: $0.endMs, value: $0.value,
                                                  deviceName: $0.deviceName) }
            // Samples sharing a start come in any order: compare in (start, end) order, which is unique here.
            let key = { (span: StepSpan) in (span.startMs, span.endMs) }
            let sorted = expected.sorted { key($0) < key($1) }
            for chunk in [1, 2, 3, 7, 12, 13, PostgresSampleStorage.stepSpanChunk] {
                let spans = try await storage.stepSpans(client: owner.id, overlapping: range, chunk: chunk)
                #expect(spans.map(\.startMs) == sorted.map(\.startMs), "chunks of \(chunk): not in start order")
                #expect(spans.sorted { key($0) < key($1) } == sorted, "chunks of \(chunk)")
            }
            // A range holding nothing: no spans, one statement.
            #expect(try await storage.stepSpans(client: owner.id, overlapping: 0..<1_000).isEmpty)
        }
    }
}
