import Foundation
import Logging
import StepSyncCore
import StepSyncSink
import StepSyncTestSupport
import Testing

/// `GET /metrics` (Prometheus' text format), who may read it, and the request ids and log lines of each request.
@Suite("the sink's metrics, request ids and request log")
struct SinkMetricsTests {
    @Test("GET /metrics counts samples by storage, type and outcome, and requests by route template and status",
          arguments: SinkBackend.allCases)
    func counts(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                #expect(try await client.post(makeSamples(300)).status == 200)
                #expect(try await client.post(makeSamples(150, first: 200)).status == 200) // 100 duplicates
                #expect(try await client.post(samples: makeHealthSamples(7, first: 1_000)).status == 200)
                let uuid = UUID().uuidString
                #expect(try await client.send(.GET, "/workouts/\(uuid)/route").status == 404)
                #expect(try await client.send(.GET, "/no/such/\(uuid)").status == 404)
                #expect(try await client.send(.GET, "/steps?limit=0").status == 400)

                let reply = try await client.send(.GET, "/metrics")
                #expect(reply.status == 200)
                #expect(reply.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
                let m = try PrometheusText(reply.text)
                let storage = backend == .jsonl ? "jsonl" : "postgresql"
                let steps = SampleType.stepCount.rawValue, heart = SampleType.heartRate.rawValue
                #expect(m["stepsync_samples_total", ["storage": storage, "type": steps, "outcome": "inserted"]] == 350)
                #expect(m["stepsync_samples_total", ["storage": storage, "type": steps, "outcome": "duplicate"]] == 100)
                #expect(m["stepsync_samples_total", ["storage": storage, "type": heart, "outcome": "inserted"]] == 7)
                #expect(m["stepsync_samples_received_total", ["storage": storage, "type": steps]] == 450)
                #expect(m["stepsync_http_requests_total", ["route": "/steps", "method": "POST", "status": "200"]] == 2)
                #expect(m["stepsync_http_requests_total", ["route": "/samples", "method": "POST", "status": "200"]] == 1)
                #expect(m["stepsync_http_requests_total", ["route": "/steps", "method": "GET", "status": "400"]] == 1)
                #expect(m["stepsync_http_requests_total",
                          ["route": "/workouts/{uuid}/route", "method": "GET", "status": "404"]] == 1)
                #expect(m["stepsync_http_requests_total", ["route": "unmatched", "method": "GET", "status": "404"]] == 1)
                #expect(m["stepsync_http_request_duration_seconds_count", ["route": "/steps"]] == 3)
                // The scrape itself is the one request in flight.
                #expect(m["stepsync_http_requests_in_flight", [:]] == 1)
                #expect(m["stepsync_storage_degraded", ["storage": storage]] == 0)
                #expect(m["stepsync_storage_disk_full", ["storage": storage]] == 0)
                #expect((m["process_resident_memory_bytes", [:]] ?? 0) > 1_000_000)
                #expect((m["process_open_fds", [:]] ?? 0) >= 3)
                #expect((m["process_start_time_seconds", [:]] ?? 0) > 1.7e9)
                if backend == .postgres {
                    #expect(m["stepsync_postgres_connections_max", [:]] == 20)
                    #expect(m["stepsync_postgres_connections_waiting", [:]] == 0)
                } else {
                    #expect(m["stepsync_postgres_connections_max", [:]] == nil)
                }
                // No raw path, no uuid in any label; every family has its HELP and TYPE.
                #expect(!reply.text.contains(uuid) && !reply.text.contains("/no/such"))
                #expect(m.families.isSubset(of: m.helped) && m.families.isSubset(of: m.typed) && m.families.count >= 10)
            }
        }
    }

    @Test("a stranger's thousand paths and odd methods add one label value, not a thousand")
    func boundedLabels() async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir) { client, _ in
                for i in 0..<200 {
                    _ = try await client.send(.GET, "/probe/\(i)/\(UUID().uuidString)")
                    _ = try await client.send(.init(rawValue: "PROPFIND"), "/x\(i)")
                }
                let m = try PrometheusText(try await client.send(.GET, "/metrics").text)
                let routes = Set(m.samples.filter { $0.name == "stepsync_http_requests_total" }.compactMap { $0.labels["route"] })
                let methods = Set(m.samples.filter { $0.name == "stepsync_http_requests_total" }.compactMap { $0.labels["method"] })
                #expect(routes == ["unmatched"])
                #expect(methods == ["GET", "other"])
                #expect(m["stepsync_http_requests_total", ["route": "unmatched", "method": "GET", "status": "404"]] == 200)
                #expect(m["stepsync_http_requests_total", ["route": "unmatched", "method": "other", "status": "404"]] == 200)
            }
        }
    }

    @Test("/metrics: open on loopback; the metrics token when set; elsewhere the sink's token, never a client's")
    func access() async throws {
        let sinkToken = "sink-token-0123456789", metricsToken = "metrics-token-0123456789"
        try await withTemporaryDirectory { (dir: String) async throws -> Void in
            // Loopback, the sink has a token: /metrics needs none, but /stats does.
            try await withSink(directory: dir + "/a", token: sinkToken) { (client: SinkTestClient, _: String) async throws -> Void in
                var anonymous = client
                anonymous.token = nil
                #expect(try await anonymous.send(.GET, "/metrics").status == 200)
                #expect(try await anonymous.send(.GET, "/stats").status == 401)
                #expect(try await anonymous.send(.POST, "/metrics", body: []).status == 405)
            }
            // A metrics token: required, on loopback too; the sink's token is not it.
            try await withSink(directory: dir + "/b", token: sinkToken,
                               configure: { $0.metricsToken = metricsToken }) { (client: SinkTestClient, _: String) async throws -> Void in
                var anonymous = client
                anonymous.token = nil
                var scraper = client
                scraper.token = metricsToken
                #expect(try await anonymous.send(.GET, "/metrics").status == 401)
                #expect(try await client.send(.GET, "/metrics").status == 401)
                #expect(try await scraper.send(.GET, "/metrics").status == 200)
                #expect(try await scraper.send(.GET, "/stats").status == 401)
            }
            // A public bind: the sink's token.
            try await withSink(directory: dir + "/c", token: sinkToken, configure: { $0.host = "0.0.0.0" }) { (client: SinkTestClient, _: String) async throws -> Void in
                var anonymous = client
                anonymous.token = nil
                #expect(try await anonymous.send(.GET, "/metrics").status == 401)
                #expect(try await client.send(.GET, "/metrics").status == 200)
            }
        }
        guard SinkBackend.allCases.contains(.postgres) else { return }
        try await withTemporaryDirectory { (dir: String) async throws -> Void in
            // A sink of many clients on a public bind: a client's token never reads every client's figures.
            try await withSink(.postgres, directory: dir + "/d", configure: { $0.host = "0.0.0.0" }) { (client: SinkTestClient, _: String) async throws -> Void in
                #expect(try await client.send(.GET, "/stats").status == 200)
                #expect(try await client.send(.GET, "/metrics").status == 401)
            }
            try await withSink(.postgres, directory: dir + "/e",
                               configure: { $0.host = "0.0.0.0"; $0.metricsToken = metricsToken }) { (client: SinkTestClient, _: String) async throws -> Void in
                var scraper = client
                scraper.token = metricsToken
                #expect(try await scraper.send(.GET, "/metrics").status == 200)
                #expect(try await client.send(.GET, "/metrics").status == 401)
            }
        }
    }

    @Test("X-Request-Id: a proxy's sane id is kept, an insane one replaced, and each request without one gets its own")
    func requestIDs() async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir) { client, _ in
                let kept = try await client.send(.GET, "/health", headers: [("X-Request-Id", "edge-7f3a:42_b.c")])
                #expect(kept.headers["x-request-id"] == "edge-7f3a:42_b.c")
                let long = String(repeating: "a", count: 129)
                for insane in [long, "two words", "semi;colon", "slash/path"] {
                    let made = try await client.send(.GET, "/nope", headers: [("X-Request-Id", insane)])
                    #expect(made.status == 404 && made.headers["x-request-id"] != insane)
                    #expect(made.headers["x-request-id"]?.wholeMatch(of: /[0-9a-f]{16}-[0-9]+/) != nil)
                }
                var ids = Set<String>()
                for _ in 0..<20 { ids.insert(try await client.send(.GET, "/health").headers["x-request-id"] ?? "") }
                #expect(ids.count == 20 && !ids.contains(""))
            }
        }
    }

    @Test("each request's log line: its id, route template, status, duration in seconds and, on PostgreSQL, the client's name",
          arguments: SinkBackend.allCases)
    func logLines(backend: SinkBackend) async throws {
        let lines = RequestLog()
        try await withTemporaryDirectory { dir in
            let configuration = SinkConfiguration(port: 0, dataPath: dir + "/sink/steps.jsonl", time: .system)
            let (storage, authenticator, token) = try await backend.makeStorage(directory: dir, configuration: configuration)
            try await SinkServer.withRunningSink(configuration: configuration, storage: storage,
                                                 authenticator: authenticator, logger: lines.logger) { port in
                let client = SinkClient(port: port, token: token)
                let uuid = UUID().uuidString
                let reply = try await client.send(.GET, "/workouts/\(uuid)/route")
                #expect(reply.status == 404)
                let line = try #require(lines.requests.first { $0["request.id"] == reply.headers["x-request-id"] })
                #expect(line["http.route"] == "/workouts/{uuid}/route")
                #expect(line["http.path"] == "/workouts/\(uuid)/route")
                #expect(line["http.status"] == "404" && line["http.method"] == "GET")
                #expect(Double(line["http.duration"] ?? "") != nil)
                #expect(line["client"] == (backend == .postgres ? "sink-test" : "default"))
            }
        }
    }
}
