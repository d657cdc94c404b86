import Foundation
import StepSyncCore
import StepSyncTestSupport
import Testing

/// Issue 23.2/23.3: a `--server` that is not a stepsync sink, or that names an endpoint, is found out before anything
/// is sent; a sink published under a path prefix (behind a proxy) works.
@Suite("sync asks the server who it is", .serialized)
struct ServerIdentityTests {
    /// A plain web server (`python3 -m http.server`, 501 to every POST, 404 pages for the rest) on a free port.
    func withPlainWebServer<R>(_ body: (_ port: Int) async throws -> R) async throws -> R {
        let dir = try TemporaryDirectory.make("stepsync-plainweb")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for _ in 0..<5 {
            let port = try PostgresHarness.freePort()
            let server = try StepSyncProcess(["/usr/bin/python3", "-m", "http.server", "--bind", "127.0.0.1",
                                              "--directory", dir, "\(port)"], executable: "/usr/bin/python3")
            defer {
                kill(server.pid, SIGKILL)
                server.process.waitUntilExit()
            }
            let deadline = ContinuousClock.now + .seconds(30)
            while server.process.isRunning, ContinuousClock.now < deadline, !TransportHarness.accepts(port: port) {
                try await Task.sleep(for: .milliseconds(20))
            }
            guard server.process.isRunning else { continue }
            return try await body(port)
        }
        throw SinkHarness.HarnessError(message: "python3 -m http.server did not start")
    }

    @Test("a plain web server is found out by the first request: exit 1, one line naming the URL and its answer, every interval pending, a short excerpt")
    func plainWebServerFoundOut() async throws {
        let fixture = try SyncFixture(intervals: 40, samplesPerInterval: 5)
        try await withPlainWebServer { port in
            let url = "http://127.0.0.1:\(port)"
            let started = ContinuousClock.now
            let (status, sync) = try await StepSyncProcess.run(["sync", "--data-dir", fixture.path, "--server", url])
            let took = ContinuousClock.now - started
            #expect(status == 1, "\(sync.stderr)")
            #expect(took < .seconds(60), "took \(took)")  // the bound is generous: the point is no waiting at all
            let said = sync.stdout + sync.stderr
            #expect(said.contains("\(url) is not a stepsync sink: GET /health answered HTTP 404"), "\(said)")
            #expect(said.split(separator: "\n").count <= 6, "\(said)")
            #expect(!said.contains("<!DOCTYPE") && !said.contains("<html"), "\(said)")
            let summary = try fixture.store.ledgerSummary().overall
            #expect(summary.pending == 40 && summary.failed == 0 && summary.synced == 0 && summary.inFlight == 0)
        }
    }

    @Test("a --server ending in an endpoint is refused before anything runs, with the URL to use", arguments: [
        ("http://127.0.0.1:8003/steps", "http://127.0.0.1:8003"),
        ("http://127.0.0.1:8003/stepsync/samples/", "http://127.0.0.1:8003/stepsync"),
        ("https://example.test/health", "https://example.test"),
        ("http://127.0.0.1:8003/steps/delete", "http://127.0.0.1:8003"),
    ])
    func endpointInURLRefused(server: String, suggested: String) async throws {
        let fixture = try SyncFixture(intervals: 3, samplesPerInterval: 2)
        let (status, sync) = try await StepSyncProcess.run(["sync", "--data-dir", fixture.path, "--server", server])
        #expect(status == 64, "\(sync.stderr)")
        #expect(sync.stderr.contains("give the sink's base URL: \(suggested)"), "\(sync.stderr)")
        #expect(try fixture.store.ledgerSummary().overall.pending == 3)
    }

    @Test("a sink published under /stepsync/ by nginx syncs exact through its base path; the proxy's root is found out as not a sink")
    func basePathBehindProxy() async throws {
        let dir = try TemporaryDirectory.make("stepsync-prefix")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let certificate = try await TransportHarness.makeCertificate(in: dir)
        let fixture = try SyncFixture(intervals: 6, samplesPerInterval: 4, types: [.stepCount, .heartRate])
        let transport = TransportProcessTests()
        try await transport.withServe(["serve", "--data-dir", dir + "/sink", "--port", "0"]) { sinkPort, _ in
            try await TransportHarness.withNginx(certificate: certificate, upstreamPort: sinkPort,
                                                 pathPrefix: "/stepsync/") { nginxPort in
                let base = ["sync", "--data-dir", fixture.path, "--cacert", certificate.certificatePath, "--json"]
                let (wrong, wrongRun) = try await StepSyncProcess.run(base + ["--server", "https://127.0.0.1:\(nginxPort)"])
                #expect(wrong == 1, "\(wrongRun.stderr)")
                #expect(wrongRun.stderr.contains("is not a stepsync sink"), "\(wrongRun.stderr)")
                #expect(try fixture.store.ledgerSummary().overall.pending == 12)

                let (right, rightRun) = try await StepSyncProcess.run(
                    base + ["--server", "https://127.0.0.1:\(nginxPort)/stepsync/"])
                #expect(right == 0, "\(rightRun.stderr)")
                let json = try rightRun.json()
                #expect(json["synced"] as? Int == 12 && json["failed"] as? Int == 0 && json["pending"] as? Int == 0)
            }
            let steps = try await SinkHarness.storedUUIDs(port: sinkPort)
            #expect(steps.uuids == fixture.storeUUIDs(of: .stepCount))
            let hearts = try await SinkHarness.storedUUIDs(port: sinkPort, type: SampleType.heartRate.rawValue)
            #expect(hearts.uuids == fixture.storeUUIDs(of: .heartRate))
        }
    }

    @Test("the sink names itself in /health, and the client's check accepts it and older sinks, and refuses other answers")
    func healthAnswer() {
        #expect(SinkHealthAnswer.isSink(Array(#"{"api":1,"service":"stepsync","status":"ok"}"#.utf8)))
        #expect(SinkHealthAnswer.isSink(Array(#"{"status":"degraded","reason":"disk full","since":1}"#.utf8)))
        #expect(SinkHealthAnswer.isSink(Array(#"{"status":"ok"}"#.utf8)))
        #expect(!SinkHealthAnswer.isSink(Array(#"{"status":"ok","service":"other"}"#.utf8)))
        #expect(!SinkHealthAnswer.isSink(Array(#"{"status":"UP"}"#.utf8)))
        #expect(!SinkHealthAnswer.isSink(Array("<!DOCTYPE HTML><html><title>Error response</title></html>".utf8)))
        #expect(SinkHealthAnswer.excerpt(Array("<!DOCTYPE HTML>\n<html><head><title>Error response</title></head><body>…".utf8))
                == "\"Error response\"")
        #expect(SinkHealthAnswer.excerpt(Array(String(repeating: "word ", count: 100).utf8), limit: 20).count <= 23)
        #expect(SinkHealthAnswer.excerpt([UInt8]()) == "(empty body)")
    }

    @Test("a sink that refuses the client (wrong token: 401) stops the run at once, one line naming --token, every interval pending; the right token syncs exact")
    func wrongTokenStopsAtOnce() async throws {
        let dir = try TemporaryDirectory.make("stepsync-token")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fixture = try SyncFixture(intervals: 30, samplesPerInterval: 3)
        let token = "the-right-token-0123456789"
        let transport = TransportProcessTests()
        try await transport.withServe(["serve", "--data-dir", dir + "/sink", "--port", "0", "--token", token]) { port, _ in
            let base = ["sync", "--data-dir", fixture.path, "--server", "http://127.0.0.1:\(port)"]
            let (wrong, wrongRun) = try await StepSyncProcess.run(base + ["--token", "not-the-token-0123456789"])
            #expect(wrong == 1, "\(wrongRun.stderr)")
            let said = wrongRun.stdout + wrongRun.stderr
            #expect(said.contains("refuses this client (HTTP 401"), "\(said)")
            #expect(said.contains("check --token"), "\(said)")
            #expect(said.split(separator: "\n").count <= 6, "\(said)")
            let summary = try fixture.store.ledgerSummary().overall
            #expect(summary.pending == 30 && summary.failed == 0 && summary.inFlight == 0)
            let (right, rightRun) = try await StepSyncProcess.run(base + ["--token", token, "--json"])
            #expect(right == 0, "\(rightRun.stderr)")
            #expect(try rightRun.json()["synced"] as? Int == 30)
        }
    }
}
