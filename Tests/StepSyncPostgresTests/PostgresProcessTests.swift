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
            let add = try await StepSyncProcess.output(["clients", "add", "anna", "--database", url])
            #expect(add.status == 0, "\(add.stderr)")
            let token = try #require(add.stdout.split(separator: "\n").last.map(String.init))
            #expect(token.count == 46 && token.hasPrefix("ss_") && add.stdout == token + "\n")
            #expect(add.stderr.contains("shown only this once"))
            #expect(!add.stderr.contains(token))

            let again = try await StepSyncProcess.output(["clients", "add", "anna", "--database", url])
            #expect(again.status == 1 && again.stderr.contains("a client named anna already exists"))
            let spaced = try await StepSyncProcess.output(["clients", "add", "anna smith", "--database", url])
            #expect(spaced.status == 1 && spaced.stderr.contains("client name holds U+20"))
            let missing = try await StepSyncProcess.output(["clients", "list"])
            #expect(missing.status == 64 && missing.stderr.contains("--database"))
            #expect(try await StepSyncProcess.output(["clients", "add", "ben", "--database", url]).status == 0)

            try await withPostgresSink(url: url) { port in
                let reply = try await SinkCaller(port: port, token: token).post(
                    (0..<3).map { i in
                        HealthSample(uuid: UUID(), type: .heartRate, startMs: 1_700_000_000_000 + Int64(i), endMs: 1_700_000_000_000 + Int64(i),
                                     value: 60, unit: "count/min", sourceName: "Watch", sourceBundleId: "com.apple.health")
                    })
                #expect(reply.status == 200 && reply.json["inserted"] as? Int == 3)
            }
            let list = try await StepSyncProcess.output(["clients", "list", "--database", url, "--json"])
            #expect(list.status == 0, "\(list.stderr)")
            let clients = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])["clients"] as? [[String: Any]]
            #expect(clients?.map { $0["name"] as? String } == ["anna", "ben"])
            #expect(clients?.first?["samples"] as? Int == 3 && clients?.last?["samples"] as? Int == 0)
            #expect(clients?.first?["types"] as? [String: Int] == [SampleType.heartRate.rawValue: 3])
            #expect(clients?.first?["lastSeen"] is String && clients?.last?["lastSeen"] is NSNull)
            #expect((clients?.first?["created"] as? String).flatMap(ISO8601Millis.parse) != nil)
            #expect(!list.stdout.contains(token))

            let revoke = try await StepSyncProcess.output(["clients", "revoke", "anna", "--database", url])
            #expect(revoke.status == 0 && revoke.stdout.contains("Client anna revoked"))
            let unknown = try await StepSyncProcess.output(["clients", "revoke", "zoe", "--database", url])
            #expect(unknown.status == 1 && unknown.stderr.contains("no client named zoe"))
            let table = try await StepSyncProcess.output(["clients", "list", "--database", url])
            let annaLine = table.stdout.split(separator: "\n").first { $0.hasPrefix("anna") }
            #expect(annaLine?.contains("revoked") == true && annaLine?.hasSuffix(" 3") == true, "\(table.stdout)")
            // Human output in --tz (UTC+05:30, so no UTC time could pass for it), naming the zone; --json stays UTC.
            let zoned = try await StepSyncProcess.output(["clients", "list", "--database", url, "--tz", "Asia/Kolkata"])
            let lines = zoned.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first?.contains("created (Asia/Kolkata)") == true
                    && lines.first?.contains("last seen (Asia/Kolkata)") == true, "\(zoned.stdout)")
            let createdText = try #require(clients?.first?["created"] as? String)
            let created = try #require(ISO8601Millis.parse(createdText))
            let local = DateFormatter()
            local.locale = Locale(identifier: "en_US_POSIX")
            local.timeZone = TimeZone(identifier: "Asia/Kolkata")
            local.dateFormat = "yyyy-MM-dd HH:mm:ss"
            let expected = local.string(from: Date(timeIntervalSince1970: Double(created) / 1000))
            #expect(lines.first { $0.hasPrefix("anna") }?.contains(expected) == true, "\(expected) in \(zoned.stdout)")
            try await withPostgresSink(url: url) { port async throws in
                #expect(try await SinkCaller(port: port, token: token).send(.GET, "/steps").status == 401)
            }
        }
    }

    @Test("serve --database with nobody answering exits 1 naming it; a malformed URL is refused before anything runs")
    func unreachableDatabase() async throws {
        let closed = try ClosedPort()
        defer { closed.release() }
        let port = closed.port
        let down = try await StepSyncProcess.output(["serve", "--port", "0", "--database",
                                                  "postgresql://anna:hunter2@127.0.0.1:\(port)/health?sslmode=disable"])
        #expect(down.status == 1 && down.stderr.contains("error: cannot reach the PostgreSQL database health at 127.0.0.1:\(port): the database is unavailable"),
                "\(down.stderr)")
        #expect(!down.stdout.contains("listening") && !down.stderr.contains("hunter2"))
        let malformed = try await StepSyncProcess.output(["clients", "list", "--database", "mysql://anna:hunter2@db/x"])
        #expect(malformed.status == 64 && malformed.stderr.contains("must start with postgresql://"))
        #expect(!malformed.stderr.contains("hunter2"))
        let both = try await StepSyncProcess.output(["serve", "--database", "postgresql://anna@db/x", "--token", "t"])
        #expect(both.status == 64 && both.stderr.contains("each client has its own token"))
    }

    @Test("serve with STEPSYNC_DATABASE_URL; stepsync sync with a wrong --token stores nothing and exits 1, then with STEPSYNC_TOKEN alone ends exact")
    func syncCommandWithAToken() async throws {
        try await PostgresHarness.withDatabase { url in
            let token = try #require(try await addClients(["anna"], url: url)["anna"])
            let fixture = try SyncFixture(intervals: 6, samplesPerInterval: 25)
            let port = try PostgresHarness.freePort()
            let serve = try await StepSyncProcess.serve(url: url, port: port, urlFromEnvironment: true)
            let arguments = ["sync", "--data-dir", fixture.path, "--server", "http://127.0.0.1:\(port)",
                             "--backoff-base", "0.01", "--json"]
            let server = try await PostgresHarness.sharedServer()

            // A leading "-" on purpose: --token takes it as the value (CI once drew such a random token and got exit 64).
            let wrong = try await StepSyncProcess.output(arguments + ["--token", "-" + ClientToken.random().text],
                                                     environment: ["STEPSYNC_TOKEN": ""])
            #expect(wrong.status == 1, "\(wrong.stderr)")
            let refused = try JSONSerialization.jsonObject(with: Data(wrong.stdout.utf8)) as? [String: Any]
            // A refused client stops the run at once (issue 23.2): nothing failed, everything still pending.
            #expect(refused?["failed"] as? Int == 0 && refused?["synced"] as? Int == 0 && refused?["pending"] as? Int == 6,
                    "\(wrong.stdout)")
            #expect((refused?["gaveUp"] as? String)?.contains("refuses this client (HTTP 401") == true, "\(wrong.stdout)")
            #expect(try await server.psql("SELECT count(*) FROM samples", url: url) == "0\n")

            let right = try await StepSyncProcess.output(arguments + ["--retry-failed"], environment: ["STEPSYNC_TOKEN": token])
            #expect(right.status == 0, "\(right.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(right.stdout.utf8)) as? [String: Any]
            #expect(report?["synced"] as? Int == 6 && report?["inserted"] as? Int == 150, "\(right.stdout)")
            #expect(try await SinkCaller(port: port, token: token).storedUUIDs() == fixture.storeUUIDs)
            #expect(try await server.psql("SELECT count(*) FROM samples", url: url) == "150\n")

            // Issue 23: reset --remote empties every type this client holds at the PostgreSQL sink, counted per type.
            let reset = try await StepSyncProcess.output(
                ["reset", "--data-dir", fixture.path, "--remote", "--server", "http://127.0.0.1:\(port)", "--yes"],
                environment: ["STEPSYNC_TOKEN": token])
            #expect(reset.status == 0, "\(reset.stderr)")
            #expect(reset.stdout.contains("sink emptied: deleted 150 samples of 1 type\n  StepCount: 150\n"), "\(reset.stdout)")
            #expect(try await server.psql("SELECT count(*) FROM samples", url: url) == "0\n")
            kill(serve.pid, SIGTERM)
            #expect(try await serve.wait() == 0)
        }
    }

    @Test("serve --database killed with SIGKILL mid-sync (the sync stopped across each kill and restart), restarted on the same port: the sync ends exact")
    func killNineMidSync() async throws {
        try await PostgresHarness.withDatabase { url in
            let server = try await PostgresHarness.sharedServer()
            let token = try #require(try await addClients(["anna"], url: url)["anna"])
            // 8,000 rows: enough that the sync cannot finish between seeing a new row and being stopped, even on a fast
            // machine with a slow `psql` poll (with 3,000 it once did, in a clean-clone run).
            let fixture = try SyncFixture(intervals: 400, samplesPerInterval: 20)
            let port = try PostgresHarness.freePort()
            var serve = try await StepSyncProcess.serve(url: url, port: port)
            let first = serve
            let arguments = ["sync", "--data-dir", fixture.path, "--server", "http://127.0.0.1:\(port)", "--token", token,
                             "--concurrency", "2", "--request-samples", "0", "--backoff-base", "0.01",
                             "--max-attempts", "6", "--json"]
            let sync = try StepSyncProcess(arguments, killOnRelease: true)
            var kills = 0
            var rowsAtKill: [Int] = []
            for _ in 0..<3 {
                // Kill once the sink has committed something since it (re)started, i.e. in the middle of the sync.
                // The sync is stopped (SIGSTOP) across the kill and the restart, so it is still mid-run however fast
                // this machine is: its requests in flight are cut by the kill and meet a sink that is up again when
                // it continues.
                let before = try await Self.rows(server, url)
                let grew = try await waitUntil("a row committed after \(before) rows", while: { sync.process.isRunning }) {
                    try await Self.rows(server, url) > before
                }
                guard grew else { break }
                kill(sync.pid, SIGSTOP)
                let rows = try await Self.rows(server, url)
                // Every row may have gone in between the poll and the stop (a fast machine's last requests): then
                // there is nothing left for a kill to cut.
                guard rows < 8_000 else {
                    kill(sync.pid, SIGCONT)
                    break
                }
                kills += 1
                rowsAtKill.append(rows)
                kill(serve.pid, SIGKILL)
                _ = try await serve.wait()
                serve = try await StepSyncProcess.serve(url: url, port: port)
                kill(sync.pid, SIGCONT)
            }
            // A request cut by a kill counts as one failed attempt; a rerun picks up what was left failed.
            let (status, report) = try await Self.finish(sync, rerunning: arguments)
            #expect(status == 0, "\(sync.stderr.suffix(800))")
            #expect(first.process.terminationReason == .uncaughtSignal && first.process.terminationStatus == SIGKILL)
            // A kill happens only while rows are left (above), so two kills mean two cuts mid-sync.
            #expect(kills >= 2, "kills at rows \(rowsAtKill): the sync ended first")
            let json = try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any]
            #expect(json?["failed"] as? Int == 0 && json?["complete"] as? Bool == true, "\(report)")
            #expect(try await SinkCaller(port: port, token: token).storedUUIDs() == fixture.storeUUIDs)
            #expect(try await server.psql("SELECT count(*), count(DISTINCT uuid) FROM samples", url: url) == "8000|8000\n")
            kill(serve.pid, SIGTERM)
            #expect(try await serve.wait() == 0)
        }
    }

    @Test("PostgreSQL stopped (-m fast) and started again mid-sync: 503s with Retry-After meanwhile, then exact")
    func databaseRestartMidSync() async throws {
        try await PostgresHarness.withServer { server in
            let url = try await server.createDatabase()
            let token = try #require(try await addClients(["anna"], url: url)["anna"])
            let fixture = try SyncFixture(intervals: 150, samplesPerInterval: 20)
            let log = RequestLog()
            // A short lease timeout: while the database is down, requests are answered 503 after 2 s rather than queued.
            try await withPostgresSink(url: url, logger: log.logger, leaseTimeout: .seconds(2)) { port in
                let sync = try StepSyncProcess([
                    "sync", "--data-dir", fixture.path, "--server", "http://127.0.0.1:\(port)", "--token", token,
                    "--concurrency", "2", "--request-samples", "0", "--backoff-base", "0.02", "--max-attempts", "50",
                    "--give-up-after", "0", "--json"], killOnRelease: true)
                // Mid-sync: once something is committed, stop the sync (SIGSTOP) while the database goes down, so
                // that it cannot finish meanwhile, then let it run into the outage.
                _ = try await waitUntil("the sync's first committed row", while: { sync.process.isRunning }) {
                    log.count(200) > 0
                }
                kill(sync.pid, SIGSTOP)
                let okBeforeStop = log.count(200)
                try await server.stop()
                kill(sync.pid, SIGCONT)
                // Event, not time: wait until the sink has answered 503 three times, then bring the database back.
                let refusals = try await waitUntil("three 503s while the database is down", while: { true }) {
                    log.count(503) >= 3
                }
                let refused = try await SinkCaller(port: port, token: token).post(Array(fixture.samples.prefix(2)))
                try await server.start()
                let status = try await sync.wait(timeout: .seconds(300))
                #expect(status == 0, "\(sync.stderr.suffix(800))")
                let report = try JSONSerialization.jsonObject(with: Data(sync.stdout.utf8)) as? [String: Any]
                #expect(report?["synced"] as? Int == 150 && report?["failed"] as? Int == 0, "\(sync.stdout)")
                #expect(refusals)
                #expect(refused.status == 503 && refused.headers["retry-after"] == "1", "\(refused.text)")
                #expect((refused.json["message"] as? String)?.hasPrefix("the database is unavailable") == true)
                #expect(okBeforeStop < 150, "the database stopped only after the sync had ended")
                #expect(try await SinkCaller(port: port, token: token).storedUUIDs() == fixture.storeUUIDs)
            }
            #expect(try await server.psql("SELECT count(*), count(DISTINCT uuid) FROM samples", url: url) == "3000|3000\n")
        }
    }

    /// Waits (up to 300 s) for `sync` to end, then reruns `stepsync <arguments> --retry-failed` up to 3 times while
    /// the status is not 0: a request cut by a kill or a stop counts as one failed attempt, which a rerun picks up.
    /// Returns the last status and the last `--json` report.
    static func finish(_ sync: StepSyncProcess, rerunning arguments: [String]) async throws
        -> (status: Int32, report: String)
    {
        var status = try await sync.wait(timeout: .seconds(300))
        var report = sync.stdout
        var reruns = 0
        while status != 0, reruns < 3 {
            let again = try await StepSyncProcess.output(arguments + ["--retry-failed"])
            (status, report) = (again.status, again.stdout)
            reruns += 1
        }
        return (status, report)
    }

    /// How many samples the database of `url` holds.
    static func rows(_ server: PostgresServer, _ url: String) async throws -> Int {
        let text = try await server.psql("SELECT count(*) FROM samples", url: url)
        guard let count = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw PostgresHarness.Failure("count(*) answered \(text.prefix(64))")
        }
        return count
    }
}

/// Polls `condition` every 5 ms until it holds (true) or `running` turns false (false); throws, naming `what`, after
/// `timeout`: a test never waits forever.
func waitUntil(_ what: String, timeout: Duration = .seconds(120), while running: () -> Bool,
               _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while running() {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else {
            throw PostgresHarness.Failure("waited \(timeout) for \(what)")
        }
        try await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}
