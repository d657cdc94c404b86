import Foundation
import StepSyncCore
import StepSyncEngine
import NIOHTTP1
import StepSyncPostgres
@testable import StepSyncSink
import StepSyncTestSupport
import Testing

/// The sink over PostgreSQL, over HTTP, with the real sync engine: isolation, credentials, several sinks.
@Suite("Sink on PostgreSQL: clients, isolation, several sinks",
       .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"))
struct PostgresSinkTests {
    @Test("two clients syncing at once each see exactly and only their own samples, counts and daily totals")
    func twoClientsAtOnce() async throws {
        try await PostgresHarness.withDatabase { url in
            let tokens = try await addClients(["anna", "ben"], url: url)
            let anna = try SyncFixture(intervals: 24, samplesPerInterval: 20)
            let ben = try SyncFixture(intervals: 30, samplesPerInterval: 11)
            try await withPostgresSink(url: url) { port async throws in
                async let annaReport = sync(anna, port: port, token: tokens["anna"])
                async let benReport = sync(ben, port: port, token: tokens["ben"])
                let (a, b) = try await (annaReport, benReport)
                #expect(a.isComplete && a.inserted == 480 && a.duplicates == 0)
                #expect(b.isComplete && b.inserted == 330 && b.duplicates == 0)

                let annaCaller = SinkCaller(port: port, token: tokens["anna"])
                let benCaller = SinkCaller(port: port, token: tokens["ben"])
                #expect(try await annaCaller.storedUUIDs() == anna.storeUUIDs)
                #expect(try await benCaller.storedUUIDs() == ben.storeUUIDs)
                #expect(try await annaCaller.send(.GET, "/samples/types").json["types"] as? [String: Int]
                        == [SampleType.stepCount.rawValue: 480])
                #expect(try await benCaller.send(.GET, "/steps?limit=1").json["storedCount"] as? Int == 330)
                let annaDays = try await annaCaller.send(.GET, "/steps/daily").json["days"] as? [[String: Any]]
                let annaTotal = annaDays?.compactMap { $0["steps"] as? Double }.reduce(0, +)
                #expect(annaTotal == anna.samples.map(\.value).reduce(0, +))

                // Ben can neither delete nor clear Anna's samples; the same uuid is his own sample under his name.
                let annaUUIDs = anna.samples.prefix(5).map { "\"\($0.uuid.uuidString)\"" }.joined(separator: ",")
                let delete = try await benCaller.send(.POST, "/steps/delete", body: Array(#"{"uuids":[\#(annaUUIDs)]}"#.utf8))
                #expect(delete.json["deleted"] as? Int == 0 && delete.json["missing"] as? Int == 5)
                var borrowed = anna.samples[0]
                borrowed.value = 9_999
                #expect(try await benCaller.post([borrowed]).json["inserted"] as? Int == 1)
                #expect(try await benCaller.send(.DELETE, "/steps").json["deleted"] as? Int == 331)
                #expect(try await benCaller.storedUUIDs().isEmpty)
                #expect(try await annaCaller.storedUUIDs() == anna.storeUUIDs)
                let first = try await annaCaller.send(.GET, "/steps?limit=1000").json["samples"] as? [[String: Any]]
                #expect(first?.contains { $0["count"] as? Double == 9_999 } == false)
            }
        }
    }

    @Test("no token, a wrong token, a malformed header and a revoked token are answered 401; /health needs none")
    func credentials() async throws {
        try await PostgresHarness.withDatabase { url in
            let tokens = try await addClients(["anna", "ben"], url: url)
            try await withPostgresSink(url: url) { port async throws in
                let caller = SinkCaller(port: port, token: nil)
                for path in ["/steps", "/samples?type=HKQuantityTypeIdentifierHeartRate", "/samples/types", "/steps/daily"] {
                    let reply = try await caller.send(.GET, path)
                    #expect(reply.status == 401, "\(path): \(reply.text)")
                    #expect(reply.headers["www-authenticate"] == "Bearer")
                }
                let wrong = ClientToken.random().text
                for header in ["Bearer \(wrong)", "Basic \(tokens["anna"]!)", "Bearer", tokens["anna"]!,
                               "Bearer \(tokens["anna"]!.dropLast())"] {
                    #expect(try await caller.send(.GET, "/steps", authorization: header).status == 401, "\(header.prefix(12))")
                }
                let posted = try await caller.send(.POST, "/samples", body: Array(#"{"samples":[]}"#.utf8),
                                                   authorization: "Bearer \(wrong)")
                #expect(posted.status == 401)
                #expect(try await caller.send(.GET, "/health").status == 200)
                #expect(try await caller.send(.GET, "/steps", authorization: "bearer \(tokens["anna"]!)").status == 200)
            }
            // Revoked: a sink started afterwards refuses it at once; Ben is unaffected.
            let configuration = PostgresSampleStorage.Configuration(
                url: try DatabaseURL(url), maximumConnections: 1, leaseTimeout: PostgresHarness.patientLeaseTimeout, time: .system)
            try await PostgresSampleStorage.withStorage(configuration: configuration, logger: quietLogger) {
                try await $0.revokeClient(name: "anna")
            }
            try await withPostgresSink(url: url) { port async throws in
                #expect(try await SinkCaller(port: port, token: tokens["anna"]).send(.GET, "/steps").status == 401)
                #expect(try await SinkCaller(port: port, token: tokens["ben"]).send(.GET, "/steps").status == 200)
            }
        }
    }

    @Test("every route and method but /health answers 401 without a valid token and changes nothing")
    func everyRouteNeedsAToken() async throws {
        try await PostgresHarness.withDatabase { url in
            let tokens = try await addClients(["anna"], url: url)
            let samples = stepSamples(5)
            try await withPostgresSink(url: url) { port async throws in
                let anna = SinkCaller(port: port, token: tokens["anna"])
                #expect(try await anna.post(samples).json["inserted"] as? Int == 5)
                // Bodies that would change something if a route let them through: new samples, or deletions.
                let uuids = samples.map { "\"\($0.uuid.uuidString)\"" }.joined(separator: ",")
                let deletion = Array(#"{"type":"HKQuantityTypeIdentifierStepCount","uuids":[\#(uuids)]}"#.utf8)
                let newSteps = WireEncoder.encodeRequest(stepSamples(3, first: 100).map(WireSample.init))
                var newSamples = Array(#"{"samples":["#.utf8)
                WireEncoder.appendSampleObject(stepSamples(1, first: 200)[0], to: &newSamples)
                newSamples += Array("]}".utf8)
                let bodies = ["/steps": newSteps, "/samples": newSamples]
                let stranger = SinkCaller(port: port, token: nil)
                var tried = 0
                for (path, methods) in SinkResponder.routes.sorted(by: { $0.key < $1.key }) {
                    for method in methods {
                        let verb = HTTPMethod(rawValue: method.rawValue)
                        let payload = verb == .POST ? bodies[path, default: deletion] : nil
                        for authorization in [nil, "Bearer \(ClientToken.random().text)"] {
                            let reply = try await stranger.send(verb, path, body: payload, authorization: authorization)
                            #expect(reply.status == 401, "\(method) \(path): \(reply.text)")
                            #expect(reply.headers["www-authenticate"] == "Bearer")
                            tried += 1
                        }
                    }
                }
                #expect(tried == 2 * SinkResponder.routes.values.map(\.count).reduce(0, +) && tried >= 20)
                #expect(try await stranger.send(.GET, "/health").status == 200)
                #expect(try await anna.storedUUIDs() == Set(samples.map(\.uuid)))
            }
        }
    }

    @Test("every 200 is already committed: another session counts the samples the moment the answer arrives")
    func answeredAfterCommit() async throws {
        try await PostgresHarness.withDatabase { url in
            let token = try await addClients(["anna"], url: url)["anna"]
            let server = try await PostgresHarness.sharedServer()
            try await withPostgresSink(url: url) { port async throws in
                let anna = SinkCaller(port: port, token: token)
                for b in 0..<12 {
                    let reply = try await anna.post(stepSamples(250, first: b * 250))
                    #expect(reply.status == 200 && reply.json["inserted"] as? Int == 250)
                    #expect(try await server.psql("SELECT count(*) FROM samples", url: url) == "\((b + 1) * 250)\n")
                }
            }
        }
    }

    @Test("revocation reaches a running sink once its cache entry expires (half a second, on the injected clock)")
    func revocationWithinTheCacheLifetime() async throws {
        try await PostgresHarness.withDatabase { url in
            let tokens = try await addClients(["anna"], url: url)
            let clock = TestClock(.manual)  // moves only when advanced
            try await withPostgresSink(url: url, clock: clock) { port in
                let anna = SinkCaller(port: port, token: tokens["anna"])
                #expect(try await anna.send(.GET, "/steps").status == 200)
                let configuration = PostgresSampleStorage.Configuration(
                    url: try DatabaseURL(url), maximumConnections: 1, leaseTimeout: PostgresHarness.patientLeaseTimeout, time: .system)
                try await PostgresSampleStorage.withStorage(configuration: configuration, logger: quietLogger) {
                    try await $0.revokeClient(name: "anna")
                }
                clock.advance(by: .milliseconds(499))
                #expect(try await anna.send(.GET, "/steps").status == 200, "still inside the cache lifetime")
                clock.advance(by: .milliseconds(1))
                #expect(try await anna.send(.GET, "/steps").status == 401)
                clock.advance(by: .seconds(5))
                #expect(try await anna.send(.GET, "/steps").status == 401)
            }
        }
    }

    @Test("two sinks on one database receiving the same client's overlapping batches at once store each uuid once")
    func twoSinksOverlapping() async throws {
        try await PostgresHarness.withDatabase { url in
            let token = try await addClients(["anna"], url: url)["anna"]
            let all = (0..<12_000).map { i in
                HealthSample(uuid: UUID(), type: .stepCount, startMs: 1_700_000_000_000 + Int64(i) * 60_000,
                             endMs: 1_700_000_000_000 + Int64(i) * 60_000 + 30_000, value: Double(i % 90 + 1),
                             unit: "count", sourceName: "", sourceBundleId: "com.apple.health", deviceName: "iPhone")
            }
            // 24 batches of 1,000, each overlapping the next by half: every uuid is in two batches (the first and
            // last halves in one), and consecutive batches go to different sinks at the same time.
            let batches = (0..<23).map { b in Array(all[(b * 500)..<(b * 500 + 1_000)]) } + [Array(all[11_500...]) + Array(all[..<500])]
            let outcomes = try await withPostgresSink(url: url) { first in
                try await withPostgresSink(url: url) { second in
                    try await withThrowingTaskGroup(of: (Int, Int, Int).self) { group in
                        for (b, batch) in batches.enumerated() {
                            group.addTask {
                                let reply = try await SinkCaller(port: b % 2 == 0 ? first : second, token: token).post(batch)
                                return (reply.status, reply.json["inserted"] as? Int ?? -1,
                                        reply.json["duplicates"] as? Int ?? -1)
                            }
                        }
                        return try await group.reduce(into: [(Int, Int, Int)]()) { $0.append($1) }
                    }
                }
            }
            #expect(outcomes.allSatisfy { $0.0 == 200 })
            #expect(outcomes.map(\.1).reduce(0, +) == 12_000)
            #expect(outcomes.map(\.2).reduce(0, +) == 12_000)
            let server = try await PostgresHarness.sharedServer()
            #expect(try await server.psql("SELECT count(*), count(DISTINCT uuid) FROM samples", url: url) == "12000|12000\n")
            let stored = try await withPostgresSink(url: url) { port in
                try await SinkCaller(port: port, token: token).storedUUIDs()
            }
            #expect(stored == Set(all.map(\.uuid)))
        }
    }

    @Test("no token is stored in clear: a dump of the whole database holds each token's SHA-256, never the token")
    func noTokenInClear() async throws {
        try await PostgresHarness.withDatabase { url in
            let tokens = try await addClients(["anna", "ben", "chris"], url: url)
            let fixture = try SyncFixture(intervals: 3, samplesPerInterval: 5)
            try await withPostgresSink(url: url) { port async throws in
                #expect(try await sync(fixture, port: port, token: tokens["anna"]).isComplete)
                _ = try await SinkCaller(port: port, token: tokens["ben"]).send(.GET, "/steps")
            }
            let dump = try await PostgresHarness.sharedServer().dump(url: url)
            #expect(dump.contains("COPY public.clients"))
            for (name, token) in tokens {
                let hex = ClientToken(text: token).hash.map { String(format: "%02x", $0) }.joined()
                #expect(dump.contains("\\\\x\(hex)"), "the dump should hold \(name)'s hash")
                #expect(!dump.contains(token), "\(name)'s token is in the database")
                let standard = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                #expect(!dump.contains(standard))
            }
        }
    }
}
