import AsyncHTTPClient
import Foundation
import NIOHTTP1
import StepSyncCore
import StepSyncStore
import StepSyncTestSupport
import Testing

/// Issue 23: what a newcomer meets, through the real binary — `reset --remote` empties every type, errors in words,
/// nothing in the future, read-only commands create nothing, one vocabulary of names, the favicon, `--version`.
@Suite("What a newcomer meets on a first run, through the binary", .serialized)
struct NewcomerTests {
    let serve = ServeProcessTests()

    /// A fresh path under the temp directory that does not exist yet.
    static func freshPath(_ name: String) -> String {
        NSTemporaryDirectory() + "stepsync-\(name)-\(UUID().uuidString)"
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> StepSyncProcess {
        let process = try StepSyncProcess(arguments, environment: environment)
        _ = try await process.wait()
        return process
    }

    // MARK: - reset --remote, status's sink

    @Test("reset --remote empties the sink of every type, counting each; status names the sink the last sync used")
    func resetRemoteEmptiesEveryType() async throws {
        let (dir, samples) = try LayerCommandTests.mixedDataDirectory()
        let sinkDir = Self.freshPath("sink")
        try FileManager.default.createDirectory(atPath: sinkDir, withIntermediateDirectories: true)
        defer { for d in [dir, sinkDir] { try? FileManager.default.removeItem(atPath: d) } }
        let before = try await Self.run(["status", "--data-dir", dir])
        #expect(before.stdout.contains("no sync has run on this store yet"), "\(before.stdout)")
        let (sink, port) = try await serve.startServe(sinkDir)
        defer { kill(sink.pid, SIGTERM) }
        let server = "http://127.0.0.1:\(port)"
        _ = try await LayerCommandTests.binary(["layer", "--data-dir", dir])
        let sync = try await Self.run(["sync", "--data-dir", dir, "--server", server, "--json"])
        #expect(sync.process.terminationStatus == 0, "\(sync.stderr)")
        let held = try await serve.request(port: port, "/samples/types").json["types"] as? [String: Int]
        let expected = Dictionary(grouping: samples, by: \.type).mapValues(\.count)
        #expect(held == Dictionary(uniqueKeysWithValues: expected.map { ($0.key.rawValue, $0.value) }))

        let status = try await Self.run(["status", "--data-dir", dir])
        #expect(status.stdout.contains("the sink the last sync used: \(server)"), "\(status.stdout)")
        #expect(!status.stdout.contains("127.0.0.1:8000"))
        let statusJSON = try await Self.run(["status", "--data-dir", dir, "--json"])
        #expect(try statusJSON.json()["lastServer"] as? String == server)

        let reset = try await Self.run(["reset", "--remote", "--server", server, "--yes", "--data-dir", dir])
        #expect(reset.process.terminationStatus == 0, "\(reset.stderr)")
        #expect(reset.stdout.contains("sink emptied: deleted 1,840 samples of 5 types"), "\(reset.stdout)")
        for (type, count) in [("StepCount", 600), ("HeartRate", 900), ("DistanceWalkingRunning", 300),
                              ("SleepAnalysis", 30), ("Workout", 10)] {
            #expect(reset.stdout.contains("  \(type): \(Self.format(count))\n"), "\(type) \(count): \(reset.stdout)")
        }
        let after = try await serve.request(port: port, "/samples/types").json["types"] as? [String: Int]
        #expect(after == [:])
        let help = try await Self.run(["reset", "--help"])
        #expect(help.stdout.contains("every type"))
    }

    /// `1234` → `1,234`, as the binary prints counts.
    static func format(_ value: Int) -> String {
        let digits = String(value)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }

    // MARK: - Errors in words

    @Test("a port in use is said in words, naming the port and --port, before the sink opens anything")
    func portInUse() async throws {
        let first = Self.freshPath("sink1")
        let second = Self.freshPath("sink2")
        for d in [first, second] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }
        defer { for d in [first, second] { try? FileManager.default.removeItem(atPath: d) } }
        let (sink, port) = try await serve.startServe(first)
        defer { kill(sink.pid, SIGTERM) }
        let (status, process) = try await StepSyncProcess.run(["serve", "--data", second + "/steps.jsonl", "--port", "\(port)"])
        #expect(status == 1)
        #expect(process.stderr.contains("port \(port) on 127.0.0.1 is already in use"), "\(process.stderr)")
        #expect(process.stderr.contains("--port"))
        #expect(!process.stderr.contains("bind(descriptor"))
        #expect(!process.stderr.contains("Data file loaded"))
        #expect(!FileManager.default.fileExists(atPath: second + "/steps.jsonl"))
    }

    @Test("import of a directory or a missing file names the path and what is wrong, no NSCocoaErrorDomain")
    func importBadPaths() async throws {
        let dir = Self.freshPath("import")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let data = Self.freshPath("data")
        defer { try? FileManager.default.removeItem(atPath: data) }
        for (path, words) in [(dir, "is a directory"), (dir + "/export.zip", "does not exist")] {
            let (status, process) = try await StepSyncProcess.run(["import", path, "--data-dir", data])
            #expect(status == 1)
            #expect(process.stderr.contains("\(path) \(words)"), "\(process.stderr)")
            #expect(!process.stderr.contains("NSCocoaErrorDomain"))
        }
    }

    @Test("clients add with an unreachable database names its host and port")
    func unreachableDatabase() async throws {
        let closed = try ClosedPort()
        defer { closed.release() }
        let port = closed.port
        let (status, process) = try await StepSyncProcess.run(
            ["clients", "add", "anna", "--database", "postgresql://stepsync@127.0.0.1:\(port)/stepsync"])
        #expect(status == 1)
        #expect(process.stderr.contains("cannot reach the PostgreSQL database stepsync at 127.0.0.1:\(port)"), "\(process.stderr)")
    }

    @Test("a --server port outside 1…65535 is refused at parse time", arguments: ["sync", "reset"])
    func serverPortOutOfRange(command: String) async throws {
        let extra = command == "reset" ? ["--remote", "--yes"] : []
        let data = Self.freshPath("data")
        defer { try? FileManager.default.removeItem(atPath: data) }
        let (status, process) = try await StepSyncProcess.run(
            [command, "--server", "http://localhost:99999", "--data-dir", data] + extra)
        #expect(status == 64)
        #expect(process.stderr.contains("99999") && process.stderr.contains("1…65535"), "\(process.stderr)")
        #expect(!FileManager.default.fileExists(atPath: data))
    }

    // MARK: - Names, usage, version

    @Test("short names and any case work wherever a type or a status is asked for; a type the store lacks is no usage error")
    func oneVocabulary() async throws {
        let (dir, _) = try LayerCommandTests.mixedDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let layer = try await LayerCommandTests.binary(["layer", "--type", "steps", "--type", "heartrate", "--type", "Workouts", "--json", "--data-dir", dir])
        let layered = try #require(try layer.json()["types"] as? [String: Any])
        #expect(Set(layered.keys) == ["HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierHeartRate", "HKWorkoutTypeIdentifier"])
        let chunks = try await LayerCommandTests.binary(["chunks", "--type", "STEPS", "--status", "PENDING", "--json", "--data-dir", dir])
        let rows = try LayerCommandTests.jsonArray(chunks)
        #expect(!rows.isEmpty && rows.allSatisfy { $0["type"] as? String == "HKQuantityTypeIdentifierStepCount" && $0["status"] as? String == "pending" })
        let inflight = try await LayerCommandTests.binary(["chunks", "--status", "inflight", "--json", "--data-dir", dir])
        #expect(try LayerCommandTests.jsonArray(inflight).isEmpty)
        let status = try await LayerCommandTests.binary(["status", "--type", "heart-rate", "--json", "--data-dir", dir])
        #expect(Set((try status.json()["types"] as? [String: Any] ?? [:]).keys) == ["HKQuantityTypeIdentifierHeartRate"])
        let delete = try await LayerCommandTests.binary(
            ["delete", "--type", "sleep", "--from", "2000-01-01T00:00:00.000Z", "--to", "2000-01-02T00:00:00.000Z", "--yes", "--json", "--data-dir", dir])
        #expect(try delete.json()["samples"] as? Int == 0)
        // The human tables: short names (Workout, not HKWorkoutTypeIdentifier) and grouped sums.
        let all = try await LayerCommandTests.binary(["layer", "--data-dir", dir])
        #expect(all.stdout.contains("DistanceWalkingRunning") && all.stdout.contains("112.5"), "\(all.stdout)")
        let workouts = try await LayerCommandTests.binary(["chunks", "--type", "workout", "--data-dir", dir])
        #expect(workouts.stdout.contains(" Workout ") && !workouts.stdout.contains("HKWorkoutTypeIdentifier"), "\(workouts.stdout)")

        // A type the store does not hold: said, exit 0 — not the root usage with 64.
        let steps = Self.freshPath("steps")
        defer { try? FileManager.default.removeItem(atPath: steps) }
        _ = try await LayerCommandTests.binary(["generate", "--years", "1", "--profile", "seed", "--end", "2025-06-30", "--data-dir", steps])
        for command in [["layer", "--type", "StepCount", "--type", "HeartRate"], ["chunks", "--type", "HeartRate", "--status", "failed"]] {
            let (code, process) = try await StepSyncProcess.run(command + ["--data-dir", steps])
            #expect(code == 0, "\(command): \(process.stderr)")
            #expect(process.stderr.contains("the store holds no samples of HeartRate"), "\(command): \(process.stderr)")
        }
        // A name that is no type: a usage error of that subcommand, with its usage.
        let (code, bogus) = try await StepSyncProcess.run(["chunks", "--type", "Bogus!", "--data-dir", steps])
        #expect(code == 64)
        #expect(bogus.stderr.contains("Usage: stepsync chunks") && !bogus.stderr.contains("<subcommand>"), "\(bogus.stderr)")
    }

    @Test("--version prints the one version constant")
    func version() async throws {
        let (status, process) = try await StepSyncProcess.run(["--version"])
        #expect(status == 0)
        #expect(process.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == StepSyncVersion.current)
    }

    // MARK: - Nothing in the future, nothing created

    @Test("generate never writes a sample after now (STEPSYNC_NOW); --append-days then fills up to now")
    func nothingAfterNow() async throws {
        let dir = Self.freshPath("now")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let morning = "2025-06-30T11:00:00.000Z"
        let evening = "2025-06-30T19:30:00.000Z"
        let first = try await Self.run(["generate", "--years", "1", "--json", "--data-dir", dir], environment: ["STEPSYNC_NOW": morning])
        #expect(first.process.terminationStatus == 0, "\(first.stderr)")
        #expect(try first.json()["lastDay"] as? String == "2025-06-30")
        let store = try StepStore(dataDirectory: DataDirectory(path: dir))
        let lastEnd = try #require(try Self.lastEnd(store))
        #expect(lastEnd <= ISO8601Millis.parse(morning)!)
        // Realistic days hold steps in the evening: some were left out.
        let append = try await Self.run(["generate", "--append-days", "7", "--json", "--data-dir", dir], environment: ["STEPSYNC_NOW": evening])
        #expect(append.process.terminationStatus == 0, "\(append.stderr)")
        #expect((try append.json()["samples"] as? Int ?? 0) > 0)
        let filled = try #require(try Self.lastEnd(store))
        #expect(filled > lastEnd && filled <= ISO8601Millis.parse(evening)!)
    }

    /// The latest end of any stored sample.
    static func lastEnd(_ store: StepStore) throws -> Int64? {
        var last: Int64?
        try store.forEachSamplePage(of: .stepCount, in: LayeringEngine.domain, pageSize: 10_000) { page in
            for sample in page { last = max(last ?? .min, sample.endMs) }
        }
        return last
    }

    @Test("read-only commands on a data directory that does not exist fail naming it and create nothing",
          arguments: [["stats"], ["stats", "--daily"], ["status"], ["chunks"], ["chunks", "--json"]])
    func readOnlyCreateNothing(command: [String]) async throws {
        let dir = Self.freshPath("missing")
        let (status, process) = try await StepSyncProcess.run(command + ["--data-dir", dir])
        #expect(status == 1)
        #expect(process.stderr.contains("no stepsync data in \(dir)"), "\(process.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir))
    }

    // MARK: - The sink's favicon, the retries without a terminal

    @Test("GET /favicon.ico is answered 204 and never counted as an error")
    func favicon() async throws {
        let dir = Self.freshPath("favicon")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (sink, port) = try await serve.startServe(dir)
        defer { kill(sink.pid, SIGTERM) }
        for _ in 0..<3 { #expect(try await serve.request(port: port, "/favicon.ico").status == 204) }
        let stats = try await serve.request(port: port, "/stats").json
        let activity = try #require(stats["activity"] as? [String: Any])
        #expect(activity["errors"] as? Int == 0, "\(stats)")
    }

    @Test("without a terminal, a sync waiting for a dead sink says so once, not once per attempt")
    func oneLinePerState() async throws {
        let fixture = try SyncFixture(intervals: 4, samplesPerInterval: 2)
        let closed = try ClosedPort()
        defer { closed.release() }
        let port = closed.port
        let (status, process) = try await StepSyncProcess.run(
            ["sync", "--data-dir", fixture.path, "--server", "http://127.0.0.1:\(port)", "--backoff-base", "0.1",
             "--give-up-after", "2"])
        #expect(status == 1)
        let waits = process.stderr.split(separator: "\n").filter { $0.contains("retrying in") }
        #expect(waits.count == 1, "\(process.stderr)")
        #expect(process.stdout.contains("gave up after"), "\(process.stdout)")
        let help = try await Self.run(["sync", "--help"])
        #expect(help.stdout.contains("default 60"))
    }
}

extension StepSyncProcess {
    /// Returns once the process has written `text` to stdout; fails when it exits first or after `timeout`.
    func waitForStdout(containing text: String, timeout: Duration = .seconds(240)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !stdout.contains(text) {
            guard process.isRunning else {
                throw SinkHarness.HarnessError(message: "stepsync exited before printing \(text): \(stderr)")
            }
            guard ContinuousClock.now < deadline else {
                throw SinkHarness.HarnessError(message: "stepsync did not print \(text) in \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
