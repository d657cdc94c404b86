import Foundation
import StepSyncCore
import StepSyncSink
import StepSyncTestSupport
import Testing

/// `GET /export`: the rows of ``ExportEncoder`` (the bytes `stepsync export` writes), streamed, on every storage.
@Suite("GET /export: CSV and NDJSON rows, streamed, on JSONL and PostgreSQL")
struct SinkExportTests {
    /// Heart-rate samples with details and a device model holding a comma (so CSV quoting is exercised).
    static func samples(_ n: Int, first: Int = 0) -> [HealthSample] {
        makeHealthSamples(n, first: first, details: #"{"metadata":{"HKMetadataKeyHeartRateMotionContext":"1"}}"#)
    }

    @Test("CSV: text/csv, an attachment named after the type, the header, then every sample's row in order",
          arguments: SinkBackend.allCases)
    func csv(backend: SinkBackend) async throws {
        let samples = Self.samples(40)
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir, token: "t0ken") { client, _ in
                #expect(try await client.post(samples: samples).status == 200)
                let reply = try await client.send(.GET, "/export?type=HKQuantityTypeIdentifierHeartRate&format=csv")
                #expect(reply.status == 200, "\(reply.text.prefix(300))")
                #expect(reply.headers["content-type"] == "text/csv; charset=utf-8")
                #expect(reply.headers["content-disposition"] == #"attachment; filename="HeartRate.csv""#)
                #expect(reply.body == ExportEncoder.header(.csv) + ExportEncoder.rows(samples, format: .csv))
                // The short name, any case, and csv by default.
                let short = try await client.send(.GET, "/export?type=heartrate")
                #expect(short.body == reply.body)
                // The CLI's names work here too (issue 32.10): `heart-rate`, and `steps` before any step is held.
                let cliName = try await client.send(.GET, "/export?type=heart-rate")
                #expect(cliName.status == 200 && cliName.body == reply.body, "\(cliName.text.prefix(300))")
                let steps = try await client.send(.GET, "/export?type=steps")
                #expect(steps.status == 200 && steps.body == ExportEncoder.header(.csv), "\(steps.text.prefix(300))")
            }
        }
    }

    @Test("CSV: source, version and device names that would run as formulas come out as text; numbers stay numbers")
    func formulasNeutralised() async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(.jsonl, directory: dir) { client, _ in
                #expect(try await client.post(samples: FormulaCells.samples).status == 200)
                let reply = try await client.send(.GET, "/export?type=HeartRate&format=csv")
                #expect(reply.status == 200, "\(reply.text.prefix(300))")
                let file = dir + "/formulas.csv"
                try Data(reply.body).write(to: URL(fileURLWithPath: file))
                let cells = try await FormulaCells.read(file)
                #expect(cells.count == 2)
                for (sample, expected) in zip(FormulaCells.samples, FormulaCells.expected) {
                    #expect(cells[sample.uuid.uuidString] == expected)
                }
            }
        }
    }

    @Test("NDJSON: application/x-ndjson, one object per sample; from/to bound the starts (instants or UTC days)",
          arguments: SinkBackend.allCases)
    func ndjsonAndRange(backend: SinkBackend) async throws {
        let samples = Self.samples(300)  // ten minutes apart from 2025-05-11T00:00Z: 144 a day
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                #expect(try await client.post(samples: samples).status == 200)
                let all = try await client.send(.GET, "/export?type=HeartRate&format=ndjson")
                #expect(all.headers["content-type"] == "application/x-ndjson")
                #expect(all.headers["content-disposition"] == #"attachment; filename="HeartRate.ndjson""#)
                #expect(all.body == ExportEncoder.rows(samples, format: .ndjson))
                let hour = try await client.send(.GET,
                    "/export?type=HeartRate&format=ndjson&from=2025-05-11T01:00:00.000Z&to=2025-05-11T02:00:00.000Z")
                #expect(hour.body == ExportEncoder.rows(samples[6..<12], format: .ndjson))
                let day = try await client.send(.GET, "/export?type=HeartRate&format=ndjson&from=2025-05-12&to=2025-05-12")
                #expect(day.body == ExportEncoder.rows(samples[144..<288], format: .ndjson))
                // A zone moves the days: 2025-05-12 in Berlin begins at 2025-05-11T22:00Z.
                let berlin = try await client.send(.GET,
                    "/export?type=HeartRate&format=ndjson&from=2025-05-12&to=2025-05-12&tz=Europe/Berlin")
                #expect(berlin.body == ExportEncoder.rows(samples[132..<276], format: .ndjson))
            }
        }
    }

    @Test("more samples than one page (5,000) stream whole: 12,345 rows, every uuid once", arguments: SinkBackend.allCases)
    func manyPages(backend: SinkBackend) async throws {
        let samples = Self.samples(12_345)
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                for chunk in stride(from: 0, to: samples.count, by: 2_000) {
                    let reply = try await client.post(samples: Array(samples[chunk..<min(chunk + 2_000, samples.count)]))
                    #expect(reply.status == 200)
                }
                let reply = try await client.send(.GET, "/export?type=HeartRate")
                #expect(reply.body == ExportEncoder.header(.csv) + ExportEncoder.rows(samples, format: .csv))
                let lines = reply.text.split(separator: "\n")
                #expect(lines.count == 12_346)
                #expect(Set(lines.dropFirst().map { $0.prefix(36) }).count == 12_345)
            }
        }
    }

    @Test("an empty type gives the header alone; bad parameters are 400 naming them", arguments: SinkBackend.allCases)
    func emptyAndBad(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                let empty = try await client.send(.GET, "/export?type=HKQuantityTypeIdentifierHeartRate")
                #expect(empty.status == 200 && empty.body == ExportEncoder.header(.csv))
                let ndjson = try await client.send(.GET, "/export?type=HKQuantityTypeIdentifierHeartRate&format=ndjson")
                #expect(ndjson.status == 200 && ndjson.body.isEmpty)
                for (query, field) in [("type=HeartRate&format=parquet", "format"), ("type=HeartRate&from=yesterday", "from"),
                                       ("type=HeartRate&from=2025-05-12&to=2025-05-10", "to"),
                                       ("type=HeartRate&to=2025-05-10&tz=Mars/Olympus", "tz"), ("type=Nonsense", "type")] {
                    let reply = try await client.send(.GET, "/export?" + query)
                    #expect(reply.status == 400, "\(query): \(reply.status) \(reply.text)")
                    #expect(reply.json["field"] as? String == field, "\(query): \(reply.text)")
                }
                #expect(try await client.send(.POST, "/export?type=HeartRate", body: []).status == 405)
            }
        }
    }
}
