import AsyncHTTPClient
import NIOHTTP1
import Foundation
import StepSyncCore
import StepSyncTestSupport
import Testing

/// `stepsync serve` as a real process: locks, binds, file-size limits and `kill -9` are the point.
@Suite("stepsync serve, as a process", .serialized)
struct ServeProcessTests {
    /// A temporary data directory for a sink, removed afterwards.
    func withSinkDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
        let dir = TemporaryDirectory.uniquePath("stepsync-serve")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        return try await body(dir)
    }

    /// Starts `stepsync serve` on the data file `<dir>/steps.jsonl` and waits until it prints its port.
    func startServe(_ dir: String, port: Int = 0, _ extra: [String] = [], prefix: [String] = []) async throws
        -> (process: StepSyncProcess, port: Int)
    {
        let process = try StepSyncProcess(
            prefix + ["serve", "--data", dir + "/steps.jsonl", "--port", "\(port)"] + extra, executable: prefix.first)
        return (process, try await process.listeningPort())
    }

    func request(_ method: HTTPMethod = .GET, port: Int, _ path: String, body: [UInt8]? = nil) async throws
        -> (status: Int, headers: [String: String], json: [String: Any])
    {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        if let body {
            request.body = .bytes(body)
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        let json = (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any]) ?? [:]
        return (Int(response.status.code), headers, json)
    }

    /// `POST /steps` of `n` fresh samples starting at sample `first`.
    func stepsBody(_ n: Int, first: Int) -> [UInt8] {
        let samples = (first..<(first + n)).map { i in
            HealthSample(uuid: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012X", i))!, type: .stepCount,
                         startMs: 1_700_000_000_000 + Int64(i) * 60_000, endMs: 1_700_000_000_000 + Int64(i) * 60_000 + 30_000,
                         value: Double(i % 100 + 1), unit: "count", sourceName: "", sourceBundleId: "com.apple.health",
                         deviceName: "iPhone")
        }
        return WireEncoder.encodeRequest(samples)
    }

    @Test("issue 11.4: a second serve on the same data directory exits non-zero at once, naming the first one's pid")
    func secondServeRefused() async throws {
        try await withSinkDirectory { dir in
            let (first, port) = try await startServe(dir)
            defer { kill(first.pid, SIGKILL) }
            #expect(try await request(.POST, port: port, "/steps", body: stepsBody(5, first: 0)).status == 200)
            let (status, second) = try await StepSyncProcess.run(["serve", "--data", dir + "/steps.jsonl", "--port", "0"])
            #expect(status != 0)
            #expect(second.stderr.contains("pid \(first.pid)"), "\(second.stderr)")
            #expect(!second.stdout.contains("listening"))
            #expect(try await request(port: port, "/steps").json["storedCount"] as? Int == 5)
            kill(first.pid, SIGTERM)
            #expect(try await first.wait() == 0)
            #expect(first.stderr.contains("dashboard: http://127.0.0.1:\(port)/ · API: http://127.0.0.1:\(port)/openapi.json"),
                    "\(first.stderr)")
        }
    }

    @Test("issue 11.5: serve on a public address without a token exits non-zero naming --token, and touches nothing")
    func publicBindWithoutToken() async throws {
        try await withSinkDirectory { dir in
            let (status, process) = try await StepSyncProcess.run(
                ["serve", "--host", "0.0.0.0", "--port", "0", "--data", dir + "/sink/steps.jsonl"])
            #expect(status != 0)
            #expect(process.stderr.contains("--token"), "\(process.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/sink"))

            let (open, _) = try await startServe(dir, ["--host", "0.0.0.0", "--allow-unauthenticated"])
            #expect(open.stderr.contains("warning: serving 0.0.0.0 without a token"))
            kill(open.pid, SIGTERM)
            #expect(try await open.wait() == 0)
        }
    }

    @Test("issue 11.8: a write past the file-size limit (EFBIG, like a full disk) answers 503 + Retry-After and /health degraded; once the limit is raised the same process accepts again, and exactly the acknowledged samples remain")
    func fileSizeLimitIsSurvivable() async throws {
        try await withSinkDirectory { dir in
            // A soft limit on the serve process (prlimit execs it), which it may raise again without privileges;
            // SIGXFSZ is ignored by the sink itself.
            let (serve, port) = try await startServe(dir, prefix: ["/usr/bin/prlimit", "--fsize=65536:unlimited", "--"])
            defer { kill(serve.pid, SIGKILL) }
            var acknowledged = 0
            var refused = 0
            var first = 0
            while refused == 0, first < 10_000 {
                let reply = try await request(.POST, port: port, "/steps", body: stepsBody(50, first: first))
                if reply.status == 200 {
                    acknowledged += 50
                } else {
                    #expect(reply.status == 503)
                    #expect(reply.headers["retry-after"] == "5")
                    #expect((reply.json["message"] as? String)?.contains("File too large") == true, "\(reply.json)")
                    refused += 1
                }
                first += 50
            }
            #expect(refused == 1 && acknowledged > 0)
            let health = try await request(port: port, "/health")
            #expect(health.status == 503 && health.json["status"] as? String == "degraded")
            // Still full: refused again, nothing half-written.
            #expect(try await request(.POST, port: port, "/steps", body: stepsBody(50, first: first)).status == 503)
            #expect(try await request(port: port, "/steps?limit=10000").json["storedCount"] as? Int == acknowledged)

            let (raised, raiser) = try await StepSyncProcess.run(
                ["--pid", "\(serve.pid)", "--fsize=unlimited:unlimited"], executable: "/usr/bin/prlimit")
            #expect(raised == 0, "\(raiser.stderr)")
            let resumed = try await request(.POST, port: port, "/steps", body: stepsBody(50, first: first))
            #expect(resumed.status == 200 && resumed.json["inserted"] as? Int == 50)
            acknowledged += 50
            #expect(try await request(port: port, "/health").json["status"] as? String == "ok")
            let page = try await request(port: port, "/steps?limit=10000")
            let uuids = (page.json["samples"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
            let expected = (0..<(acknowledged - 50)).map { String(format: "00000000-0000-4000-8000-%012X", $0) }
                + (first..<(first + 50)).map { String(format: "00000000-0000-4000-8000-%012X", $0) }
            #expect(uuids.count == expected.count && uuids == expected, "served \(uuids.count) samples, expected \(expected.count)")
            #expect(page.json["storedCount"] as? Int == acknowledged)
            kill(serve.pid, SIGTERM)
            _ = try await serve.wait()
            // After a restart the file holds exactly those lines and nothing needed repair.
            let lines = try String(contentsOfFile: dir + "/steps.jsonl", encoding: .utf8).split(separator: "\n")
            #expect(lines.count == acknowledged)
            #expect(!FileManager.default.fileExists(atPath: dir + "/steps.jsonl.quarantine"))
        }
    }

    @Test("issue 11, done-when: the sink killed with kill -9 again and again during a sync ends, after restarts, with exactly the store's samples")
    func killNineDuringSync() async throws {
        // Many small requests, so that the sync is far from its end at each kill even when this test's polling is
        // starved by a loaded machine.
        let fixture = try SyncFixture(intervals: 600, samplesPerInterval: 5)
        try await withSinkDirectory { dir in
            var (serve, port) = try await startServe(dir)
            let path = dir + "/steps.jsonl"
            @Sendable func size() -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0 }
            let syncArguments = ["sync", "--data-dir", fixture.path, "--server", "http://127.0.0.1:\(port)",
                                 "--concurrency", "2", "--request-samples", "0", "--backoff-base", "0.01", "--max-attempts", "6", "--json"]
            let sync = try StepSyncProcess(syncArguments)
            // The sync runs only between a SIGCONT and the next write the test sees: stopped (SIGSTOP) across each
            // kill and restart of the sink, its requests in flight are cut by the kill and meet a sink that is up
            // again when it continues, and how long a restart takes cannot let the sync finish or give up meanwhile.
            kill(sync.pid, SIGSTOP)
            var killsDuringSync = 0
            for _ in 0..<5 {
                // Kill once the sink has written something since it (re)started, i.e. in the middle of the sync.
                let before = size()
                guard await ProcessPacer.continueUntil(sync.process, { size() > before }) else { break }
                killsDuringSync += 1
                kill(serve.pid, SIGKILL)
                _ = try await serve.wait()
                (serve, _) = try await startServe(dir, port: port)
            }
            kill(sync.pid, SIGCONT)
            defer { kill(serve.pid, SIGKILL) }
            var status = try await sync.wait(timeout: .seconds(120))
            var runs = 0
            while status != 0, runs < 5 {
                let (again, process) = try await StepSyncProcess.run(syncArguments + ["--retry-failed"])
                status = again
                runs += 1
                if again != 0 { print(process.stderr) }
            }
            #expect(status == 0)
            #expect(killsDuringSync >= 2, "the sync ended before the sink could be killed during it: \(sync.stderr)")
            var uuids: [String] = []
            var cursor: String?
            repeat {
                let page = try await request(port: port, "/steps?limit=1000" + (cursor.map { "&cursor=\($0)" } ?? ""))
                uuids += (page.json["samples"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
                cursor = page.json["nextCursor"] as? String
            } while cursor != nil
            #expect(uuids.count == fixture.samples.count)
            #expect(Set(uuids.compactMap(UUID.init(uuidString:))) == fixture.storeUUIDs)
            kill(serve.pid, SIGTERM)
            _ = try await serve.wait()
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == fixture.samples.count, "a sample was written twice")
        }
    }

    /// One sample of each of `types` invented type names (`HKQuantityTypeIdentifierFuzz000`…), uuids from `first`.
    func manyTypesBody(_ types: Int, first: Int = 0) -> [UInt8] {
        let base = ISO8601Millis.parse("2025-05-11T00:00:00.000Z")!
        let samples = (0..<types).map { i in
            HealthSample(uuid: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", first + i))!,
                         type: SampleType(String(format: "HKQuantityTypeIdentifierFuzz%03d", i)),
                         startMs: base + Int64(i) * 60_000, endMs: base + Int64(i) * 60_000, value: Double(i + 1),
                         unit: "count", sourceName: "Test", sourceBundleId: "com.example.test")
        }
        return WireEncoder.encodeSamplesRequest(samples)
    }

    @Test("""
        issue 21.3: at a 256-descriptor limit, 300 distinct types in one POST get 400 too_many_types (nothing stored); \
        with --max-types 1000 all 300 are stored, /health stays 200 and requests go on; restarted at the same limit \
        over 300 type files, the sink serves them
        """)
    func manyTypesAtLowDescriptorLimit() async throws {
        try await withSinkDirectory { dir in
            let limit = ["/usr/bin/prlimit", "--nofile=256:256", "--"]
            do {
                let (serve, port) = try await startServe(dir, prefix: limit)
                defer { kill(serve.pid, SIGKILL) }
                let refused = try await request(.POST, port: port, "/samples", body: manyTypesBody(300))
                #expect(refused.status == 400)
                #expect(refused.json["error"] as? String == "too_many_types")
                #expect((refused.json["message"] as? String)?.contains("at most 256") == true, "\(refused.json)")
                let types = try await request(port: port, "/samples/types")
                #expect((types.json["types"] as? [String: Any])?.isEmpty == true, "\(types.json)")
                let files = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/samples")) ?? []
                #expect(files.filter { $0.hasSuffix(".jsonl") }.isEmpty, "\(files.count) type files created")
                #expect(try await request(port: port, "/health").status == 200)
                // Gone before the next sink takes the directory's lock (under load the kill is not instant).
                kill(serve.pid, SIGKILL)
                _ = try await serve.wait(timeout: .seconds(60))
            }
            do {
                let (serve, port) = try await startServe(dir, ["--max-types", "1000"], prefix: limit)
                defer { kill(serve.pid, SIGKILL) }
                let stored = try await request(.POST, port: port, "/samples", body: manyTypesBody(300))
                #expect(stored.status == 200, "\(stored.json)")
                #expect(stored.json["inserted"] as? Int == 300)
                // Requests go on: the descriptors of 300 files are not held.
                for round in 0..<3 {
                    let again = try await request(.POST, port: port, "/samples", body: manyTypesBody(300, first: 1000 * (round + 1)))
                    #expect(again.status == 200 && again.json["inserted"] as? Int == 300, "\(again.json)")
                }
                #expect(try await request(port: port, "/health").status == 200)
                let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(serve.pid)/fd").count
                #expect(open < 128, "the sink holds \(open) descriptors")
                kill(serve.pid, SIGTERM)
                #expect(try await serve.wait(timeout: .seconds(60)) == 0)
            }
            do {
                let (serve, port) = try await startServe(dir, ["--max-types", "1000"], prefix: limit)
                defer { kill(serve.pid, SIGKILL) }
                #expect(try await request(port: port, "/health").status == 200)
                let types = try await request(port: port, "/samples/types")
                let counts = types.json["types"] as? [String: Int] ?? [:]
                #expect(counts.count == 300 && counts.values.allSatisfy { $0 == 4 }, "\(counts.count) types")
                let page = try await request(port: port, "/samples?type=HKQuantityTypeIdentifierFuzz299")
                let uuids = Set((page.json["samples"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String })
                #expect(uuids == Set([299, 1299, 2299, 3299].map {
                    String(format: "00000000-0000-4000-8000-%012d", $0)
                }))
            }
        }
    }

    @Test("issue 21.8/21.10: absurd serve options refuse to start, naming the option and its range")
    func absurdOptionsRefused() async throws {
        let cases: [([String], String)] = [
            (["--max-body-mib", "9000000000000"], "--max-body-mib"),
            (["--max-body-mib", "0"], "--max-body-mib must be 1…1024"),
            (["--max-body-mib", "1025"], "--max-body-mib must be 1…1024"),
            (["--max-types", "0"], "--max-types must be 1…10000"),
            (["--max-hae-bytes", "0"], "--max-hae-bytes must be 1…1000000000"),
            (["--port", "70000"], "--port"),
            (["--host", "0.0.0.0", "--token", " "], "at least 16 characters"),
            (["--host", "0.0.0.0", "--token", "x"], "at least 16 characters"),
            (["--host", "0.0.0.0", "--token", String(repeating: " ", count: 20)], "not only spaces"),
        ]
        for (arguments, expected) in cases {
            let (status, process) = try await StepSyncProcess.run(["serve", "--port", "0"] + arguments)
            #expect(status != 0, "\(arguments) started")
            #expect(process.stderr.contains(expected), "\(arguments): \(process.stderr)")
            #expect(!process.stdout.contains("listening"), "\(arguments)")
        }
    }
}
