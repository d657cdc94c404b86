import Foundation
import StepSyncCore
import StepSyncStore
import StepSyncTestSupport
import Testing

/// Issue 22's transport, with real parts: `openssl` certificates, `stepsync serve` over HTTPS, curl, a real nginx
/// (Debian's) in front with its default 1 MB body limit, and `kill -9` between the parts of a split interval.
@Suite("stepsync over TLS, behind nginx, and split requests, as processes", .serialized)
struct TransportProcessTests {
    /// Starts `stepsync <arguments>` (a `serve`) and waits until it prints `listening on <scheme>://…:PORT`.
    func startServe(_ arguments: [String], scheme: String = "http") async throws -> (process: StepSyncProcess, port: Int) {
        let process = try StepSyncProcess(arguments)
        return (process, try await process.listeningPort(scheme: scheme))
    }

    /// Runs `body` with a `serve` process, stopped with SIGTERM afterwards on every path.
    func withServe<R>(_ arguments: [String], scheme: String = "http",
                      _ body: (_ port: Int, _ serve: StepSyncProcess) async throws -> R) async throws -> R {
        let (serve, port) = try await startServe(arguments, scheme: scheme)
        do {
            let result = try await body(port, serve)
            kill(serve.pid, SIGTERM)
            _ = try await serve.wait(timeout: .seconds(60))
            return result
        } catch {
            kill(serve.pid, SIGKILL)
            _ = try? await serve.wait(timeout: .seconds(60))
            throw error
        }
    }

    /// The uuids of one page of samples (`GET path` over HTTPS with curl `--cacert`), which must be the last.
    func uuidsOverHTTPS(_ url: String, cacert: String) async throws -> [UUID] {
        let answer = try await TransportHarness.curl(["--cacert", cacert, url])
        #expect(answer.status == 0 && answer.http == "200", "\(answer)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
        #expect(object["nextCursor"] == nil || object["nextCursor"] is NSNull)
        let samples = try #require(object["samples"] as? [[String: Any]])
        return samples.compactMap { ($0["uuid"] as? String).flatMap(UUID.init(uuidString:)) }
    }

    @Test("HTTPS: curl --cacert and sync --cacert (and STEPSYNC_CACERT) reach serve --tls-cert/--tls-key, the sink ends exact; without them the sync stops naming --cacert with the ledger pending; plain HTTP gets no 2xx")
    func builtInTLS() async throws {
        let dir = try TemporaryDirectory.make("stepsync-tls")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let certificate = try await TransportHarness.makeCertificate(in: dir)
        let fixture = try SyncFixture(intervals: 4, samplesPerInterval: 6, types: [.stepCount, .heartRate])
        let serveArguments = ["serve", "--data-dir", dir + "/sink", "--port", "0",
                              "--tls-cert", certificate.certificatePath, "--tls-key", certificate.keyPath]
        try await withServe(serveArguments, scheme: "https") { port, _ in
            let url = "https://127.0.0.1:\(port)"
            let health = try await TransportHarness.curl(["--cacert", certificate.certificatePath, url + "/health"])
            #expect(health.status == 0 && health.http == "200", "\(health)")
            // curl itself refuses the self-signed certificate without --cacert (exit 60), and plain HTTP to the TLS
            // port gets no answer at all.
            let untrusted = try await TransportHarness.curl([url + "/health"])
            #expect(untrusted.status == 60 && untrusted.http == "000", "\(untrusted)")
            let plain = try await TransportHarness.curl(["http://127.0.0.1:\(port)/health"])
            #expect(plain.status != 0 && !plain.http.hasPrefix("2"), "\(plain)")
            // sync with http:// at the TLS port: the sink closes the connection without a word; the message says to use
            // https:// (issue 32.9) instead of only asking whether stepsync serve runs.
            let (plainSync, plainRun) = try await StepSyncProcess.run(
                ["sync", "--data-dir", fixture.path, "--server", "http://127.0.0.1:\(port)", "--backoff-base", "0.01",
                 "--give-up-after", "0.2", "--json"])
            #expect(plainSync == 1)
            let plainGaveUp = try #require(try plainRun.json()["gaveUp"] as? String)
            #expect(plainGaveUp.contains("use https://"), "\(plainGaveUp)")

            // Without --cacert: stopped at once, one message naming --cacert, nothing claimed.
            let base = ["sync", "--data-dir", fixture.path, "--server", url, "--backoff-base", "0.01"]
            let (refused, refusedRun) = try await StepSyncProcess.run(base + ["--json"], environment: ["STEPSYNC_CACERT": ""])
            #expect(refused == 1, "\(refusedRun.stderr)")
            let json = try refusedRun.json()
            #expect(json["synced"] as? Int == 0 && json["pending"] as? Int == 8 && json["failed"] as? Int == 0)
            let gaveUp = try #require(json["gaveUp"] as? String)
            #expect(gaveUp == "the sink at \(url) presented a TLS certificate this machine does not trust "
                + "(certificate verify failed): give its CA or self-signed certificate with --cacert FILE (or STEPSYNC_CACERT)")
            #expect(refusedRun.stderr.contains("stepsync: stopped: the sink at \(url) presented a TLS certificate"))
            #expect(!(refusedRun.stderr + refusedRun.stdout).contains("NIOSSL"))
            let summary = try fixture.store.ledgerSummary().overall
            #expect(summary.pending == 8 && summary.inFlight == 0 && summary.synced == 0)
            // The summary for people says it too.
            let (again, againRun) = try await StepSyncProcess.run(base, environment: ["STEPSYNC_CACERT": ""])
            #expect(again == 1 && againRun.stdout.contains("--cacert FILE"), "\(againRun.stdout)")

            // STEPSYNC_CACERT: the step counts; --cacert: the rest.
            let (steps, stepsRun) = try await StepSyncProcess.run(
                base + ["--type", SampleType.stepCount.rawValue, "--json"],
                environment: ["STEPSYNC_CACERT": certificate.certificatePath])
            #expect(steps == 0, "\(stepsRun.stderr)")
            #expect(try stepsRun.json()["synced"] as? Int == 4)
            let (rest, restRun) = try await StepSyncProcess.run(base + ["--cacert", certificate.certificatePath, "--json"])
            #expect(rest == 0, "\(restRun.stderr)")
            let restJSON = try restRun.json()
            #expect(restJSON["synced"] as? Int == 4 && restJSON["pending"] as? Int == 0 && restJSON["failed"] as? Int == 0)

            // The sink, read back over HTTPS: exactly the store's uuids of each type.
            let storedSteps = try await uuidsOverHTTPS(url + "/steps?limit=10000", cacert: certificate.certificatePath)
            #expect(Set(storedSteps) == fixture.storeUUIDs(of: .stepCount) && storedSteps.count == 24)
            let storedHearts = try await uuidsOverHTTPS(
                url + "/samples?type=\(SampleType.heartRate.rawValue)&limit=10000", cacert: certificate.certificatePath)
            #expect(Set(storedHearts) == fixture.storeUUIDs(of: .heartRate) && storedHearts.count == 24)
            #expect(try fixture.store.ledgerSummary().overall.synced == 8)

            // reset --remote shares --cacert: refused without it (naming it), empties the sink with it.
            let resetArguments = ["reset", "--data-dir", fixture.path, "--remote", "--server", url, "--yes"]
            let (unsure, unsureRun) = try await StepSyncProcess.run(resetArguments, environment: ["STEPSYNC_CACERT": ""])
            #expect(unsure == 1 && unsureRun.stderr.contains("give its CA or self-signed certificate with --cacert FILE"),
                    "\(unsureRun.stderr)")
            let (reset, resetRun) = try await StepSyncProcess.run(resetArguments + ["--cacert", certificate.certificatePath])
            #expect(reset == 0 && resetRun.stdout.contains("sink emptied"), "\(resetRun.stderr)")
            #expect(try await uuidsOverHTTPS(url + "/steps?limit=10000", cacert: certificate.certificatePath).isEmpty)
        }
    }

    @Test("serve: a non-loopback host without TLS warns about tokens in clear; with TLS it does not")
    func plainPublicBindWarns() async throws {
        let dir = try TemporaryDirectory.make("stepsync-tls-warn")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let certificate = try await TransportHarness.makeCertificate(in: dir)
        let token = ["--token", "a-long-enough-test-token"]
        let warning = "warning: serving plain HTTP on 0.0.0.0: bearer tokens and samples cross the network in clear"
        try await withServe(["serve", "--data-dir", dir + "/plain", "--host", "0.0.0.0", "--port", "0"] + token) { _, serve in
            #expect(serve.stderr.components(separatedBy: warning).count == 2, "\(serve.stderr)")
        }
        try await withServe(["serve", "--data-dir", dir + "/tls", "--host", "0.0.0.0", "--port", "0",
                             "--tls-cert", certificate.certificatePath, "--tls-key", certificate.keyPath] + token,
                            scheme: "https") { _, serve in
            #expect(!serve.stderr.contains("in clear"), "\(serve.stderr)")
        }
        // Half a TLS setup, or a file that is not PEM, is refused before anything listens.
        let (half, halfRun) = try await StepSyncProcess.run(["serve", "--data-dir", dir + "/x", "--port", "0",
                                                             "--tls-cert", certificate.certificatePath])
        #expect(half == 64 && halfRun.stderr.contains("--tls-cert and --tls-key go together"))
        let (bad, badRun) = try await StepSyncProcess.run(["sync", "--data-dir", dir + "/x", "--cacert",
                                                           dir + "/missing.pem"])
        #expect(bad == 64 && badRun.stderr.contains("--cacert \(dir)/missing.pem: no readable file there"))
        let (range, rangeRun) = try await StepSyncProcess.run(["sync", "--data-dir", dir + "/x",
                                                               "--max-request-bytes", "100"])
        #expect(range == 64 && rangeRun.stderr.contains("--max-request-bytes must be 1024…1073741824 (bytes), not 100"))
    }

    @Test("kill -9 between the parts of a split interval, then a rerun: the interval is synced once, the sink exact")
    func crashBetweenParts() async throws {
        let fixture = try SyncFixture(intervals: 1, samplesPerInterval: 60, types: [.heartRate])
        let arguments = ["sync", "--data-dir", fixture.path, "--max-request-bytes", "4096", "--concurrency", "1",
                         "--backoff-base", "0.01", "--json"]
        try await SinkHarness.withSink { sinkPort in
            let storedBefore = try await FaultFront.withFront(sinkPort: sinkPort, plan: FaultPlan(holdFromPost: 3)) { port, counters in
                let process = try StepSyncProcess(arguments + ["--server", "http://127.0.0.1:\(port)"])
                // Parts 1 and 2 were answered (they go one after the other); part 3 is held: kill it now.
                try await counters.waitForPosts(3)
                kill(process.pid, SIGKILL)
                _ = try await process.wait()
                let summary = try fixture.store.ledgerSummary().overall
                #expect(summary.inFlight == 1 && summary.synced == 0)
                let stored = try await SinkSamples.stored(port: sinkPort, type: .heartRate)
                let forwarded = await counters.forwardedSizes
                #expect(forwarded.count == 2 && forwarded.allSatisfy { $0 <= 4_096 })
                #expect(stored.count > 0 && stored.count < 60)
                return stored.count
            }
            let (status, rerun) = try await StepSyncProcess.run(arguments + ["--server", "http://127.0.0.1:\(sinkPort)"])
            #expect(status == 0, "\(rerun.stderr)")
            let json = try rerun.json()
            #expect(json["recoveredInFlight"] as? Int == 1 && json["synced"] as? Int == 1 && json["samples"] as? Int == 60)
            let duplicates = try #require(json["duplicates"] as? Int)
            #expect(duplicates >= storedBefore && (json["inserted"] as? Int ?? 0) + duplicates == 60)
            let hearts = try await SinkSamples.stored(port: sinkPort, type: .heartRate)
            #expect(try SinkSamples.uuids(hearts) == fixture.storeUUIDs(of: .heartRate) && hearts.count == 60)
        }
        #expect(try fixture.store.ledgerSummary().overall.synced == 1)
    }
}

/// A real nginx in front, terminating TLS with its default 1 MB `client_max_body_size`.
@Suite("stepsync behind a real nginx", .serialized,
       .enabled(if: TransportHarness.shouldRunNginx, "nginx is not installed (CI installs it and runs this)"))
struct NginxProcessTests {
    @Test("every type of a generated year through nginx (TLS, 1 MB body limit): 0 failed, 0 pending, the sink exact by type")
    func everyTypeBehindNginx() async throws {
        let dir = try TemporaryDirectory.make("stepsync-nginx-test")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let certificate = try await TransportHarness.makeCertificate(in: dir)
        let data = dir + "/client"
        let (generated, generateRun) = try await StepSyncProcess.run(
            ["generate", "--data-dir", data, "--types", "all", "--years", "1", "--seed", "22", "--end", "2025-06-30",
             "--json"], timeout: .seconds(600))
        #expect(generated == 0, "\(generateRun.stderr)")
        let (layered, layerRun) = try await StepSyncProcess.run(["layer", "--data-dir", data, "--json"], timeout: .seconds(600))
        #expect(layered == 0, "\(layerRun.stderr)")

        let transport = TransportProcessTests()
        try await transport.withServe(["serve", "--data-dir", dir + "/sink", "--port", "0"]) { sinkPort, _ in
            try await TransportHarness.withNginx(certificate: certificate, upstreamPort: sinkPort) { nginxPort in
                let (status, sync) = try await StepSyncProcess.run(
                    ["sync", "--data-dir", data, "--server", "https://127.0.0.1:\(nginxPort)",
                     "--cacert", certificate.certificatePath, "--backoff-base", "0.01", "--json"], timeout: .seconds(900))
                #expect(status == 0, "\(sync.stderr.suffix(2000))")
                let json = try sync.json()
                #expect(json["failed"] as? Int == 0 && json["pending"] as? Int == 0 && json["complete"] as? Bool == true)
                // The default 1 MB limit was met (heart-rate intervals are larger) and learnt.
                let tooLarge = try #require(json["tooLarge"] as? Int)
                let limit = try #require(json["requestLimitBytes"] as? Int)
                #expect(tooLarge >= 1 && limit < 1 << 20)
            }
            let (statusCode, status) = try await StepSyncProcess.run(["status", "--data-dir", data, "--json"])
            #expect(statusCode == 0)
            let ledger = try status.json()
            let intervals = try #require(ledger["intervals"] as? Int)
            #expect(intervals > 0 && ledger["synced"] as? Int == intervals)
            #expect(ledger["pending"] as? Int == 0 && ledger["failed"] as? Int == 0 && ledger["inFlight"] as? Int == 0)

            // Exactly the store's samples of each type, no more, none twice.
            let store = try RawStore.uuidsByType(storePath: data + "/health.sqlite")
            #expect(store.count >= 5 && store[SampleType.heartRate.rawValue] != nil)
            for (type, uuids) in store {
                let stored = type == SampleType.stepCount.rawValue
                    ? try await SinkHarness.storedUUIDs(port: sinkPort)
                    : try await SinkHarness.storedUUIDs(port: sinkPort, type: type)
                #expect(stored.uuids == uuids && stored.count == uuids.count, "\(type)")
            }
            let counts = try await SinkHarness.typeCounts(port: sinkPort)
            #expect(counts == store.mapValues(\.count))
        }
    }
}
