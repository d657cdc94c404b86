import Foundation
import StepSyncCore
import StepSyncTestSupport
import Testing

/// The client's side of the transport, as processes: a token about to cross the network in clear is warned about,
/// and a certificate out of its dates is named so by `serve` and by `sync`/`reset --remote`.
@Suite("a token in clear and certificates out of date, as processes", .serialized)
struct ClientTransportTests {
    static let warning = "warning: sending the bearer token to "

    @Test("sync and reset --remote warn once, before anything else, when a token goes over http:// to a host that is not loopback")
    func cleartextWarning() async throws {
        let fixture = try SyncFixture(intervals: 2, samplesPerInterval: 3)
        let server = "http://example.invalid:8000"
        let sync = ["sync", "--data-dir", fixture.path, "--backoff-base", "0.01", "--give-up-after", "0.2"]
        let (status, run) = try await StepSyncProcess.run(sync + ["--server", server, "--token", "token-in-clear-0123"],
                                                          environment: ["STEPSYNC_TOKEN": ""])
        #expect(status != 0)
        #expect(run.stderr.components(separatedBy: Self.warning).count == 2, "\(run.stderr)")
        #expect(run.stderr.hasPrefix(Self.warning + server + " in clear"), "\(run.stderr)")

        let (resetStatus, reset) = try await StepSyncProcess.run(
            ["reset", "--remote", "--yes", "--data-dir", fixture.path, "--server", server, "--token", "token-in-clear-0123"],
            environment: ["STEPSYNC_TOKEN": ""])
        #expect(resetStatus != 0)
        #expect(reset.stderr.components(separatedBy: Self.warning).count == 2, "\(reset.stderr)")
        #expect(reset.stderr.hasPrefix(Self.warning + server + " in clear"), "\(reset.stderr)")

        // No token, or a loopback host: nothing to warn about.
        try await ClosedPort.with { port in
            for (url, token) in [(server, nil), ("http://127.0.0.1:\(port)", "token-in-clear-0123"),
                                 ("http://localhost:\(port)", "token-in-clear-0123")] as [(String, String?)] {
                let (_, quiet) = try await StepSyncProcess.run(sync + ["--server", url] + (token.map { ["--token", $0] } ?? []),
                                                               environment: ["STEPSYNC_TOKEN": ""])
                #expect(!quiet.stderr.contains(Self.warning), "\(url): \(quiet.stderr)")
            }
        }
    }

    @Test("serve refuses an expired or not-yet-valid --tls-cert, naming its date", arguments: [
        ("20200101000000Z", "20210101000000Z", "the certificate expired on 2021-01-01 00:00:00 UTC"),
        ("20990101000000Z", "21000101000000Z", "the certificate is not valid before 2099-01-01 00:00:00 UTC"),
    ])
    func serveRefusesOutOfDate(start: String, end: String, phrase: String) async throws {
        let dir = try TemporaryDirectory.make("stepsync-dated")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let certificate = try await DatedCertificate.make(in: dir, start: start, end: end)
        let serve = try StepSyncProcess([
            "serve", "--data-dir", dir + "/sink", "--port", "0",
            "--tls-cert", certificate.certificatePath, "--tls-key", certificate.keyPath,
        ])
        // It must exit; one that listens instead is stopped at once (the test then fails on the status).
        let deadline = ContinuousClock.now + .seconds(120)
        while serve.process.isRunning, !serve.stdout.contains("listening on"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        if serve.process.isRunning { kill(serve.pid, SIGKILL) }
        let status = try await serve.wait()
        #expect(status == 64, "\(serve.stdout)\(serve.stderr)")
        #expect(serve.stderr.contains("--tls-cert \(certificate.certificatePath): \(phrase) (it is now "), "\(serve.stderr)")
        #expect(!serve.stdout.contains("listening on"))
    }

    @Test("sync --cacert and reset --remote against a sink whose certificate expired say so, not \"not trusted\"")
    func clientNamesExpiry() async throws {
        let dir = try TemporaryDirectory.make("stepsync-expired")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let certificate = try await DatedCertificate.make(in: dir, start: "20200101000000Z", end: "20210101000000Z")
        // `serve` refuses the certificate, so openssl's own TLS server presents it.
        let held = try ClosedPort()
        let port = held.port
        held.release()
        let server = try ChildProcess("/usr/bin/env", [
            "openssl", "s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate.certificatePath,
            "-key", certificate.keyPath, "-www", "-quiet",
        ], stdout: dir + "/s_server.out")
        defer { kill(server.processIdentifier, SIGKILL) }
        let deadline = ContinuousClock.now + .seconds(60)
        while !TransportHarness.accepts(port: port) {
            guard server.isRunning, ContinuousClock.now < deadline else {
                Issue.record("openssl s_server did not listen on \(port)")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let url = "https://127.0.0.1:\(port)"
        let expired = "the server's certificate expired on 2021-01-01 00:00:00 UTC (it is now "

        let fixture = try SyncFixture(intervals: 2, samplesPerInterval: 3)
        let (status, sync) = try await StepSyncProcess.run(
            ["sync", "--data-dir", fixture.path, "--server", url, "--cacert", certificate.certificatePath,
             "--backoff-base", "0.01", "--json"], environment: ["STEPSYNC_CACERT": ""])
        #expect(status == 1, "\(sync.stderr)")
        let gaveUp = try #require(try sync.json()["gaveUp"] as? String)
        #expect(gaveUp.hasPrefix("the sink at \(url) cannot be trusted: \(expired)"), "\(gaveUp)")
        #expect(!gaveUp.contains("does not trust"))
        #expect(try fixture.store.ledgerSummary().overall.pending == 2)

        let (resetStatus, reset) = try await StepSyncProcess.run(
            ["reset", "--remote", "--yes", "--data-dir", fixture.path, "--server", url,
             "--cacert", certificate.certificatePath], environment: ["STEPSYNC_CACERT": ""])
        #expect(resetStatus == 1)
        #expect(reset.stderr.contains(expired), "\(reset.stderr)")
        #expect(!reset.stderr.contains("does not trust"), "\(reset.stderr)")
    }
}
