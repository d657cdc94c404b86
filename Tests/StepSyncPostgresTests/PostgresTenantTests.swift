import Crypto
import Foundation
import NIOHTTP1
import StepSyncCore
@testable import StepSyncPostgres
import StepSyncTestSupport
import Testing

/// Issue 21 on PostgreSQL, in process: one client's `/stats` never moves with another's requests; no answer names the
/// database's location; the per-client type limit; `/health` while the database is down.
@Suite("Sink on PostgreSQL: tenants' /stats, no database location in answers, type limit, /health when down",
       .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"))
struct PostgresTenantTests {
    @Test("B's posts, errors and 401s never change A's /stats; no answer body holds the database's host, port, user or name")
    func statsAreTheClientsOwn() async throws {
        let server = try await PostgresHarness.sharedServer()
        try await PostgresHarness.withDatabase { url in
            let tokens = try await addClients(["anna", "ben"], url: url)
            try await withPostgresSink(url: url) { port async throws in
                let anna = SinkCaller(port: port, token: tokens["anna"])
                let ben = SinkCaller(port: port, token: tokens["ben"])
                let stranger = SinkCaller(port: port, token: nil)
                var bodies: [String] = []

                let annaPost = try await anna.post(stepSamples(30))
                #expect(annaPost.status == 200 && annaPost.json["inserted"] as? Int == 30)
                #expect(try await anna.send(.GET, "/steps?limit=0").status == 400)
                let before = try await anna.send(.GET, "/stats")
                #expect(before.status == 200)
                let activity = try #require(before.json["activity"] as? [String: Any])
                // Her own: 1 POST and 1 bad GET so far (this /stats is counted once answered).
                #expect(activity["ingests"] as? Int == 1 && activity["inserted"] as? Int == 30)
                #expect(activity["duplicates"] as? Int == 0)
                #expect(activity["requests"] as? Int == 2 && activity["errors"] as? Int == 1)
                let storage = try #require(before.json["storage"] as? [String: Any])
                #expect(storage["kind"] as? String == "postgresql" && (storage["files"] as? [Any])?.isEmpty == true)

                // Ben: new samples, duplicates of his own, errors; strangers: 401s, 404s, /health, the page.
                for round in 0..<3 {
                    let reply = try await ben.post(stepSamples(40, first: round * 20))
                    #expect(reply.status == 200)
                    bodies.append(reply.text)
                }
                for path in ["/steps?limit=0", "/nowhere", "/samples?type=", "/stats", "/steps/daily?from=x"] {
                    bodies.append(try await ben.send(.GET, path).text)
                }
                for path in ["/stats", "/steps", "/samples/types", "/health", "/nowhere"] {
                    bodies.append(try await stranger.send(.GET, path).text)
                    bodies.append(try await SinkCaller(port: port, token: "ss_" + String(repeating: "x", count: 43))
                        .send(.GET, path).text)
                }
                let benStats = try await ben.send(.GET, "/stats")
                bodies.append(benStats.text)
                let benActivity = try #require(benStats.json["activity"] as? [String: Any])
                #expect(benActivity["ingests"] as? Int == 3 && benActivity["inserted"] as? Int == 80)
                #expect(benActivity["duplicates"] as? Int == 40)
                // 3 POSTs and 4 GETs (3 of them 400s) — not the 404 (answered before any credentials are read), not
                // the strangers' 401s, not Anna's requests.
                #expect(benActivity["requests"] as? Int == 7 && benActivity["errors"] as? Int == 3, "\(benActivity)")

                let after = try await anna.send(.GET, "/stats")
                var expected = try #require(before.json["activity"] as? [String: Any])
                expected["requests"] = 3  // her /stats before, nothing else
                #expect(NSDictionary(dictionary: after.json["activity"] as? [String: Any] ?? [:])
                        == NSDictionary(dictionary: expected), "\(after.text)")
                #expect(NSDictionary(dictionary: after.json["samples"] as? [String: Any] ?? [:])
                        == NSDictionary(dictionary: before.json["samples"] as? [String: Any] ?? [:]))
                #expect(NSDictionary(dictionary: after.json["storage"] as? [String: Any] ?? [:])
                        == NSDictionary(dictionary: storage))
                bodies += [before.text, after.text, try await anna.send(.GET, "/health").text]

                let database = try #require(url.split(separator: "/").last?.split(separator: "?").first.map(String.init))
                for answer in bodies {
                    // The sink names itself in /health ("service":"stepsync"); the test database's user and name are
                    // "stepsync" too, so that one mention is taken out before looking for them.
                    let body = answer.replacingOccurrences(of: #""service":"stepsync""#, with: "")
                    for secret in ["127.0.0.1", "localhost", server.user, database, "postgresql://"] {
                        #expect(!body.contains(secret), "\(secret) in \(body)")
                    }
                    #expect(body.range(of: "(?<![0-9])\(server.port)(?![0-9])", options: .regularExpression) == nil,
                            "port \(server.port) in \(body)")
                }
                #expect(bodies.count == 22)
            }
        }
    }

    @Test("a POST that would bring a client past --max-types is answered 400 too_many_types naming the limit and stores nothing of it; other clients have limits of their own")
    func typeLimit() async throws {
        try await PostgresHarness.withDatabase { url in
            let tokens = try await addClients(["anna", "ben"], url: url)
            let server = try await PostgresHarness.sharedServer()
            try await withPostgresSink(url: url, maxTypes: 3) { port async throws in
                let anna = SinkCaller(port: port, token: tokens["anna"])
                let types = (0..<4).map { SampleType("HKQuantityTypeIdentifierTest\($0)") }
                func samples(_ type: SampleType, first: Int) -> [HealthSample] { stepSamples(5, first: first, type: type) }

                let four = try await anna.post(types.enumerated().flatMap { samples($1, first: $0 * 10) })
                #expect(four.status == 400 && four.json["error"] as? String == "too_many_types", "\(four.text)")
                #expect(four.json["field"] as? String == "type")
                #expect((four.json["message"] as? String)?.contains("at most 3 sample types (--max-types); it holds 0 and the request adds 4") == true,
                        "\(four.text)")
                #expect(try await server.psql("SELECT count(*) FROM samples", url: url) == "0\n")

                #expect(try await anna.post(samples(types[0], first: 100) + samples(types[1], first: 110)).status == 200)
                // 2 held + 2 new > 3: refused whole, also the samples of a type she holds.
                let over = try await anna.post(samples(types[0], first: 200) + samples(types[2], first: 210)
                                               + samples(types[3], first: 220))
                #expect(over.status == 400 && over.json["error"] as? String == "too_many_types")
                #expect((over.json["message"] as? String)?.contains("it holds 2 and the request adds 2") == true, "\(over.text)")
                #expect(try await server.psql("SELECT type, count(*) FROM samples GROUP BY type ORDER BY type", url: url)
                        == "HKQuantityTypeIdentifierTest0|5\nHKQuantityTypeIdentifierTest1|5\n")
                // Exactly at the limit, and more of the types held: stored.
                #expect(try await anna.post(samples(types[2], first: 300) + samples(types[0], first: 310)).status == 200)
                let fourth = try await anna.post(samples(types[3], first: 400))
                #expect(fourth.status == 400 && fourth.json["error"] as? String == "too_many_types", "\(fourth.text)")
                #expect(try await anna.send(.GET, "/samples/types").json["types"] as? [String: Int]
                        == [types[0].rawValue: 10, types[1].rawValue: 5, types[2].rawValue: 5])
                // Ben's limit is his own.
                let ben = SinkCaller(port: port, token: tokens["ben"])
                #expect(try await ben.post(samples(types[3], first: 500) + samples(types[1], first: 510)).status == 200)
                #expect(try await server.psql("SELECT count(*) FROM samples", url: url) == "30\n")
            }
        }
    }

    @Test("two type names whose MD5s share their first 32 bits are two types under --max-types: the type key is 64 bits, so a name made to collide with a held one cannot slip past the limit")
    func typeLimitAgainstCollidingNames() async throws {
        // Found by a birthday search over 52,605 names: md5(name) starts 828404b2 for both.
        let held = SampleType("HKQuantityTypeIdentifierX16120")
        let colliding = SampleType("HKQuantityTypeIdentifierX52604")
        #expect(Insecure.MD5.hash(data: Array(held.rawValue.utf8)).prefix(4).elementsEqual(
            Insecure.MD5.hash(data: Array(colliding.rawValue.utf8)).prefix(4)))
        #expect(SampleTypeKey.of(held) != SampleTypeKey.of(colliding))
        try await PostgresHarness.withDatabase { url in
            let tokens = try await addClients(["anna"], url: url)
            let server = try await PostgresHarness.sharedServer()
            try await withPostgresSink(url: url, maxTypes: 1) { port async throws in
                let anna = SinkCaller(port: port, token: tokens["anna"])
                #expect(try await anna.post(stepSamples(3, first: 0, type: held)).status == 200)
                let second = try await anna.post(stepSamples(3, first: 10, type: colliding))
                #expect(second.status == 400 && second.json["error"] as? String == "too_many_types", "\(second.text)")
                #expect((second.json["message"] as? String)?.contains("it holds 1 and the request adds 1") == true,
                        "\(second.text)")
                #expect(try await server.psql("SELECT type, count(*) FROM samples GROUP BY type", url: url)
                        == "\(held.rawValue)|3\n")
            }
        }
    }

    @Test("serve --max-types: out of 1…10000 refused before anything runs, naming the option and the range; in range, the binary's limit answers 400 too_many_types")
    func maxTypesOption() async throws {
        for value in ["0", "10001"] {
            let refused = try await StepSyncProcess.output(["serve", "--port", "0", "--max-types", value])
            #expect(refused.status == 64 && refused.stderr.contains("--max-types must be 1…10000"), "\(refused.stderr)")
            #expect(!refused.stdout.contains("listening"))
        }
        try await PostgresHarness.withDatabase { url in
            let token = try #require(try await addClients(["anna"], url: url)["anna"])
            let port = try PostgresHarness.freePort()
            let serve = try await StepSyncProcess.serve(url: url, port: port, options: ["--max-types", "2"])
            let caller = SinkCaller(port: port, token: token)
            let three = (0..<3).flatMap { stepSamples(2, first: $0 * 10, type: SampleType("HKQuantityTypeIdentifierTest\($0)")) }
            let reply = try await caller.post(three)
            #expect(reply.status == 400 && reply.json["error"] as? String == "too_many_types", "\(reply.text)")
            #expect((reply.json["message"] as? String)?.contains("at most 2 sample types") == true, "\(reply.text)")
            #expect(try await caller.post(Array(three.prefix(4))).status == 200)
            #expect(try await PostgresProcessTests.rows(try await PostgresHarness.sharedServer(), url) == 4)
            kill(serve.pid, SIGTERM)
            #expect(try await serve.wait(timeout: .seconds(10)) == 0)
        }
    }

    @Test("/health with the database down: 503 from the sink's 0.8 s bound (the client's failure bound is 10 s: the whole suite runs in parallel on 2 shared cores), a reason fit for a GET; 200 again once it is back")
    func healthWhileDown() async throws {
        try await PostgresHarness.withServer { server in
            let url = try await server.createDatabase()
            let tokens = try await addClients(["anna"], url: url)
            try await withPostgresSink(url: url, leaseTimeout: .seconds(2), healthTimeout: .milliseconds(800)) { port in
                let anna = SinkCaller(port: port, token: tokens["anna"])
                // A first probe on a cold pool under load can miss its 0.8 s (503 then, until a background probe
                // answers): wait for the event, not a time.
                let up = try await waitUntil("/health 200 before the stop", while: { true }) {
                    try await anna.send(.GET, "/health", timeout: .seconds(30)).status == 200
                }
                #expect(up)
                try await server.stopImmediately()
                // Twice: once found by the probe, once from the state it left (and a probe in the background).
                for _ in 0..<2 {
                    let health = try await anna.send(.GET, "/health", timeout: .seconds(60))
                    #expect(health.status == 503 && health.headers["retry-after"] != nil, "\(health.text)")
                    #expect(health.json["status"] as? String == "degraded")
                    let reason = try #require(health.json["reason"] as? String)
                    #expect(reason.hasPrefix("the database cannot be used now ("), "\(reason)")
                    #expect(!reason.contains("stored") && !reason.contains(String(server.port)))
                }
                try await server.start()
                // Back: the background probe (or the next request) clears it; event, not time.
                let back = try await waitUntil("/health 200 after the restart", while: { true }) {
                    try await anna.send(.GET, "/health", timeout: .seconds(30)).status == 200
                }
                #expect(back)
            }
        }
    }
}
