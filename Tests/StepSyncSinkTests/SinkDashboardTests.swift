import Foundation
import StepSyncCore
import StepSyncSink
import Testing
import StepSyncTestSupport

/// What the dashboard reads: `GET /` (the page) and `GET /stats` (`GET /steps/daily` is `SinkDailyTests`).
@Suite("the sink's dashboard endpoints")
struct SinkDashboardTests {
    static func ms(_ iso: String) -> Int64 { ISO8601Millis.parse(iso)! }

    @Test("GET / is one self-contained page: HTML with its script and style inline, no other URL to load", arguments: SinkBackend.allCases)
    func page(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir, token: "s3cret") { client, _ in
                var anonymous = client
                anonymous.token = nil
                let reply = try await anonymous.send(.GET, "/")
                #expect(reply.status == 200)
                #expect(reply.headers["content-type"] == "text/html; charset=utf-8")
                #expect(reply.body == sinkResourceBytes("dashboard.html"))
                #expect(reply.headers["content-security-policy"]?.contains("default-src 'none'") == true)
                #expect(reply.headers["content-security-policy"]?.contains("connect-src 'self'") == true)
                let html = reply.text
                #expect(html.hasPrefix("<!doctype html>"))
                #expect(html.contains("<script>") && html.contains("<style>"))
                // Nothing fetched from elsewhere: no src/href to a file, no absolute URL but the SVG namespace.
                #expect(!html.contains("src="))
                #expect(!html.contains("<link"))
                let urls = html.components(separatedBy: "http").dropFirst().map { "http" + $0.prefix(30) }
                #expect(urls.allSatisfy { $0.hasPrefix("http://www.w3.org/2000/svg") }, "\(urls)")
                // The page reads the JSON endpoints with the bearer token it is given.
                #expect(html.contains(#"fetch(path"#) && html.contains(#""Bearer " + token"#))
                #expect(html.contains(#"get("/stats")"#) && html.contains(#""/steps/daily?""#))
                #expect(try await anonymous.send(.HEAD, "/").body.isEmpty)
                #expect(try await anonymous.send(.POST, "/", body: []).status == 405)
            }
        }
    }

    @Test("GET /stats: samples per type and in total, inserted vs duplicates, requests, last ingest, file or table sizes",
          arguments: SinkBackend.allCases)
    func stats(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, path in
                let before = Date()
                let empty = try await client.send(.GET, "/stats").json
                #expect((empty["samples"] as? [String: Any])?["total"] as? Int == 0)
                #expect((empty["samples"] as? [String: Any])?["lastStepStart"] is NSNull)
                #expect((empty["activity"] as? [String: Any])?["lastIngest"] is NSNull)

                #expect(try await client.post(makeSamples(300)).status == 200)
                #expect(try await client.post(makeSamples(150, first: 200)).status == 200) // 100 duplicates, 50 new
                #expect(try await client.post(samples: makeHealthSamples(7, first: 1_000)).status == 200)
                #expect(try await client.send(.GET, "/steps?limit=0").status == 400)
                let reply = try await client.send(.GET, "/stats")
                let after = Date()
                #expect(reply.status == 200)
                let samples = try #require(reply.json["samples"] as? [String: Any])
                #expect(samples["total"] as? Int == 357)
                #expect(samples["steps"] as? Int == 350)
                #expect(samples["types"] as? [String: Int] == ["HKQuantityTypeIdentifierStepCount": 350,
                                                                "HKQuantityTypeIdentifierHeartRate": 7])
                #expect(samples["firstStepStart"] as? String == "2025-05-11T00:00:00.000Z")
                #expect(samples["lastStepStart"] as? String == ISO8601Millis.format(Self.ms("2025-05-11T00:00:00.000Z") + 349 * 600_000))

                let activity = try #require(reply.json["activity"] as? [String: Any])
                #expect(activity["ingests"] as? Int == 3)
                #expect(activity["inserted"] as? Int == 357)
                #expect(activity["duplicates"] as? Int == 100)
                // GET /stats ×1 (before), 3 POSTs, 1 bad GET; this request is counted once answered.
                #expect(activity["requests"] as? Int == 5)
                #expect(activity["errors"] as? Int == 1)
                let lastIngest = try #require((activity["lastIngest"] as? String).flatMap(ISO8601Millis.parse))
                #expect(lastIngest >= Int64(before.timeIntervalSince1970 * 1000) - 1)
                #expect(lastIngest <= Int64(after.timeIntervalSince1970 * 1000) + 1)

                let storage = try #require(reply.json["storage"] as? [String: Any])
                #expect(storage["status"] as? String == "ok")
                let files = try #require(storage["files"] as? [[String: Any]])
                switch backend {
                case .jsonl:
                    #expect(storage["kind"] as? String == "jsonl")
                    #expect(files.map { $0["name"] as? String } == [path, dir + "/sink/samples/HKQuantityTypeIdentifierHeartRate.jsonl"])
                    let sizes = [path, dir + "/sink/samples/HKQuantityTypeIdentifierHeartRate.jsonl"].map { fileBytes($0).count }
                    #expect(files.map { $0["bytes"] as? Int } == sizes)
                    #expect(storage["totalBytes"] as? Int == sizes.reduce(0, +))
                case .postgres:
                    // The database's sizes are every client's (they grow with others' ingests) and where it is
                    // is the operator's business: neither reaches a client.
                    #expect(storage["kind"] as? String == "postgresql")
                    #expect(storage["location"] as? String == "the sink's PostgreSQL database")
                    #expect(files.isEmpty && storage["totalBytes"] as? Int == 0)
                }
            }
        }
    }
}
