import Foundation
import StepSyncCore
import StepSyncSink
import StepSyncTestSupport
import Testing

/// Pages and exports in (start, uuid) order on both storages, whatever order the samples arrived in (issue 32.10:
/// the JSONL sink's came in arrival order, the CLI's and PostgreSQL's in start order).
@Suite("Pages and /export in start, then uuid, order on JSONL and PostgreSQL")
struct SinkStartOrderTests {
    /// 7,001 heart-rate samples ten minutes apart, but every third shares the start of the one before
    /// (`i % 3 == 2`, so a pair straddles the 5,000-row export page), with uuids whose order is not the index's.
    static let samples: [HealthSample] = makeHealthSamples(7_001).enumerated().map { i, sample in
        var sample = sample
        let scrambled = UInt32(truncatingIfNeeded: UInt64(i) &* 2_654_435_761)
        sample.uuid = UUID(uuidString: String(format: "%08X-0000-4000-8000-%012X", scrambled, i))!
        if i % 3 == 2 {
            sample.startMs -= 600_000
            sample.endMs -= 600_000
        }
        return sample
    }

    /// `samples` in (start, uuid bytes) order: an upper-case uuid string compares as its bytes do.
    static func inStartOrder(_ samples: [HealthSample]) -> [HealthSample] {
        samples.sorted { ($0.startMs, $0.uuid.uuidString) < ($1.startMs, $1.uuid.uuidString) }
    }

    /// Posts `samples` newest first, in batches of 1,000 each reversed: arrival is the reverse of start order.
    static func postBackwards(_ samples: [HealthSample], to client: SinkTestClient) async throws {
        let backwards = Array(samples.reversed())
        for chunk in stride(from: 0, to: backwards.count, by: 1_000) {
            let reply = try await client.post(samples: Array(backwards[chunk..<min(chunk + 1_000, backwards.count)]))
            #expect(reply.status == 200, "\(reply.text.prefix(300))")
        }
    }

    @Test("samples that arrive newest first are exported and paged in (start, uuid) order, a tie across a page too",
          arguments: SinkBackend.allCases)
    func exportAndPages(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                try await Self.postBackwards(Self.samples, to: client)
                // Deleted samples are skipped wherever they fall.
                let gone = stride(from: 5, to: Self.samples.count, by: 97).map { Self.samples[$0].uuid }
                let body = #"{"type":"HKQuantityTypeIdentifierHeartRate","uuids":[\#(gone.map { "\"\($0.uuidString)\"" }.joined(separator: ","))]}"#
                let deleted = try await client.send(.POST, "/samples/delete", body: Array(body.utf8))
                #expect(deleted.status == 200 && deleted.json["deleted"] as? Int == gone.count, "\(deleted.text)")
                let expected = Self.inStartOrder(Self.samples.filter { !gone.contains($0.uuid) })
                let ndjson = try await client.send(.GET, "/export?type=HeartRate&format=ndjson")
                #expect(ndjson.status == 200)
                #expect(ndjson.body == ExportEncoder.rows(expected, format: .ndjson))
                let csv = try await client.send(.GET, "/export?type=HeartRate&format=csv&from=2025-05-12&to=2025-05-20")
                let day = ISO8601Millis.parse("2025-05-12T00:00:00.000Z")!
                let ranged = expected.filter { $0.startMs >= day && $0.startMs < day + 9 * 86_400_000 }
                #expect(ranged.count > 1_000 && csv.body == ExportEncoder.header(.csv) + ExportEncoder.rows(ranged, format: .csv))
                // GET /samples pages walk the same order, 999 at a time (a tie falls across pages).
                let paged = try await client.allPages("/samples?type=HKQuantityTypeIdentifierHeartRate", limit: 999)
                #expect(paged.compactMap { $0["uuid"] as? String } == expected.map(\.uuid.uuidString))
            }
        }
    }

    @Test("a cursor is a position in start order: samples written between two pages after it are given, those before it are not",
          arguments: SinkBackend.allCases)
    func writesBetweenPages(backend: SinkBackend) async throws {
        let all = Self.inStartOrder(Array(Self.samples.prefix(3_000)))
        let early = Array(all[0..<1_000]), late = Array(all[2_000..<3_000]), middle = Array(all[1_000..<2_000])
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                // The middle first; the first page ends inside it.
                try await Self.postBackwards(middle, to: client)
                let path = "/samples?type=HKQuantityTypeIdentifierHeartRate&limit=400"
                let first = try await client.send(.GET, path)
                #expect(first.uuids == middle.prefix(400).map(\.uuid.uuidString))
                let cursor = try #require(first.json["nextCursor"] as? String)
                #expect(cursor == "\(middle[399].startMs).\(middle[399].uuid.uuidString)")
                // Written now: samples before the cursor and after it, and one of those after it deleted.
                try await Self.postBackwards(late + early, to: client)
                let body = #"{"type":"HKQuantityTypeIdentifierHeartRate","uuids":["\#(middle[500].uuid.uuidString)"]}"#
                #expect(try await client.send(.POST, "/samples/delete", body: Array(body.utf8)).status == 200)
                var rest: [String] = []
                var next: String? = cursor
                while let position = next {
                    let page = try await client.send(.GET, path + "&cursor=" + position)
                    #expect(page.status == 200, "\(page.text.prefix(300))")
                    rest += page.uuids
                    next = page.json["nextCursor"] as? String
                }
                let wanted = (Array(middle[400...]) + late).filter { $0.uuid != middle[500].uuid }
                #expect(rest == wanted.map(\.uuid.uuidString))
            }
        }
    }
}
