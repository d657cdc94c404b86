import Foundation
import StepSyncCore
import StepSyncTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 31: on PostgreSQL one client's reads cost the database's work against the deadline, not the sink's decoding,
/// and cannot turn `/health` or another client's writes to 503. A real sink over the shared PostgreSQL server; the
/// history is written straight into `samples` by SQL (a client's 60 days in a second).
@Suite("PostgreSQL reads at their own cost", .serialized,
       .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"))
struct PostgresReadCostTests {
    /// Days of history: 60 × 1,440 = 86,400 step samples.
    static let days = 60
    /// The daily-totals request over them.
    static let dailyPath = "/steps/daily?from=2020-01-01&to=2020-02-29&tz=UTC"
    /// The database deadline of the heavy tests: what a statement of a page or a chunk of step spans needs many
    /// times over, even in a debug build (whose NIO parses ≈ 10k rows a second: 0.5 s for a 5,000-row statement),
    /// and a fraction of what the sink's decoding of the whole answer takes there (≈ 20 s for 86,400 spans, more
    /// with three at once) — which counted against the deadline before issue 31.
    static let heavyDeadline: Duration = .seconds(10)

    /// Stores `days` × 1,440 Watch step samples for the client `name`: one a minute from 2020-01-01T00:00Z, each
    /// 50 s long and 10 steps, so every UTC day totals 14,400 steps.
    static func storeHistory(_ server: PostgresServer, url: String, client name: String) async throws {
        let type = SampleType.stepCount.rawValue
        _ = try await server.psql("""
            INSERT INTO samples (client_id, uuid, type, type_key, start_at, end_at, value, unit, source_name,
                                 source_bundle_id, device_name, device_model)
            SELECT (SELECT id FROM clients WHERE name = '\(name)' AND revoked_at IS NULL), gen_random_uuid(),
                   '\(type)', stepsync_type_key('\(type)'),
                   timestamptz '2020-01-01 00:00:00+00' + i * interval '1 minute',
                   timestamptz '2020-01-01 00:00:50+00' + i * interval '1 minute', 10, 'count', 'Apple Watch',
                   'com.apple.health.W', 'Apple Watch', 'Watch6,2'
            FROM generate_series(0, \(days * 1_440 - 1)) AS i;
            ANALYZE samples
            """, url: url)
    }

    /// Runs `body` with a fresh database holding anna's history and a sink over it whose database deadline (and
    /// lease) is `deadline`; the database is dropped afterwards.
    static func withHistory(deadline: Duration,
                            _ body: @Sendable (_ server: PostgresServer, _ url: String, _ port: Int,
                                               _ tokens: [String: String]) async throws -> Void) async throws {
        let server = try await PostgresHarness.sharedServer()
        let url = try await server.createDatabase()
        do {
            let tokens = try await addClients(["anna", "ben"], url: url)
            try await storeHistory(server, url: url, client: "anna")
            try await withPostgresSink(url: url, leaseTimeout: deadline, healthTimeout: deadline,
                                       operationTimeout: deadline) { port in
                // Opening the pool's first connections is set-up, not under test: wait for it, however loaded.
                let health = SinkCaller(port: port, token: nil)
                _ = try await waitUntil("/health 200 at the start", while: { true }) {
                    try await health.send(.GET, "/health").status == 200
                }
                try await body(server, url, port, tokens)
            }
            await server.dropDatabase(url: url)
        } catch {
            await server.dropDatabase(url: url)
            throw error
        }
    }

    /// Every day of a `/steps/daily` answer, as (date, steps).
    static func days(_ reply: SinkCaller.Reply) -> [(String, Int)] {
        ((reply.json["days"] as? [[String: Any]]) ?? []).map { ($0["date"] as? String ?? "?", $0["steps"] as? Int ?? -1) }
    }

    @Test("three /steps/daily at once over 86,400 samples, under a 10 s database deadline: each 200 with every day's exact total, while /health and another client's POSTs answer 200 (before issue 31 the decoding counted against the deadline: 503, and /health degraded)")
    func heavyDailyReads() async throws {
        try await Self.withHistory(deadline: Self.heavyDeadline) { _, _, port, tokens in
            let anna = SinkCaller(port: port, token: tokens["anna"])
            let ben = SinkCaller(port: port, token: tokens["ben"])
            let done = Done()
            let (replies, beside) = try await withThrowingTaskGroup(of: [SinkCaller.Reply].self) { group in
                for _ in 0..<3 {
                    group.addTask { [try await anna.send(.GET, Self.dailyPath, timeout: .seconds(300))] }
                }
                // Beside them, until all three answered (at least once): /health, then a POST of ben's.
                let besideTask = Task {
                    var statuses: [String] = []
                    var round = 0
                    repeat {
                        let health = try await ben.send(.GET, "/health", timeout: .seconds(60))
                        statuses.append("health \(health.status) \(health.text.prefix(200))")
                        let post = try await ben.post(stepSamples(20, first: round * 20), timeout: .seconds(60))
                        statuses.append("POST \(post.status) \(post.text.prefix(200))")
                        round += 1
                    } while !done.value
                    return statuses
                }
                var replies: [SinkCaller.Reply] = []
                for try await reply in group { replies += reply }
                done.set()
                return (replies, try await besideTask.value)
            }
            #expect(replies.count == 3)
            for reply in replies {
                #expect(reply.status == 200, "\(reply.text.prefix(300))")
                let days = Self.days(reply)
                #expect(days.count == Self.days)
                #expect(days.first?.0 == "2020-01-01" && days.last?.0 == "2020-02-29")
                #expect(days.allSatisfy { $0.1 == 14_400 }, "\(days.filter { $0.1 != 14_400 }.prefix(5))")
            }
            #expect(!beside.isEmpty)
            for status in beside { #expect(status.hasPrefix("health 200") || status.hasPrefix("POST 200"), "\(status)") }
            #expect(try await ben.storedUUIDs().count == (beside.count / 2) * 20)
        }
    }

    @Test("three /export at once of 86,400 samples under a 10 s database deadline: each complete, its uuids exactly the client's, none twice")
    func concurrentExports() async throws {
        try await Self.withHistory(deadline: Self.heavyDeadline) { server, url, port, tokens in
            let anna = SinkCaller(port: port, token: tokens["anna"])
            let stored = try await server.psql(
                "SELECT uuid FROM samples WHERE client_id = (SELECT id FROM clients WHERE name = 'anna')", url: url)
            let expected = Set(stored.split(separator: "\n").map { $0.uppercased() })
            #expect(expected.count == Self.days * 1_440)
            let exports = try await withThrowingTaskGroup(of: SinkCaller.Reply.self) { group in
                for _ in 0..<3 {
                    group.addTask { try await anna.send(.GET, "/export?format=ndjson", timeout: .seconds(600)) }
                }
                var replies: [SinkCaller.Reply] = []
                for try await reply in group { replies.append(reply) }
                return replies
            }
            for export in exports {
                #expect(export.status == 200)
                // A cut body makes the client's collect throw before this; a complete one ends with its last line.
                #expect(export.body.last == UInt8(ascii: "\n"))
                let uuids = export.text.split(separator: "\n").map { String($0.dropFirst(9).prefix(36)) }
                #expect(uuids.count == expected.count)
                #expect(Set(uuids) == expected)
            }
        }
    }

    @Test("a read the database holds past its deadline answers 503, but /health stays 200 and another client's POST is stored: a read timing out does not mark the storage degraded (before issue 31 /health answered 503)")
    func heldReadLeavesHealth() async throws {
        try await Self.withHistory(deadline: .seconds(5)) { server, url, port, tokens in
            let anna = SinkCaller(port: port, token: tokens["anna"])
            let ben = SinkCaller(port: port, token: tokens["ben"])
            #expect(try await ben.post(stepSamples(10)).status == 200)
            // A session holds samples locked: anna's read waits in the database past the deadline (a guaranteed
            // expiry, not a race); SELECT 1 touches no table.
            let holder = try server.startPsql(
                "BEGIN; LOCK TABLE samples IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(600)", url: url)
            defer { kill(holder, SIGKILL) }
            _ = try await waitUntil("the psql's lock on samples", while: { true }) {
                try await server.psql("""
                    SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                    WHERE c.relname = 'samples' AND l.mode = 'AccessExclusiveLock' AND l.granted
                    """, url: url) == "1\n"
            }
            let held = try await anna.send(.GET, Self.dailyPath, timeout: .seconds(120))
            #expect(held.status == 503 && held.headers["retry-after"] != nil, "\(held.text.prefix(300))")
            let health = try await ben.send(.GET, "/health", timeout: .seconds(60))
            #expect(health.status == 200, "\(health.text)")
            // The holder's backend sleeps on (it notices its client gone only when it next speaks): end it.
            kill(holder, SIGKILL)
            _ = try await server.psql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(600)%' AND pid <> pg_backend_pid()",
                url: url)
            _ = try await waitUntil("the lock released", while: { true }) {
                try await server.psql("""
                    SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                    WHERE c.relname = 'samples' AND l.mode = 'AccessExclusiveLock'
                    """, url: url) == "0\n"
            }
            let stats = try await ben.send(.GET, "/stats", timeout: .seconds(60))
            #expect((stats.json["storage"] as? [String: Any])?["status"] as? String == "ok", "\(stats.text.prefix(400))")
            #expect(try await ben.post(stepSamples(10, first: 10)).status == 200)
            #expect(try await ben.storedUUIDs() == Set(stepSamples(20).map(\.uuid)))
            let again = try await anna.send(.GET, Self.dailyPath, timeout: .seconds(120))
            #expect(again.status == 200 && Self.days(again).allSatisfy { $0.1 == 14_400 }, "\(again.text.prefix(300))")
        }
    }
}

/// A flag one task sets when it is done and another reads.
private final class Done: Sendable {
    private let flag = Atomic<Bool>(false)
    var value: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
