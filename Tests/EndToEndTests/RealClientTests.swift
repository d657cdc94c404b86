import Foundation
import StepSyncCore
import Testing
import StepSyncTestSupport

/// The tools of the real-client tests: the Python venv `.ci/venv` makes (requests, httpx, openapi-python-client, ruff),
/// Node 20 and curl. The tests run where all are installed, and always in CI (where a missing one fails them).
enum RealClients {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let scripts = root.appendingPathComponent("Tests/Clients").path
    static let venv = ProcessInfo.processInfo.environment["STEPSYNC_CI_VENV"]
        ?? root.appendingPathComponent(".build/ci-venv").path
    static var python: String { venv + "/bin/python" }
    static let node = ["/usr/bin/node", "/usr/local/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let curl = ["/usr/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static var installed: Bool {
        FileManager.default.isExecutableFile(atPath: venv + "/bin/openapi-python-client")
            && FileManager.default.isExecutableFile(atPath: venv + "/bin/ruff") && node != nil && curl != nil
    }
    static var available: Bool { installed || ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Runs `executable arguments` (PATH gets the venv's bin first, for ruff); returns stdout, failing on non-zero.
    static func run(_ executable: String, _ arguments: [String]) async throws -> (stdout: String, stderr: String) {
        let path = (venv + "/bin:") + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let process = try StepSyncProcess([executable] + arguments, executable: executable, environment: ["PATH": path])
        let status = try await process.wait(timeout: .seconds(300))
        guard status == 0 else {
            throw TestError("\(executable) \(arguments.prefix(2)) exited \(status): \(process.stderr.suffix(2_000))")
        }
        return (process.stdout, process.stderr)
    }

    struct TestError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// Other people's software is the judge: Python requests and httpx, Node's fetch, curl and a client generated from the
/// sink's own OpenAPI document, each with its library's default encodings, against one real `stepsync serve`.
@Suite("real HTTP clients against the sink", .serialized, .enabled(if: RealClients.available, "python3 with requests and httpx (STEPSYNC_CI_VENV or .build/ci-venv), node and curl are needed; .ci/run installs them"))
struct RealClientTests {
    static let token = "real-clients-token-0123456789"
    /// 2025-05-11 in Berlin: a walk both the iPhone (600) and the Watch (900) recorded, and 100 iPhone-only steps.
    static let day = "2025-05-11"

    /// The fixture: overlapping iPhone + Watch steps and 30 heart-rate samples (paged 7 at a time).
    static func fixture() -> (body: [UInt8], heartRateUUIDs: [String]) {
        let base = ISO8601Millis.parse("2025-05-11T10:00:00.000Z")!
        func steps(_ offset: Int64, _ minutes: Int64, _ count: Double, _ device: String) -> HealthSample {
            HealthSample(uuid: UUID(), type: .stepCount, startMs: base + offset, endMs: base + offset + minutes * 60_000,
                         value: count, unit: "count", sourceName: device, sourceBundleId: "com.apple.health.\(device)",
                         deviceName: device)
        }
        var samples = [steps(0, 10, 600, "iPhone"), steps(0, 10, 900, "Apple Watch"), steps(7_200_000, 5, 100, "iPhone")]
        let heartRate = (0..<30).map { i in
            HealthSample(uuid: UUID(), type: .heartRate, startMs: base + Int64(i) * 60_000, endMs: base + Int64(i) * 60_000,
                         value: Double(60 + i), unit: "count/min", sourceName: "Apple Watch",
                         sourceBundleId: "com.apple.health.Watch", deviceName: "Apple Watch")
        }
        samples += heartRate
        return (WireEncoder.encodeSamplesRequest(samples), heartRate.map(\.uuid.uuidString).sorted())
    }

    /// A running `stepsync serve` with a token, for `body`.
    func withServe<T>(_ body: (String, String) async throws -> T) async throws -> T {
        let dir = TemporaryDirectory.uniquePath("stepsync-clients")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let serve = try StepSyncProcess(["serve", "--port", "0", "--data", dir + "/sink/steps.jsonl", "--token", Self.token])
        defer { kill(serve.pid, SIGKILL) }
        let port = try await serve.listeningPort()
        return try await body("http://127.0.0.1:\(port)", dir)
    }

    @Test("""
        issue 22: requests, httpx, Node fetch, curl and the generated client each post, page /samples and ask \
        /steps/daily with priority "Apple Watch,iPhone" encoded their default way: all answers equal, and right
        """)
    func everyClientGetsTheSameRightAnswer() async throws {
        #expect(RealClients.installed, "run .ci/venv and install nodejs and curl")
        let (body, heartRate) = Self.fixture()
        try await withServe { url, dir in
            let bodyFile = dir + "/body.json"
            try Data(body).write(to: URL(fileURLWithPath: bodyFile))
            let common = [url, Self.token, bodyFile, SampleType.heartRate.rawValue, Self.day, Self.day, "Europe/Berlin",
                          "Apple Watch,iPhone"]

            // The generated client first: the document as served, generated with ruff on PATH, no warning.
            let document = dir + "/openapi.json"
            _ = try await RealClients.run(RealClients.curl!, ["-fsS", "-o", document, url + "/openapi.json"])
            let package = dir + "/stepsync_client"
            let generated = try await RealClients.run(RealClients.venv + "/bin/openapi-python-client",
                                                      ["generate", "--path", document, "--output-path", package,
                                                       "--meta", "none"])
            let noise = (generated.stdout + generated.stderr).lowercased()
            #expect(!noise.contains("warning") && !noise.contains("error"), "openapi-python-client: \(noise)")

            var answers: [(String, String)] = []
            answers.append(("requests", try await RealClients.run(RealClients.python,
                                                                  [RealClients.scripts + "/client_requests.py"] + common).stdout))
            answers.append(("httpx", try await RealClients.run(RealClients.python,
                                                               [RealClients.scripts + "/client_httpx.py"] + common).stdout))
            answers.append(("fetch", try await RealClients.run(RealClients.node!,
                                                               [RealClients.scripts + "/client_fetch.mjs"] + common).stdout))
            answers.append(("curl", try await RealClients.run("/bin/bash",
                                                              [RealClients.scripts + "/client_curl.sh"] + common).stdout))
            answers.append(("generated", try await RealClients.run(RealClients.python,
                                                                   [RealClients.scripts + "/client_generated.py", package]
                                                                       + common).stdout))
            let first = answers[0].1
            for (name, answer) in answers {
                #expect(answer == first, "\(name) answered differently:\n\(answer)\nrequests:\n\(first)")
            }
            let json = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
            #expect(json["accepted"] as? Int == 33)
            #expect(json["uuids"] as? [String] == heartRate)
            let daily = try #require(json["daily"] as? [String: Any])
            // The Watch outranks the iPhone where both walked: 900 + 100, not 1,600.
            #expect((daily["days"] as? [[String: Any]])?.map { $0["steps"] as? Int } == [1000], "\(daily)")
            #expect(daily["unmatched"] as? [String] == [])
            #expect(daily["tz"] as? String == "Europe/Berlin")
        }
    }
}
