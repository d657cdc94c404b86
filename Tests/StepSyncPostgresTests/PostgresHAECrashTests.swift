import Foundation
import StepSyncCore
import StepSyncTestSupport
import Testing

/// Issue 34: a Health Auto Export push through `kill -9` of `stepsync serve --database` mid-request, the retry exact.
///
/// The moment is made by the database, not the clock: a `psql` inserts (and does not commit) a row with the uuid of
/// the body's last sample, so the sink's second batch waits on it (`pg_stat_activity`: a lock wait) after its first
/// batch committed. Then the sink is killed, the `psql` ended, a new sink started and the body posted again.
@Suite("PostgreSQL sink: a Health Auto Export push through kill -9 mid-request",
       .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"), .serialized)
struct PostgresHAECrashTests {
    static func post(_ body: [UInt8], port: Int, token: String) async throws -> (status: Int, json: [String: Any]) {
        let reply = try await SinkHarness.request("POST", "/ingest/health-auto-export", port: port, token: token,
                                                  body: body, headers: [("automation-aggregation", "minutes")])
        return (reply.status, (try? JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any]) ?? [:])
    }

    @Test("kill -9 while the second batch waits: the first batch is stored, the retry stores the rest, every uuid once")
    func killedBetweenBatches() async throws {
        try await PostgresHarness.withServer { server in
            let url = try await server.createDatabase()
            let token = try #require(try await addClients(["anna"], url: url)["anna"])
            let body = HAETestBodies.heartRateMinutes(10_000)
            let batches = try HAETestBodies.batches(body).batches
            #expect(batches.count == 2)
            let all = batches.flatMap { $0 }
            #expect(all.count == 30_000)
            let held = try #require(batches.last?.last)

            let port = try PostgresHarness.freePort()
            let serve = try await StepSyncProcess.serve(url: url, port: port)
            // Warm: the pool's connections and the heart-rate type, so the push's first batch goes straight in.
            let warm = try await Self.post(Array(#"{"data":{"metrics":[]}}"#.utf8), port: port, token: token)
            #expect(warm.status == 200)
            let holder = try server.startPsql("""
                BEGIN; INSERT INTO samples (client_id, uuid, type, type_key, start_at, end_at, value, unit, source_name,
                source_bundle_id) SELECT id, '\(held.uuid.uuidString)', 'HKQuantityTypeIdentifierHeartRate',
                stepsync_type_key('HKQuantityTypeIdentifierHeartRate'), now(), now(), 1, 'count/min', 'holder', 'holder'
                FROM clients WHERE name = 'anna'; SELECT pg_sleep(600)
                """, url: url)
            // Its INSERT is done once it sleeps.
            _ = try await waitUntil("the psql's uncommitted row", while: { true }) {
                try await server.psql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'", url: url) == "1\n"
            }

            let push = Task { try await Self.post(body, port: port, token: token).status }
            let waiting = try await waitUntil("the second batch waiting on the held uuid", while: { true }) {
                try await PostgresCrashTests.backends(server, url, "wait_event_type = 'Lock'") == 1
            }
            #expect(waiting)
            let committed = try await server.psql("SELECT count(*) FROM samples", url: url)
            #expect(committed == "\(batches[0].count)\n", "the first batch is committed, nothing of the second")
            kill(serve.pid, SIGKILL)
            _ = try await serve.wait(timeout: .seconds(30))
            let cut = try? await push.value
            #expect(cut == nil || cut == 503, "the push was answered \(cut ?? 0) before the kill")
            // pg_sleep does not notice its client gone: end its backend (its transaction rolls back), then the
            // killed sink's backend, which waited on it, finds its client gone too.
            _ = try await server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'PgSleep'",
                                      url: url)
            kill(holder, SIGKILL)
            _ = try await waitUntil("the holder and the killed sink's backends gone", while: { true }) {
                try await server.psql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' OR application_name = 'stepsync'",
                                      url: url) == "0\n"
            }
            #expect(try await PostgresCrashTests.storedUUIDs(server, url) == Set(batches[0].map(\.uuid)))

            let again = try await StepSyncProcess.serve(url: url, port: port)
            let retry = try await Self.post(body, port: port, token: token)
            #expect(retry.status == 200, "\(retry.json)")
            #expect(retry.json["inserted"] as? Int == batches[1].count)
            #expect(retry.json["duplicates"] as? Int == batches[0].count)
            #expect(retry.json["replaced"] as? Int == 0)
            #expect(try await PostgresCrashTests.storedUUIDs(server, url) == Set(all.map(\.uuid)))
            #expect(try await server.psql("SELECT count(*), sum(value)::bigint FROM samples", url: url)
                    == "30000|\(Int(all.map(\.value).reduce(0, +)))\n")
            kill(again.pid, SIGTERM)
            _ = try await again.wait(timeout: .seconds(30))
        }
    }
}
