import Foundation
import StepSyncCore
import StepSyncEngine
import StepSyncPostgres
import StepSyncTestSupport
import Synchronization
import Testing

/// Real processes and a real database server that goes away: `stepsync clients`, `serve --database` killed with
/// SIGKILL mid-sync, PostgreSQL stopped and started mid-sync.
@Suite("PostgreSQL sink as processes: clients command, kill -9, database restart",
       .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"), .serialized)
struct PostgresProcessTests {
    @Test("clients add prints the token as its last line; list shows names, created, last seen and counts; revoke refuses the token")
    func clientsCommand() async throws {
        try await PostgresHarness.withDatabase { url in
            let add = try await StepSyncBinary.run(["clients", "add", "anna", "--database", url])
            #expect(add.status == 0, "\(add.stderr)")
            let token = try #require(add.stdout.split(separator: "\n").last.map(String.init))
            #expect(token.count == 43 && add.stdout == token + "\n")
            #expect(add.stderr.contains("shown only this once"))
            #expect(!add.stderr.contains(token))

            let again = try await StepSyncBinary.run(["clients", "add", "anna", "--database", url])
            #expect(again.status == 1 && again.stderr.contains("a client named anna already exists"))
            let spaced = try await StepSyncBinary.run(["clients", "add", "anna smith", "--database", url])
            #expect(spaced.status == 1 && spaced.stderr.contains("client name holds U+20"))
            let missing = try await StepSyncBinary.run(["clients", "list"])
            #expect(missing.status == 64 && missing.stderr.contains("--database"))
            #expect(try await StepSyncBinary.run(["clients", "add", "ben", "--database", url]).status == 0)

            try await withPostgresSink(url: url) { port in
                let reply = try await SinkCaller(port: port, token: token).post(
                    (0..<3).map { i in
                        HealthSample(uuid: UUID(), type: .heartRate, startMs: 1_700_000_000_000 + Int64(i), endMs: 1_700_000_000_000 + Int64(i),
                                     value: 60, unit: "count/min", sourceName: "Watch", sourceBundleId: "com.apple.health")
                    })
                #expect(reply.status == 200 && reply.json["inserted"] as? Int == 3)
            }
            let list = try await StepSyncBinary.run(["clients", "list", "--database", url, "--json"])
            #expect(list.status == 0, "\(list.stderr)")
            let clients = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])["clients"] as? [[String: Any]]
            #expect(clients?.map { $0["name"] as? String } == ["anna", "ben"])
            #expect(clients?.first?["samples"] as? Int == 3 && clients?.last?["samples"] as? Int == 0)
            #expect(clients?.first?["types"] as? [String: Int] == [SampleType.heartRate.rawValue: 3])
            #expect(clients?.first?["lastSeen"] is String && clients?.last?["lastSeen"] is NSNull)
            #expect((clients?.first?["created"] as? String).flatMap(ISO8601Millis.parse) != nil)
            #expect(!list.stdout.contains(token))

            let revoke = try await StepSyncBinary.run(["clients", "revoke", "anna", "--database", url])
            #expect(revoke.status == 0 && revoke.stdout.contains("Client anna revoked"))
            let unknown = try await StepSyncBinary.run(["clients", "revoke", "zoe", "--database", url])
            #expect(unknown.status == 1 && unknown.stderr.contains("no client named zoe"))
            let table = try await StepSyncBinary.run(["clients", "list", "--database", url])
            let annaLine = table.stdout.split(separator: "\n").first { $0.hasPrefix("anna") }
            #expect(annaLine?.contains("revoked") == true && annaLine?.hasSuffix(" 3") == true, "\(table.stdout)")
            try await withPostgresSink(url: url) { port async throws in
                #expect(try await SinkCaller(port: port, token: token).send(.GET, "/steps").status == 401)
            }
        }
    }

    @Test("serve --database with nobody answering exits 1 naming it; a malformed URL is refused before anything runs")
    func unreachableDatabase() async throws {
        let port = try PostgresHarness.freePort()
        let down = try await StepSyncBinary.run(["serve", "--port", "0", "--database",
                                                  "postgresql://anna:hunter2@127.0.0.1:\(port)/health?sslmode=disable"])
        #expect(down.status == 1 && down.stderr.contains("error: the database is unavailable"), "\(down.stderr)")
        #expect(!down.stdout.contains("listening") && !down.stderr.contains("hunter2"))
        let malformed = try await StepSyncBinary.run(["clients", "list", "--database", "mysql://anna:hunter2@db/x"])
        #expect(malformed.status == 64 && malformed.stderr.contains("must start with postgresql://"))
        #expect(!malformed.stderr.contains("hunter2"))
        let both = try await StepSyncBinary.run(["serve", "--database", "postgresql://anna@db/x", "--token", "t"])
        #expect(both.status == 64 && both.stderr.contains("each client has its own token"))
    }

    @Test("serve with STEPSYNC_DATABASE_URL; stepsync sync with a wrong --token stores nothing and exits 1, then with STEPSYNC_TOKEN alone ends exact")
    func syncCommandWithAToken() async throws {
        try await PostgresHarness.withDatabase { url in
            let token = try #require(try await addClients(["anna"], url: url)["anna"])
            let fixture = try SyncFixture(intervals: 6, samplesPerInterval: 25)
            let port = try PostgresHarness.freePort()
            let serve = try await StepSyncBinary.serve(url: url, port: port, urlFromEnvironment: true)
            let arguments = ["sync", "--data-dir", fixture.path, "--server", "http://127.0.0.1:\(port)",
                             "--backoff-base", "0.01", "--json"]
            let server = try await PostgresHarness.sharedServer()

            let wrong = try await StepSyncBinary.run(arguments + ["--token", ClientToken.random().text],
                                                     environment: ["STEPSYNC_TOKEN": ""])
            #expect(wrong.status == 1, "\(wrong.stderr)")
            let refused = try JSONSerialization.jsonObject(with: Data(wrong.stdout.utf8)) as? [String: Any]
            #expect(refused?["failed"] as? Int == 6 && refused?["synced"] as? Int == 0, "\(wrong.stdout)")
            #expect(try await server.psql("SELECT count(*) FROM samples", url: url) == "0\n")

            let right = try await StepSyncBinary.run(arguments + ["--retry-failed"], environment: ["STEPSYNC_TOKEN": token])
            #expect(right.status == 0, "\(right.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(right.stdout.utf8)) as? [String: Any]
            #expect(report?["synced"] as? Int == 6 && report?["inserted"] as? Int == 150, "\(right.stdout)")
            #expect(try await SinkCaller(port: port, token: token).storedUUIDs() == fixture.storeUUIDs)
            #expect(try await server.psql("SELECT count(*) FROM samples", url: url) == "150\n")
            kill(serve.pid, SIGTERM)
            #expect(try await serve.wait() == 0)
        }
    }

    @Test("serve --database killed with SIGKILL mid-sync, restarted on the same port: the sync ends exact")
    func killNineMidSync() async throws {
        try await PostgresHarness.withDatabase { url in
            let token = try await addClients(["anna"], url: url)["anna"]
            let fixture = try SyncFixture(intervals: 60, samplesPerInterval: 30)
            let port = try PostgresHarness.freePort()
            let first = try await StepSyncBinary.serve(url: url, port: port)
            let (killed, killedContinuation) = AsyncStream<Int>.makeStream()
            let doneAtKill = Counter()
            async let restarted: StepSyncBinary = {
                for await _ in killed { break }
                _ = try await first.wait()
                return try await StepSyncBinary.serve(url: url, port: port)
            }()
            let report = try await sync(fixture, port: port, token: token) { progress in
                // At the first report of 8 or more done (reports may skip a count): kill once.
                if progress.done >= 8, doneAtKill.value == 0 {
                    kill(first.pid, SIGKILL)
                    doneAtKill.set(progress.done)
                    killedContinuation.yield(progress.done)
                    killedContinuation.finish()
                }
            }
            let second = try await restarted
            #expect(first.process.terminationReason == .uncaughtSignal && first.process.terminationStatus == SIGKILL)
            #expect(doneAtKill.value >= 8 && doneAtKill.value < 60, "killed after \(doneAtKill.value) of 60")
            #expect(report.isComplete && report.synced == 60 && report.failed == 0, "\(report)")
            #expect(try await SinkCaller(port: port, token: token).storedUUIDs() == fixture.storeUUIDs)
            let server = try await PostgresHarness.sharedServer()
            #expect(try await server.psql("SELECT count(*) FROM samples", url: url) == "1800\n")
            kill(second.pid, SIGTERM)
            #expect(try await second.wait() == 0)
        }
    }

    @Test("PostgreSQL stopped (-m fast) and started again mid-sync: 503s with Retry-After meanwhile, then exact")
    func databaseRestartMidSync() async throws {
        try await PostgresHarness.withServer { server in
            let url = try await server.createDatabase()
            let token = try await addClients(["anna"], url: url)["anna"]
            let fixture = try SyncFixture(intervals: 150, samplesPerInterval: 20)
            let log = StatusLog()
            // A short lease timeout: while the database is down, requests are answered 503 after 2 s rather than queued.
            try await withPostgresSink(url: url, logger: log.logger, leaseTimeout: .seconds(2)) { sinkPort in
                try await FaultFront.withFront(sinkPort: sinkPort, plan: FaultPlan(delay: .milliseconds(30))) { port, _ in
                    let (started, startedContinuation) = AsyncStream<Void>.makeStream()
                    async let outage: (Int, SinkCaller.Reply) = {
                        for await _ in started { break }
                        try await server.stop()
                        // Event, not time: wait until the sink has answered 503 three times, then bring it back.
                        while log.count(503) < 3 { try await Task.sleep(for: .milliseconds(20)) }
                        let during = log.count(200)
                        let refused = try await SinkCaller(port: sinkPort, token: token).post(Array(fixture.samples.prefix(2)))
                        try await server.start()
                        return (during, refused)
                    }()
                    let report = try await sync(fixture, port: port, token: token,
                                                policy: RetryPolicy(maxAttempts: 400, baseSeconds: 0.02, maxDelaySeconds: 0.25)) {
                        if $0.done == 5 { startedContinuation.yield(); startedContinuation.finish() }
                    }
                    let (okBeforeRestart, refused) = try await outage
                    #expect(refused.status == 503 && refused.headers["retry-after"] == "1", "\(refused.text)")
                    #expect((refused.json["message"] as? String)?.hasPrefix("the database is unavailable") == true)
                    #expect(report.isComplete && report.synced == 150 && report.failed == 0, "\(report)")
                    #expect(okBeforeRestart < 150, "the database stopped only after the sync had ended")
                    #expect(log.count(503) >= 3)
                }
                #expect(try await SinkCaller(port: sinkPort, token: token).storedUUIDs() == fixture.storeUUIDs)
            }
            #expect(try await server.psql("SELECT count(*), count(DISTINCT uuid) FROM samples", url: url) == "3000|3000\n")
        }
    }
}

/// A value set from a synchronous callback and read afterwards.
final class Counter: Sendable {
    private let stored = Mutex(0)
    func set(_ value: Int) { stored.withLock { $0 = value } }
    var value: Int { stored.withLock { $0 } }
}
