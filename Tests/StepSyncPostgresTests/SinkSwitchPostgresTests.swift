import Foundation
import StepSyncCore
import StepSyncStore
import StepSyncTestSupport
import Testing

/// A store's ledger is true of one sink and one client: pointed at another sink (another database), another client's
/// token, or a token the sink refuses, `stepsync sync` stops before sending — pending or not — and `--resend` sends
/// everything there; `reset --remote` without `--server` empties the store's last sink, not the default address.
@Suite("Switching sinks on PostgreSQL: the ledger knows its sink and its client",
       .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"), .serialized)
struct SinkSwitchPostgresTests {
    static func report(_ run: (status: Int32, stdout: String, stderr: String)) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [String: Any] ?? [:]
    }

    @Test("another database, another client's token and a refused token each stop the sync before it sends; --resend sends all; reset --remote empties the last sink")
    func switchingSinks() async throws {
        try await PostgresHarness.withDatabase { urlA in
            try await PostgresHarness.withDatabase { urlB in
                let server = try await PostgresHarness.sharedServer()
                let tokensA = try await addClients(["anna", "ben"], url: urlA)
                let tokenA = try #require(tokensA["anna"]), tokenBen = try #require(tokensA["ben"])
                let tokenB = try #require(try await addClients(["anna"], url: urlB)["anna"])
                let fixture = try SyncFixture(intervals: 6, samplesPerInterval: 25)
                let portA = try PostgresHarness.freePort()
                let serveA = try await StepSyncProcess.serve(url: urlA, port: portA)
                let portB = try PostgresHarness.freePort()
                let serveB = try await StepSyncProcess.serve(url: urlB, port: portB)
                defer {
                    kill(serveA.pid, SIGKILL)
                    kill(serveB.pid, SIGKILL)
                }
                let a = "http://127.0.0.1:\(portA)", b = "http://127.0.0.1:\(portB)"
                let base = ["sync", "--data-dir", fixture.path, "--backoff-base", "0.01", "--give-up-after", "5", "--json"]
                let count = "SELECT count(*) FROM samples"

                let first = try await StepSyncProcess.output(base + ["--server", a, "--token", tokenA])
                #expect(first.status == 0, "\(first.stderr)")
                #expect(Self.report(first)["inserted"] as? Int == 150)
                let idA = try await server.psql("SELECT id FROM sink_identity", url: urlA)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                let idB = try await server.psql("SELECT id FROM sink_identity", url: urlB)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(UUID(uuidString: idA) != nil && idA != idB)

                // Another sink: nothing pending, yet the run stops before sending, naming both sinks and --resend.
                let other = try await StepSyncProcess.output(base + ["--server", b, "--token", tokenB])
                #expect(other.status == 1, "\(other.stdout)")
                let stopped = try #require(Self.report(other)["gaveUp"] as? String)
                #expect(stopped.contains("sink \(idA) at \(a)") && stopped.contains("\(b) is sink \(idB)")
                        && stopped.contains("--resend"), "\(stopped)")
                #expect(try await server.psql(count, url: urlB) == "0\n")

                // Another client of the same sink: stopped too; ben holds nothing.
                let ben = try await StepSyncProcess.output(base + ["--server", a, "--token", tokenBen])
                #expect(ben.status == 1)
                #expect((Self.report(ben)["gaveUp"] as? String)?.contains("another token") == true, "\(ben.stdout)")
                // A token the sink refuses, with nothing pending: checked all the same.
                let wrong = try await StepSyncProcess.output(base + ["--server", a, "--token", "ss_not-a-token"])
                #expect(wrong.status == 1)
                #expect((Self.report(wrong)["gaveUp"] as? String)?.contains("refuses this client (HTTP 401") == true,
                        "\(wrong.stdout)")
                // The right sink and token: nothing to send, exit 0, and the sink still the store's.
                let same = try await StepSyncProcess.output(base + ["--server", a, "--token", tokenA])
                #expect(same.status == 0 && Self.report(same)["samples"] as? Int == 0, "\(same.stderr)")
                #expect(try fixture.store.lastSyncTarget()?.sink == idA)

                // --resend: everything to B, which then holds exactly the store's samples.
                let resent = try await StepSyncProcess.output(base + ["--server", b, "--token", tokenB, "--resend"])
                #expect(resent.status == 0, "\(resent.stderr)")
                #expect(Self.report(resent)["inserted"] as? Int == 150 && Self.report(resent)["synced"] as? Int == 6)
                #expect(try await SinkCaller(port: portB, token: tokenB).storedUUIDs() == fixture.storeUUIDs)
                #expect(try fixture.store.lastSyncTarget()?.sink == idB)

                // reset --remote with no --server empties the store's last sink (B), not A, nor the default address.
                let reset = try await StepSyncProcess.output(["reset", "--remote", "--yes", "--data-dir", fixture.path,
                                                          "--token", tokenB])
                #expect(reset.status == 0, "\(reset.stderr)")
                #expect(reset.stdout.contains("deleted 150 samples"), "\(reset.stdout)")
                #expect(try await server.psql(count, url: urlB) == "0\n")
                #expect(try await server.psql(count, url: urlA) == "150\n")
            }
        }
    }
}
