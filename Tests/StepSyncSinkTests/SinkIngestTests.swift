import AsyncHTTPClient
import Foundation
import NIOCore
import StepSyncCore
import StepSyncSink
import Testing
import StepSyncTestSupport

@Suite("Sink ingest")
struct SinkIngestTests {
    static let issuePayload = #"{"samples":[{"uuid":"D67311EE-FACB-41AA-B202-8D266F3EDE18","startDate":"2025-05-11T16:27:22.000Z","endDate":"2025-05-11T16:29:03.000Z","count":6176,"sourceBundleId":"com.apple.health","sourceDeviceName":"iPhone"},{"uuid":"a0b1c2d3-0000-4000-8000-000000000001","startDate":"2025-05-11T17:00:00.000Z","endDate":"2025-05-11T17:05:00.000Z","count":12.5,"sourceBundleId":"com.apple.health.Watch"}]}"#

    @Test("the original client's payload is answered like HealthStepsSync and stored field for field",
          arguments: SinkBackend.allCases)
    func originalPayload(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, path in
                let reply = try await client.send(.POST, "/steps", body: Array(Self.issuePayload.utf8))
                #expect(reply.status == 200)
                #expect(reply.json["saved"] as? Int == 2)
                #expect(reply.json["message"] as? String == "Success")
                #expect(reply.json["inserted"] as? Int == 2)
                #expect(reply.json["duplicates"] as? Int == 0)
                // Byte for byte the acknowledgement HealthStepsSync's clients know (``SinkIngestAnswer``).
                #expect(reply.text == #"{"saved":2,"message":"Success","inserted":2,"duplicates":0}"#)
                if backend == .jsonl {
                    let lines = String(decoding: fileBytes(path), as: UTF8.self).split(separator: "\n")
                    #expect(lines.count == 2)
                    #expect(lines[0] == #"{"uuid":"D67311EE-FACB-41AA-B202-8D266F3EDE18","startDate":"2025-05-11T16:27:22.000Z","endDate":"2025-05-11T16:29:03.000Z","count":6176,"sourceBundleId":"com.apple.health","sourceDeviceName":"iPhone"}"#)
                    let second = try WireDecoder.decodeSample(Data(lines[1].utf8))
                    #expect(second.uuid == UUID(uuidString: "A0B1C2D3-0000-4000-8000-000000000001"))
                    #expect(second.count == 12.5)
                    #expect(second.sourceDeviceName == nil)
                    #expect(second.endMs - second.startMs == 300_000)
                }

                let health = try await client.send(.GET, "/health")
                // The sink's identity (a uuid made once for its data) sits between `service` and `status`.
                #expect(health.text.range(of: #"^\{"api":1,"service":"stepsync","sink":"[0-9a-f-]{36}","status":"ok"\}$"#,
                                          options: .regularExpression) != nil, "\(health.text)")
                let page = try await client.send(.GET, "/steps")
                #expect(page.json["storedCount"] as? Int == 2)
                #expect((page.json["samples"] as? [[String: Any]])?.map { $0["count"] as? Double } == [6176, 12.5])
                // Served back as stored: the first object byte for byte, the second with its uuid upper-case.
                #expect(page.text.contains(#"{"uuid":"D67311EE-FACB-41AA-B202-8D266F3EDE18","startDate":"2025-05-11T16:27:22.000Z","endDate":"2025-05-11T16:29:03.000Z","count":6176,"sourceBundleId":"com.apple.health","sourceDeviceName":"iPhone"}"#))
                #expect(page.text.contains(#"{"uuid":"A0B1C2D3-0000-4000-8000-000000000001","startDate":"2025-05-11T17:00:00.000Z","endDate":"2025-05-11T17:05:00.000Z","count":12.5,"sourceBundleId":"com.apple.health.Watch"}"#))
            }
        }
    }

    @Test("every object is stored in the encoder's form: copied when it came that way, encoded again when not")
    func storedLinesAreTheEncodersWhateverTheForm() async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(.jsonl, directory: dir) { client, path in
                let samples = makeSamples(6)
                var objects = samples.map { sample -> String in
                    var bytes: [UInt8] = []
                    WireEncoder.appendObject(sample, to: &bytes)
                    return String(decoding: bytes, as: UTF8.self)
                }
                objects[1] = objects[1].replacingOccurrences(of: ",", with: ", ")
                objects[3] = objects[3].replacingOccurrences(of: samples[3].uuid.uuidString, with: samples[3].uuid.uuidString.lowercased())
                objects[4] = objects[4].replacingOccurrences(of: #""sourceBundleId":""#, with: #""sourceBundleId" : ""#)
                let reply = try await client.send(.POST, "/steps", body: Array(#"{"samples":[\#(objects.joined(separator: ","))]}"#.utf8))
                #expect(reply.json["inserted"] as? Int == 6)
                var expected: [UInt8] = []
                for sample in samples { WireEncoder.appendLine(sample, to: &expected) } // HealthStepsSync's lines
                #expect(fileBytes(path) == expected)
            }
        }
    }

    @Test("duplicates within a request, across requests and across a restart are not written again",
          arguments: SinkBackend.allCases)
    func exactlyOnce(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            let batch = makeSamples(10)
            let afterFirst = try await withSink(backend, directory: dir) { client, path in
                let first = try await client.post(batch + [batch[3]])
                #expect(first.json["inserted"] as? Int == 10)
                #expect(first.json["duplicates"] as? Int == 1)
                // Same uuids in lower case, plus 5 new ones.
                var text = String(decoding: WireEncoder.encodeRequest(Array(batch[0..<5]) + makeSamples(5, first: 10)), as: UTF8.self)
                for sample in batch[0..<5] {
                    text = text.replacingOccurrences(of: sample.uuid.uuidString, with: sample.uuid.uuidString.lowercased())
                }
                #expect(text.contains(batch[0].uuid.uuidString.lowercased()))
                let reply = try await client.send(.POST, "/steps", body: Array(text.utf8))
                #expect(reply.json["inserted"] as? Int == 5)
                #expect(reply.json["duplicates"] as? Int == 5)
                return fileBytes(path)
            }
            try await withSink(backend, directory: dir) { client, path in
                let reply = try await client.post(makeSamples(20))
                #expect(reply.json["inserted"] as? Int == 5)
                #expect(reply.json["duplicates"] as? Int == 15)
                let served = try await client.allPages("/steps")
                #expect(served.compactMap { $0["uuid"] as? String } == makeSamples(20).map(\.uuid.uuidString))
                if backend == .jsonl {
                    #expect(try storedSamples(path).count == 20)
                    #expect(Array(fileBytes(path).prefix(afterFirst.count)) == afterFirst)
                }
                let page = try await client.send(.GET, "/steps?limit=1")
                #expect(page.json["storedCount"] as? Int == 20)
            }
        }
    }

    @Test("concurrent posters with overlapping uuids are all acknowledged and every sample is stored once",
          arguments: SinkBackend.allCases)
    func concurrentPosters(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            let syncs = Counter()
            try await withSink(backend, directory: dir, configure: { $0.onSync = { syncs.increment() } }) { client, path in
                let results = try await withThrowingTaskGroup(of: (Int, Int, Int).self) { group in
                    for poster in 0..<8 {
                        group.addTask {
                            var inserted = 0, duplicates = 0, inserting = 0
                            for request in 0..<20 {
                                // Poster p, request r covers samples [(p + r) * 10, +25): heavy overlap.
                                let reply = try await client.post(makeSamples(25, first: (poster + request) * 10))
                                #expect(reply.status == 200)
                                inserted += reply.json["inserted"] as? Int ?? -1_000
                                duplicates += reply.json["duplicates"] as? Int ?? -1_000
                                if reply.json["inserted"] as? Int ?? 0 > 0 { inserting += 1 }
                            }
                            return (inserted, duplicates, inserting)
                        }
                    }
                    return try await group.reduce(into: [(Int, Int, Int)]()) { $0.append($1) }
                }
                let distinct = Set((0..<8).flatMap { p in (0..<20).flatMap { r in makeSamples(25, first: (p + r) * 10).map(\.uuid) } })
                #expect(results.reduce(0) { $0 + $1.0 } == distinct.count)
                #expect(results.reduce(0) { $0 + $1.0 + $1.1 } == 8 * 20 * 25)
                let served = try await client.allPages("/steps").compactMap { ($0["uuid"] as? String).flatMap(UUID.init(uuidString:)) }
                #expect(served.count == distinct.count)
                #expect(Set(served) == distinct)
                if backend == .jsonl {
                    #expect(try storedSamples(path).count == distinct.count)
                    // At most one sync per request that wrote something (duplicate-only requests cost none);
                    // group commit makes it fewer (21–23 syncs for 25–26 such requests in a debug run).
                    let inserting = results.reduce(0) { $0 + $1.2 }
                    #expect(syncs.count >= 1)
                    #expect(syncs.count <= inserting)
                }
            }
        }
    }

    @Test("gzip bodies are accepted", arguments: SinkBackend.allCases)
    func gzip(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, path in
                var plain = ByteBuffer(bytes: WireEncoder.encodeRequest(makeSamples(50)))
                let packed = try plain.compress(with: .gzip)
                let reply = try await client.send(.POST, "/steps", body: Array(buffer: packed),
                                                  headers: [("Content-Encoding", "gzip")])
                #expect(reply.status == 200)
                #expect(reply.json["inserted"] as? Int == 50)
                let counts: [Double] = try await client.allPages("/steps").compactMap { $0["count"] as? Double }
                let expected: Double = 50 * 51 / 2
                #expect(counts.reduce(0, +) == expected)
            }
        }
    }

    @Test("GET /steps pages with cursor and from/to; /steps/daily sums UTC days", arguments: SinkBackend.allCases)
    func paging(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                _ = try await client.post(makeSamples(300)) // 10-minute steps: 144 a day from 2025-05-11
                var seen: [String] = []
                var cursor: String?
                var pages = 0
                repeat {
                    let page = try await client.send(.GET, "/steps?limit=128" + (cursor.map { "&cursor=\($0)" } ?? ""))
                    seen += (page.json["samples"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
                    cursor = page.json["nextCursor"] as? String
                    pages += 1
                } while cursor != nil && pages < 10
                #expect(seen == makeSamples(300).map(\.uuid.uuidString))
                let day = try await client.send(.GET, "/steps?from=2025-05-12T00:00:00.000Z&to=2025-05-13T00:00:00.000Z&limit=1000")
                #expect((day.json["samples"] as? [Any])?.count == 144)
                let daily = try await client.send(.GET, "/steps/daily")
                let days = daily.json["days"] as? [[String: Any]] ?? []
                #expect(days.map { $0["date"] as? String } == ["2025-05-11", "2025-05-12", "2025-05-13"])
                #expect(days.first?["steps"] as? Int == (1...144).reduce(0, +))
            }
        }
    }
}
