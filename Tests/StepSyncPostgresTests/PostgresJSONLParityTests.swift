import Foundation
import StepSyncCore
import StepSyncSink
import StepSyncTestSupport
import Testing

/// The same samples on PostgreSQL and in the JSONL files answer the same bytes: `GET /export` (NDJSON and CSV, rows
/// in each storage's order) and `GET /steps/daily` (a guard for issue 31's faster reads on PostgreSQL, which decode
/// step spans from packed chunks and skip the stored-line encoding a page does not need).
@Suite("PostgreSQL and JSONL answer the same bytes",
       .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"))
struct PostgresJSONLParityTests {
    /// 3,000 step samples over 12 days from 2025-03-25 (a daylight-saving change in Europe/Berlin) and 200 heart-rate
    /// samples: iPhone, Apple Watch, other and no device, overlapping and zero-length samples, samples crossing
    /// midnight and a few hours long, fractional values, text needing JSON and CSV escapes or neutralising, details.
    static func samples() -> [HealthSample] {
        var random = SplitMix64(seed: 31)
        let base = ISO8601Millis.parse("2025-03-25T00:00:00.000Z")!
        let devices: [String?] = ["Apple Watch", "iPhone", nil, "Anna's \"new\" Watch", "=HYPERLINK(\"x\")"]
        let names = ["Anna's iPhone", "Health", "tab\there", "+1+1", "Ännas Uhr ⌚️", ""]
        var samples: [HealthSample] = []
        for i in 0..<3_000 {
            let start = base + Int64(random.next(below: 12 * 86_400)) * 1_000 + Int64(random.next(below: 1_000))
            let duration: Int64 = switch random.next(below: 10) {
            case 0: 0
            case 1: Int64(random.next(below: 3 * 3_600_000)) + 1
            default: Int64(random.next(below: 600_000)) + 1
            }
            let whole = random.next(below: 4) != 0
            let value = whole ? Double(random.next(below: 3_000)) : Double(random.next(below: 300_000)) / 7
            let device = devices[random.next(below: devices.count)]
            samples.append(HealthSample(
                uuid: random.uuid(), type: .stepCount, startMs: start, endMs: start + duration, value: value, unit: "count",
                sourceName: names[random.next(below: names.count)], sourceBundleId: "com.apple.health.\(i % 7)",
                sourceVersion: i % 5 == 0 ? nil : "17.\(i % 4)", deviceName: device,
                deviceModel: device == nil ? nil : "Watch6,\(i % 3)",
                details: i % 11 == 0 ? #"{"HKMetadataKeyWasUserEntered":1,"note":"a \"b\"\nc"}"# : nil))
        }
        // Several samples at one start (ties in the (start, uuid) order).
        for k in 0..<5 {
            samples.append(HealthSample(uuid: random.uuid(), type: .stepCount, startMs: base + 86_400_000, endMs: base + 86_460_000,
                                        value: Double(k + 1), unit: "count", sourceName: "Health",
                                        sourceBundleId: "com.apple.health.t", deviceName: k % 2 == 0 ? "iPhone" : "Apple Watch"))
        }
        for i in 0..<200 {
            let start = base + Int64(i) * 3_600_000
            samples.append(HealthSample(uuid: random.uuid(), type: .heartRate, startMs: start, endMs: start, value: 60 + Double(i % 40) / 3,
                                        unit: "count/min", sourceName: "Apple Watch", sourceBundleId: "com.apple.health.w",
                                        deviceName: "Apple Watch", deviceModel: "Watch6,2"))
        }
        return samples
    }

    @Test("/export (NDJSON, CSV, steps and heart rate) holds the same rows on both, PostgreSQL's in (start, uuid) order; /steps/daily (every stored day; a range in Europe/Berlin with a priority) is byte for byte the same")
    func sameAnswers() async throws {
        let samples = Self.samples()
        let paths = [
            "/export?format=ndjson", "/export?format=csv", "/export?format=ndjson&type=HeartRate",
            "/export?format=csv&from=2025-03-28&to=2025-03-31&tz=Europe/Berlin",
        ]
        let dailyPaths = [
            "/steps/daily", "/steps/daily?tz=Europe/Berlin",
            "/steps/daily?from=2025-03-26&to=2025-04-03&tz=Europe/Berlin&priority=iPhone,Apple%20Watch",
        ]
        let jsonl = try await SinkHarness.withSink { port in
            let caller = SinkCaller(port: port, token: nil)
            let posted = try await Self.post(samples, caller)
            #expect(posted.allSatisfy { $0 == 200 }, "JSONL: \(posted)")
            var answers: [SinkCaller.Reply] = []
            for path in paths + dailyPaths { answers.append(try await caller.send(.GET, path)) }
            return answers
        }
        let postgres = try await PostgresHarness.withDatabase { url in
            let tokens = try await addClients(["anna"], url: url)
            return try await withPostgresSink(url: url) { port in
                let caller = SinkCaller(port: port, token: tokens["anna"])
                let posted = try await Self.post(samples, caller)
                #expect(posted.allSatisfy { $0 == 200 }, "PostgreSQL: \(posted)")
                var answers: [SinkCaller.Reply] = []
                for path in paths + dailyPaths { answers.append(try await caller.send(.GET, path)) }
                return answers
            }
        }
        for (index, path) in (paths + dailyPaths).enumerated() {
            let (j, p) = (jsonl[index], postgres[index])
            #expect(j.status == 200 && p.status == 200, "\(path): \(j.status) \(p.status) \(p.text.prefix(300))")
            if index < paths.count {
                var jLines = j.text.split(separator: "\n", omittingEmptySubsequences: false)
                var pLines = p.text.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(pLines.count > 100, "\(path): \(pLines.count) lines")
                #expect(jLines.count == pLines.count, "\(path)")
                // PostgreSQL's rows come in (start, uuid) order: each row's start, then uuid, is not before the last's.
                let csv = path.contains("csv")
                let keys = pLines.dropFirst(csv ? 1 : 0).filter { !$0.isEmpty }
                    .map { Self.startAndUUID($0, csv: csv) }.map { "\($0.start) \($0.uuid)" }
                #expect(keys == keys.sorted(), "\(path): not in (start, uuid) order")
                jLines.sort()
                pLines.sort()
                #expect(jLines == pLines, "\(path): \(zip(jLines, pLines).first { $0 != $1 }.map { "\($0)\n\($1)" } ?? "")")
            } else {
                #expect(p.text.contains(#""steps":"#), "\(path): \(p.text.prefix(200))")
                #expect(j.body == p.body, "\(path):\n\(j.text.prefix(600))\n\(p.text.prefix(600))")
            }
        }
    }

    /// POSTs `samples` in bodies of 500; returns the statuses.
    static func post(_ samples: [HealthSample], _ caller: SinkCaller) async throws -> [Int] {
        var statuses: [Int] = []
        for start in stride(from: 0, to: samples.count, by: 500) {
            statuses.append(try await caller.post(Array(samples[start..<min(start + 500, samples.count)])).status)
        }
        return statuses
    }

    /// A row's start (ISO text, which sorts as the instant does within 0001–9999) and uuid (upper-case hex, which
    /// sorts as PostgreSQL orders uuids: by their bytes).
    static func startAndUUID(_ line: Substring, csv: Bool) -> (start: String, uuid: String) {
        if csv {
            let fields = line.split(separator: ",", maxSplits: 4, omittingEmptySubsequences: false)
            return (String(fields[2]), String(fields[0]))
        }
        let uuid = line.dropFirst(#"{"uuid":""#.count).prefix(36)
        let start = line.range(of: #""start":""#).map { line[$0.upperBound...].prefix(24) } ?? ""
        return (String(start), String(uuid))
    }
}

extension SplitMix64 {
    /// A number in `0..<bound`.
    mutating func next(below bound: Int) -> Int { Int.random(in: 0..<bound, using: &self) }

    /// A random version-4-looking uuid.
    mutating func uuid() -> UUID {
        let (a, b) = (next(), next())
        return UUID(uuid: withUnsafeBytes(of: (a, b)) { raw in raw.load(as: uuid_t.self) })
    }
}
