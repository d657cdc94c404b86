import Foundation
import StepSyncCore
import StepSyncSink
import Testing

/// What the dashboard reads: `GET /` (the page), `GET /stats`, and `GET /steps/daily` under the daily-totals rule.
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

    @Test("GET /stats: samples per type and in total, inserted vs duplicates, requests, last ingest, file sizes")
    func stats() async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(.jsonl, directory: dir) { client, path in
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
                #expect(storage["kind"] as? String == "jsonl")
                #expect(storage["status"] as? String == "ok")
                let files = try #require(storage["files"] as? [[String: Any]])
                #expect(files.map { $0["name"] as? String } == [path, dir + "/sink/samples/HKQuantityTypeIdentifierHeartRate.jsonl"])
                let sizes = [path, dir + "/sink/samples/HKQuantityTypeIdentifierHeartRate.jsonl"].map { fileBytes($0).count }
                #expect(files.map { $0["bytes"] as? Int } == sizes)
                #expect(storage["totalBytes"] as? Int == sizes.reduce(0, +))
            }
        }
    }

    @Test("GET /steps/daily counts a walk the iPhone and the Watch both recorded once, in the asked zone and priority",
          arguments: SinkBackend.allCases)
    func dailyRule(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                // 2025-05-11 10:00–11:00 UTC: iPhone 1,000 steps; 10:30–11:00: Watch 600. 23:30–00:30 UTC: iPhone 120.
                let samples = [
                    WireSample(uuid: uuid(1), startMs: Self.ms("2025-05-11T10:00:00.000Z"), endMs: Self.ms("2025-05-11T11:00:00.000Z"),
                               count: 1_000, sourceBundleId: "com.apple.health", sourceDeviceName: "iPhone"),
                    WireSample(uuid: uuid(2), startMs: Self.ms("2025-05-11T10:30:00.000Z"), endMs: Self.ms("2025-05-11T11:00:00.000Z"),
                               count: 600, sourceBundleId: "com.apple.health", sourceDeviceName: "Apple Watch"),
                    WireSample(uuid: uuid(3), startMs: Self.ms("2025-05-11T23:30:00.000Z"), endMs: Self.ms("2025-05-12T00:30:00.000Z"),
                               count: 120, sourceBundleId: "com.apple.health", sourceDeviceName: "iPhone"),
                ]
                #expect(try await client.post(samples).status == 200)
                func days(_ query: String) async throws -> [String] {
                    let reply = try await client.send(.GET, "/steps/daily" + query)
                    #expect(reply.status == 200, "\(query): \(reply.text)")
                    return (reply.json["days"] as? [[String: Any]] ?? []).map { "\($0["date"]!)=\($0["steps"]!)" }
                }
                // Watch first (the default): half the iPhone's hour (500) + the Watch (600); 23:30–00:30 splits 60/60.
                #expect(try await days("") == ["2025-05-11=1160", "2025-05-12=60"])
                #expect(try await client.send(.GET, "/steps/daily").json["tz"] as? String == "UTC")
                // iPhone first: the iPhone's 1,000 hide the Watch.
                #expect(try await days("?priority=iPhone,Apple%20Watch&tz=UTC") == ["2025-05-11=1060", "2025-05-12=60"])
                // In Berlin (UTC+2 in May) the last sample is wholly on 2025-05-12, and every day asked is listed.
                #expect(try await days("?from=2025-05-10&to=2025-05-13&tz=Europe/Berlin")
                        == ["2025-05-10=0", "2025-05-11=1100", "2025-05-12=120", "2025-05-13=0"])
                // Only `from`: to the newest day; only `to`: from the oldest.
                #expect(try await days("?from=2025-05-12") == ["2025-05-12=60"])
                #expect(try await days("?to=2025-05-11") == ["2025-05-11=1160"])
            }
        }
    }

    @Test("GET /steps/daily refuses bad parameters with 400 naming them, and answers no days for an empty sink")
    func dailyErrors() async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir) { client, _ in
                let empty = try await client.send(.GET, "/steps/daily")
                #expect(empty.status == 200)
                #expect(empty.text == #"{"tz":"UTC","days":[]}"#)
                let cases: [(String, String, String)] = [
                    ("?tz=Mars/Olympus_Mons", "tz", "Mars/Olympus_Mons"),
                    ("?from=2025-13-01&to=2025-12-31", "from", "2025-13-01"),
                    ("?from=2025-05-02&to=2025-05-01", "to", "before"),
                    ("?from=2000-01-01&to=2025-01-01", "to", "over the limit of 3700"),
                    ("?from=2025-05-01&to=2025-05-02&tz=", "tz", "tz"),
                ]
                for (query, field, fragment) in cases {
                    let reply = try await client.send(.GET, "/steps/daily" + query)
                    #expect(reply.status == 400, "\(query)")
                    #expect(reply.json["field"] as? String == field, "\(query): \(reply.text)")
                    #expect((reply.json["message"] as? String ?? "").contains(fragment), "\(query): \(reply.text)")
                }
            }
        }
    }
}
