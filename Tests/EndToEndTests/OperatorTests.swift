import AsyncHTTPClient
import Foundation
import NIOHTTP1
import StepSyncCore
import StepSyncStore
import StepSyncTestSupport
import Testing

/// What an operator runs the sink with: a real Prometheus scraping `/metrics` (and `promtool` linting it), JSON log
/// lines a shipper reads, and the systemd unit of `Deploy/`.
@Suite("running the sink as a service", .serialized)
struct OperatorTests {
    static let onCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// `name` from `PATH` or `/usr/bin`, or nil.
    static func tool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return (path.split(separator: ":").map { "\($0)/\(name)" } + ["/usr/bin/\(name)"])
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Prometheus and promtool are here, or the run is CI's (which installs them and must not skip).
    static var prometheusAvailable: Bool { (tool("prometheus") != nil && tool("promtool") != nil) || onCI }

    static let token = "sink-token-for-operators-0001"
    static let metricsToken = "metrics-token-for-prometheus-01"

    /// A store of generated step samples, layered, under `dir/data`; returns the number of samples.
    static func layeredStore(_ dir: String) async throws -> Int {
        let store = try StepStore(dataDirectory: DataDirectory(path: dir + "/data"))
        let samples = Array(SampleGenerator(profile: .realistic, seed: 35,
                                            days: CivilDate(year: 2024, month: 3, day: 1)...CivilDate(year: 2024, month: 4, day: 30),
                                            types: [.steps]).joined())
        try store.insert(samples)
        let (layered, layer) = try await StepSyncProcess.run(["layer", "--data-dir", dir + "/data"])
        #expect(layered == 0, "\(layer.stderr)")
        return samples.count
    }

    static func get(_ url: String, token: String? = nil) async throws -> (status: Int, body: String) {
        var request = HTTPClientRequest(url: url)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), String(buffer: body))
    }

    @Test("a real Prometheus scrapes /metrics with its bearer credentials; PromQL returns the samples a sync stored; promtool finds nothing to lint",
          .enabled(if: prometheusAvailable, "prometheus is not installed (.ci/run installs it; with CI=true the test fails instead)"))
    func prometheusScrapes() async throws {
        let prometheus = try #require(Self.tool("prometheus"), "prometheus is not installed: apt-get install prometheus")
        let promtool = try #require(Self.tool("promtool"), "promtool is not installed: apt-get install prometheus")
        try await withTemporaryDirectory("stepsync-prometheus") { dir in
            let stored = try await Self.layeredStore(dir)
            let serve = try StepSyncProcess(["serve", "--port", "0", "--data", dir + "/sink/steps.jsonl",
                                             "--token", Self.token, "--metrics-token", Self.metricsToken],
                                            killOnRelease: true)
            let port = try await serve.listeningPort()
            let (synced, sync) = try await StepSyncProcess.run([
                "sync", "--data-dir", dir + "/data", "--server", "http://127.0.0.1:\(port)", "--token", Self.token])
            #expect(synced == 0, "\(sync.stderr)")

            // The exposition lints clean.
            let (status, exposition) = try await Self.get("http://127.0.0.1:\(port)/metrics", token: Self.metricsToken)
            #expect(status == 200)
            try exposition.write(toFile: dir + "/metrics.txt", atomically: true, encoding: .utf8)
            let (linted, lint) = try await StepSyncProcess.run(
                ["-c", "\(promtool) check metrics < \(dir)/metrics.txt"], executable: "/bin/sh")
            #expect(linted == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty, "\(lint.stdout)\(lint.stderr)")
            #expect(exposition.contains(#"stepsync_samples_total{storage="jsonl",type="HKQuantityTypeIdentifierStepCount",outcome="inserted"} \#(stored)"#),
                    "\(exposition.prefix(2000))")

            // A real Prometheus, scraping every second with the metrics token.
            let promPort = try PostgresHarness.freePort()
            try """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 1s
                scrape_configs:
                  - job_name: stepsync
                    authorization:
                      type: Bearer
                      credentials: \(Self.metricsToken)
                    static_configs:
                      - targets: ["127.0.0.1:\(port)"]
                """.write(toFile: dir + "/prometheus.yml", atomically: true, encoding: .utf8)
            let server = try StepSyncProcess(
                [prometheus, "--config.file=\(dir)/prometheus.yml", "--storage.tsdb.path=\(dir)/tsdb",
                 "--web.listen-address=127.0.0.1:\(promPort)"], executable: prometheus, killOnRelease: true)
            let query = "sum(stepsync_samples_total{job=\"stepsync\",outcome=\"inserted\"})"
                .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            var answer = ""
            let deadline = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < deadline {
                if let reply = try? await Self.get("http://127.0.0.1:\(promPort)/api/v1/query?query=\(query)"),
                   reply.status == 200, reply.body.contains("\"value\"") {
                    answer = reply.body
                    break
                }
                #expect(server.process.isRunning, "prometheus exited: \(server.stderr.suffix(1000))")
                try await Task.sleep(for: .milliseconds(250))
            }
            let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any],
                                    "no answer: \(server.stderr.suffix(1500))")
            let result = try #require(((json["data"] as? [String: Any])?["result"] as? [[String: Any]])?.first)
            let value = try #require((result["value"] as? [Any])?.last as? String)
            #expect(value == "\(stored)")
            // The target is up, scraped with the token (a wrong one would make it 0 with a 401).
            let up = try await Self.get("http://127.0.0.1:\(promPort)/api/v1/query?query=up")
            #expect(up.body.contains(#""job":"stepsync""#) && up.body.contains(#","1"]"#), "\(up.body)")
        }
    }

    @Test("serve --log-format json: every stderr line one JSON object; each request with its id, route, status, duration")
    func jsonLogs() async throws {
        try await withTemporaryDirectory("stepsync-json-logs") { dir in
            let serve = try StepSyncProcess(["serve", "--port", "0", "--data", dir + "/sink/steps.jsonl",
                                             "--log-format", "json"], killOnRelease: true)
            let port = try await serve.listeningPort()
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/workouts/\(UUID().uuidString)/route")
            request.headers.add(name: "X-Request-Id", value: "proxy-id-42")
            let reply = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            #expect(reply.status.code == 404 && reply.headers["X-Request-Id"].first == "proxy-id-42")
            let missing = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/nope"),
                                                              timeout: .seconds(30))
            let madeID = try #require(missing.headers["X-Request-Id"].first)
            #expect(try await Self.get("http://127.0.0.1:\(port)/health").status == 200)
            kill(serve.pid, SIGTERM)
            #expect(try await serve.wait() == 0)

            let lines = serve.stderr.split(separator: "\n")
            let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(objects.count == lines.count && lines.count >= 4, "\(serve.stderr)")
            #expect(objects.allSatisfy { $0["time"] is String && $0["level"] is String && $0["message"] is String })
            #expect(objects.allSatisfy { ISO8601Millis.parse($0["time"] as? String ?? "") != nil })
            let requests = objects.filter { $0["message"] as? String == "Request" }
            #expect(requests.count == 3)
            let route = try #require(requests.first { $0["request.id"] as? String == "proxy-id-42" })
            #expect(route["http.route"] as? String == "/workouts/{uuid}/route")
            #expect(route["http.status"] as? Int == 404 && route["level"] as? String == "info")
            #expect((route["http.duration"] as? Double).map { $0 >= 0 && $0 < 60 } == true)
            let unmatched = try #require(requests.first { $0["request.id"] as? String == madeID })
            #expect(unmatched["http.route"] as? String == "unmatched" && unmatched["http.status"] as? Int == 404)
            // The start is logged too (where it listens), as JSON.
            #expect(objects.contains { ($0["message"] as? String)?.contains("127.0.0.1:\(port)") == true }, "\(serve.stderr)")
        }
    }

    /// The binary `.ci/run` builds with `--static-swift-stdlib` (`STEPSYNC_STATIC_BINARY`); CI must have it.
    static var staticBinary: String? { ProcessInfo.processInfo.environment["STEPSYNC_STATIC_BINARY"] }

    /// The toolchain's folder (`/opt/swift` for `/opt/swift/usr/bin/swift`).
    static var toolchain: String? {
        tool("swift").map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path }
    }

    /// Runs `binary arguments` in a mount namespace where the toolchain's folder is an empty tmpfs.
    static func withoutToolchain(_ binary: String, _ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let toolchain = try #require(Self.toolchain, "swift is not on PATH")
        let command = "mount -t tmpfs none \(toolchain) && exec \(binary) \(arguments.joined(separator: " "))"
        let unshare = try #require(tool("unshare"))
        let process = try StepSyncProcess(["-m", "sh", "-c", command], executable: unshare, killOnRelease: true)
        let status = try await process.wait()
        return (status, process.stdout, process.stderr)
    }

    @Test("the --static-swift-stdlib binary needs no Swift library: ldd lists none, and the demo runs with the toolchain hidden (the debug binary cannot)",
          .enabled(if: staticBinary != nil || onCI, "set STEPSYNC_STATIC_BINARY to a binary built with --static-swift-stdlib (.ci/run does)"))
    func staticBinaryRunsWithoutSwift() async throws {
        let binary = try #require(Self.staticBinary, "STEPSYNC_STATIC_BINARY is not set: .ci/run builds the static binary first")
        let ldd = try #require(Self.tool("ldd"))
        let (linked, libraries) = try await StepSyncProcess.run([binary], executable: ldd)
        #expect(linked == 0 && libraries.stdout.contains("libc.so"), "\(libraries.stdout)\(libraries.stderr)")
        #expect(!libraries.stdout.contains("libswift") && !libraries.stdout.contains("libFoundation")
                && !libraries.stdout.contains("libdispatch"), "\(libraries.stdout)")
        let (dynamicLinked, dynamicLibraries) = try await StepSyncProcess.run([StepSyncProcess.binaryPath], executable: ldd)
        #expect(dynamicLinked == 0 && dynamicLibraries.stdout.contains("libswiftCore.so"))
        try await withTemporaryDirectory("stepsync-static") { dir in
            let run = try await Self.withoutToolchain(binary, ["demo", "--years", "1", "--types", "steps", "--json"])
            #expect(run.status == 0, "\(run.stderr.suffix(2000))")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any],
                                      "\(run.stdout.suffix(500))")
            #expect(report["exact"] as? Bool == true && (report["synced"] as? Int ?? 0) > 0, "\(report)")
            // The toolchain really is hidden there: the dynamically linked binary cannot start.
            let dynamic = try await Self.withoutToolchain(StepSyncProcess.binaryPath, ["--version"])
            #expect(dynamic.status != 0 && dynamic.stderr.contains("libswift") && dynamic.stderr.contains("cannot open shared object file"), "\(dynamic.stderr)")
            _ = dir
        }
    }

    @Test("Deploy/stepsync.service passes systemd-analyze verify with nothing printed (a broken copy prints its fault)",
          .enabled(if: tool("systemd-analyze") != nil || onCI, "systemd-analyze is not installed"))
    func systemdUnit() async throws {
        let analyze = try #require(Self.tool("systemd-analyze"))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let unit = try String(contentsOfFile: root + "/Deploy/stepsync.service", encoding: .utf8)
        #expect(unit.contains("ProtectSystem=strict") && unit.contains("NoNewPrivileges=yes")
                && unit.contains("DynamicUser=yes") && unit.contains("StateDirectory=stepsync")
                && unit.contains("Restart=on-failure"))
        // LimitNOFILE above serve's --max-connections (one descriptor a connection, a few for the files).
        let limit = try #require(unit.firstMatch(of: /LimitNOFILE=(\d+)/).flatMap { Int($0.1) })
        let connections = try #require(unit.firstMatch(of: /--max-connections (\d+)/).flatMap { Int($0.1) })
        #expect(limit >= connections + 64)
        try await withTemporaryDirectory("stepsync-unit") { dir in
            // The unit as installed, but naming the binary under test.
            let installed = unit.replacingOccurrences(of: "/usr/local/bin/stepsync", with: StepSyncProcess.binaryPath)
            try installed.write(toFile: dir + "/stepsync.service", atomically: true, encoding: .utf8)
            let (status, verify) = try await StepSyncProcess.run([analyze, "verify", dir + "/stepsync.service"],
                                                                executable: analyze)
            #expect(status == 0 && verify.stdout.isEmpty && verify.stderr.isEmpty, "\(verify.stdout)\(verify.stderr)")
            let broken = installed.replacingOccurrences(of: "ProtectSystem=strict", with: "ProtectSystem=sideways")
            try broken.write(toFile: dir + "/broken.service", atomically: true, encoding: .utf8)
            let (_, fault) = try await StepSyncProcess.run([analyze, "verify", dir + "/broken.service"], executable: analyze)
            #expect((fault.stdout + fault.stderr).contains("protect system value, ignoring: sideways"))
            // And serve accepts the unit's command line.
            let help = try await StepSyncProcess.output(["serve", "--help"])
            for option in ["--host", "--port", "--data-dir", "--max-connections", "--log-format", "--metrics-token"] {
                #expect(help.stdout.contains(option), "serve --help lacks \(option)")
            }
        }
    }
}
