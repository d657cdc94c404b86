import Foundation
import StepSyncCore
import StepSyncEngine
import StepSyncStore
import StepSyncTestSupport
import Testing

/// `stepsync sync` as a real process against the real sink: signals and kills are the point.
@Suite("stepsync sync, end to end", .serialized)
struct SyncProcessTests {
    /// The arguments of a sync of `fixture`; one interval a request unless `packed` (the signal and fault tests need
    /// many requests in flight; the others run the default, small intervals packed into shared requests).
    func syncArguments(_ fixture: SyncFixture, port: Int, _ extra: [String] = [], packed: Bool = false) -> [String] {
        ["sync", "--data-dir", fixture.path, "--server", "http://127.0.0.1:\(port)", "--concurrency", "3",
         "--backoff-base", "0.01", "--json"] + (packed ? [] : ["--request-samples", "0"]) + extra
    }

    @Test("the binary is built")
    func binaryExists() {
        #expect(FileManager.default.isExecutableFile(atPath: StepSyncProcess.binaryPath),
                "build it first: swift build --build-tests")
    }

    @Test("a plain sync exits 0 and the sink holds exactly the store's uuids")
    func plainSync() async throws {
        let fixture = try SyncFixture(intervals: 25, samplesPerInterval: 8)
        try await SinkHarness.withSink { port in
            let (status, process) = try await StepSyncProcess.run(syncArguments(fixture, port: port, ["--gzip"], packed: true))
            #expect(status == 0, "\(process.stderr)")
            let json = try process.json()
            #expect(json["synced"] as? Int == 25 && json["failed"] as? Int == 0 && json["pending"] as? Int == 0)
            #expect(json["samples"] as? Int == 200 && json["inserted"] as? Int == 200 && json["duplicates"] as? Int == 0)
            let stored = try await SinkHarness.storedUUIDs(port: port)
            #expect(stored.uuids == fixture.storeUUIDs && stored.count == 200)
        }
    }

    @Test("SIGINT pauses (in-flight intervals finish, exit 130), and a second run resumes to exactly the store")
    func sigintPauseAndResume() async throws {
        let fixture = try SyncFixture(intervals: 30, samplesPerInterval: 5)
        try await FaultFront.withSink(plan: FaultPlan(delay: .milliseconds(60))) { port, counters, sinkPort in
            let process = try StepSyncProcess(syncArguments(fixture, port: port))
            try await counters.waitForPosts(4)
            kill(process.pid, SIGINT)
            let status = try await process.wait()
            #expect(status == 130)
            let json = try process.json()
            #expect(json["stopped"] as? Bool == true)
            let synced = try #require(json["synced"] as? Int)
            #expect(synced >= 1 && synced < 30)
            #expect(json["pending"] as? Int == 30 - synced)
            let summary = try fixture.store.intervalSummary()
            #expect(summary.inFlight == 0 && summary.synced == synced)

            let (again, resumed) = try await StepSyncProcess.run(syncArguments(fixture, port: port))
            #expect(again == 0, "\(resumed.stderr)")
            #expect(try resumed.json()["synced"] as? Int == 30 - synced)
            let stored = try await SinkHarness.storedUUIDs(port: sinkPort)
            #expect(stored.uuids == fixture.storeUUIDs && stored.count == 150)
        }
    }

    @Test("kill -9 at random moments, then resumes: the sink ends holding exactly the store's uuids")
    func killNineAndResume() async throws {
        let fixture = try SyncFixture(intervals: 40, samplesPerInterval: 5)
        try await SinkHarness.withSink { sinkPort in
            var generator = SystemRandomNumberGenerator()
            try await FaultFront.withFront(sinkPort: sinkPort, plan: FaultPlan(delay: .milliseconds(25))) { port, counters in
                var recovered = 0
                for _ in 0..<3 {
                    // A fast machine may have synced everything before the third run: it would post nothing.
                    guard try fixture.store.intervalSummary().synced < 40 else { break }
                    let postsBefore = await counters.posts
                    let process = try StepSyncProcess(syncArguments(fixture, port: port))
                    // Let it get going, then kill it somewhere in the middle of a send or a mark.
                    try await counters.waitForPosts(postsBefore + 1)
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0...120, using: &generator)))
                    kill(process.pid, SIGKILL)
                    _ = try await process.wait()
                    recovered += try fixture.store.intervalSummary().inFlight
                }
                let (status, last) = try await StepSyncProcess.run(syncArguments(fixture, port: port))
                #expect(status == 0, "\(last.stderr)")
                #expect(try fixture.store.intervalSummary().synced == 40)
                #expect(recovered > 0, "no kill landed while intervals were in flight")
            }
            let stored = try await SinkHarness.storedUUIDs(port: sinkPort)
            #expect(stored.uuids == fixture.storeUUIDs && stored.count == 200)
        }
    }

    @Test("a sink that rejects one interval with 400: that interval failed, the rest synced, exit non-zero")
    func rejectedInterval() async throws {
        let fixture = try SyncFixture(intervals: 12, samplesPerInterval: 5)
        let rejected = try #require(fixture.uuids(ofInterval: 4).first)
        try await FaultFront.withSink(plan: FaultPlan(rejectUUID: rejected)) { port, _, sinkPort in
            let (status, process) = try await StepSyncProcess.run(syncArguments(fixture, port: port, packed: true))
            #expect(status != 0)
            let json = try process.json()
            #expect(json["synced"] as? Int == 11 && json["failed"] as? Int == 1)
            let failures = try #require(json["failures"] as? [[String: Any]])
            #expect(failures.count == 1 && failures.first?["message"] as? String == "HTTP 400: sample rejected by the test front")
            let stored = try await SinkHarness.storedUUIDs(port: sinkPort)
            #expect(stored.uuids == fixture.storeUUIDs.subtracting(fixture.uuids(ofInterval: 4)))
        }
    }

    @Test("a sink answering 503 to everything for a while is ridden out: exit 0, no interval failed, exactly the store")
    func unavailableForAWhile() async throws {
        let fixture = try SyncFixture(intervals: 10, samplesPerInterval: 5)
        try await FaultFront.withSink(plan: FaultPlan(unavailableFirst: 12)) { port, counters, sinkPort in
            // One attempt per interval: a 503 is the sink's state, not the interval's fault, and uses none.
            let (status, process) = try await StepSyncProcess.run(
                syncArguments(fixture, port: port, ["--backoff-base", "0.05", "--max-attempts", "1"]))
            #expect(status == 0, "\(process.stderr)")
            let json = try process.json()
            #expect(json["failed"] as? Int == 0 && json["synced"] as? Int == 10 && json["pending"] as? Int == 0)
            #expect((json["serverWaits"] as? Int ?? 0) >= 1)
            #expect(await counters.unavailableAnswers == 12)
            #expect(process.stderr.contains("the sink at http://127.0.0.1:\(port) is unavailable (HTTP 503: down for maintenance) retrying in"))
            #expect(try await SinkHarness.storedUUIDs(port: sinkPort).uuids == fixture.storeUUIDs)
            #expect(try fixture.store.intervalSummary().synced == 10)
        }
    }

    @Test("a sync against a closed port exits non-zero within --give-up-after, the whole ledger pending, one clear message")
    func closedPortGivesUp() async throws {
        let fixture = try SyncFixture(intervals: 15, samplesPerInterval: 2)
        let closed = try ClosedPort()
        defer { closed.release() }
        let port = closed.port
        let (status, process) = try await StepSyncProcess.run(
            syncArguments(fixture, port: port, ["--backoff-base", "0.5", "--give-up-after", "6"]), timeout: .seconds(30))
        #expect(status == 1)
        let message = "cannot reach http://127.0.0.1:\(port): connection refused — is stepsync serve running?"
        let json = try process.json()
        #expect(json["gaveUp"] as? String == message)
        #expect(json["pending"] as? Int == 15 && json["failed"] as? Int == 0 && json["synced"] as? Int == 0)
        let lines = process.stderr.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.contains("cannot reach") }.allSatisfy { $0.contains(message) })
        // The first wait is the base backoff, 0.5 s ± 10 % jitter — or less, when the deadline is nearer: the wait
        // starts once every request in flight has failed, which on a loaded machine can take seconds.
        let firstWait = lines.first { $0.hasPrefix("\(message) retrying in ") }
            .flatMap { Double($0.dropFirst("\(message) retrying in ".count).prefix { $0 != " " }) }
        #expect(firstWait.map { $0 > 0 && $0 <= 0.6 } == true, "\(process.stderr)")
        #expect(lines.last?.hasPrefix("stepsync: gave up after ") == true && lines.last?.hasSuffix(message) == true)
        #expect(!process.stderr.contains("Interval failed"))
        let ledger = try fixture.store.intervals()
        #expect(ledger.count == 15 && ledger.allSatisfy { $0.status == .pending && $0.attempts == 0 })
    }

    @Test("the same sync succeeds when the sink comes up during the shared backoff")
    func sinkComesUpDuringTheBackoff() async throws {
        let fixture = try SyncFixture(intervals: 12, samplesPerInterval: 3)
        let closed = try ClosedPort()
        defer { closed.release() }
        let port = closed.port
        try await SinkHarness.withSink { sinkPort in
            let process = try StepSyncProcess(syncArguments(fixture, port: port, ["--backoff-base", "0.5", "--give-up-after", "120"]))
            try await process.waitForStderr(containing: "cannot reach http://127.0.0.1:\(port): connection refused")
            closed.release()
            try await FaultFront.withFront(sinkPort: sinkPort, plan: FaultPlan(), port: port) { _, _ in
                let status = try await process.wait()
                #expect(status == 0, "\(process.stderr)")
            }
            let json = try process.json()
            #expect(json["synced"] as? Int == 12 && json["failed"] as? Int == 0 && json["gaveUp"] is NSNull)
            #expect((json["serverWaits"] as? Int ?? 0) >= 1)
            let stored = try await SinkHarness.storedUUIDs(port: sinkPort)
            #expect(stored.uuids == fixture.storeUUIDs && stored.count == 36)
        }
    }

    @Test("Ctrl-C during a 30 s backoff exits within seconds; nothing is left in flight or failed")
    func sigintDuringALongBackoff() async throws {
        let fixture = try SyncFixture(intervals: 9, samplesPerInterval: 2)
        try await FaultFront.withSink(plan: FaultPlan(unavailableFirst: 1_000)) { port, _, _ in
            let process = try StepSyncProcess(syncArguments(fixture, port: port, ["--backoff-base", "30"]))
            // The first wait: 30 s ± 10 % of jitter.
            try await process.waitForStderr(containing: "is unavailable (HTTP 503: down for maintenance) retrying in ")
            kill(process.pid, SIGINT)
            // Before the fix the process waited the 30 s out (60 s with the retry after it).
            let status = try await process.wait(timeout: .seconds(10))
            #expect(status == 130, "a pause exits 130, as shells report an interrupted command")
            let json = try process.json()
            #expect(json["stopped"] as? Bool == true && json["pending"] as? Int == 9 && json["failed"] as? Int == 0)
            let summary = try fixture.store.intervalSummary()
            #expect(summary.inFlight == 0 && summary.failed == 0 && summary.pending == 9)
        }
    }

    @Test("an invalid sample is not sent; sync --json lists it with uuid and reason, and the rest is acknowledged")
    func invalidSampleReported() async throws {
        let fixture = try SyncFixture(intervals: 3, samplesPerInterval: 4)
        let bad = try #require(fixture.uuids(ofInterval: 1).first)
        try RawStore.setSample(bad, column: "value", to: -3.0, storePath: fixture.dataDirectory.storePath)
        try await SinkHarness.withSink { port in
            let (status, process) = try await StepSyncProcess.run(syncArguments(fixture, port: port, packed: true))
            #expect(status == 0, "\(process.stderr)")
            let json = try process.json()
            #expect(json["synced"] as? Int == 3 && json["samples"] as? Int == 11 && json["rejectedThisRun"] as? Int == 1)
            let rejected = try #require(json["rejected"] as? [[String: Any]])
            #expect(rejected.count == 1)
            #expect(rejected.first?["uuid"] as? String == bad.uuidString)
            #expect(rejected.first?["reason"] as? String == "negative_value" && rejected.first?["field"] as? String == "value")
            #expect(rejected.first?["type"] as? String == SampleType.stepCount.rawValue)
            let stored = try await SinkHarness.storedUUIDs(port: port)
            #expect(stored.uuids == fixture.storeUUIDs.subtracting([bad]) && stored.count == 11)

            // The plain summary names it too.
            try fixture.store.deleteIntervals()
            try fixture.store.appendIntervals([SyncInterval(range: fixture.intervals[1].range, steps: 0, samples: 4)])
            let (again, plain) = try await StepSyncProcess.run(
                ["sync", "--data-dir", fixture.path, "--server", "http://127.0.0.1:\(port)"])
            #expect(again == 0, "\(plain.stderr)")
            #expect(plain.stdout.contains("rejected 1 invalid samples (not sent; the rest of their intervals was):"))
            #expect(plain.stdout.contains("\(bad.uuidString) StepCount: negative_value"))
        }
    }

    @Test("every type moves: steps to /steps, heart rate and sleep to /samples; the sink holds the store, type by type")
    func everyType() async throws {
        let fixture = try SyncFixture(intervals: 6, samplesPerInterval: 5,
                                      types: [.stepCount, .heartRate, .sleepAnalysis])
        try await SinkHarness.withSink { port in
            let (status, process) = try await StepSyncProcess.run(syncArguments(fixture, port: port, packed: true))
            #expect(status == 0, "\(process.stderr)")
            let json = try process.json()
            #expect(json["synced"] as? Int == 18 && json["samples"] as? Int == 90 && json["failed"] as? Int == 0)
            #expect(json["types"] as? [String] == [SampleType.stepCount, .sleepAnalysis, .heartRate].map(\.rawValue))
            let steps = try await SinkHarness.storedUUIDs(port: port)
            #expect(steps.uuids == fixture.storeUUIDs(of: .stepCount) && steps.count == 30)
            for type in [SampleType.heartRate, .sleepAnalysis] {
                let served = try await SinkSamples.stored(port: port, type: type)
                #expect(try SinkSamples.uuids(served) == fixture.storeUUIDs(of: type) && served.count == 30)
            }

            // --type: only the heart rates of a new layer of work go.
            let (again, rerun) = try await StepSyncProcess.run(syncArguments(fixture, port: port, ["--type", SampleType.heartRate.rawValue]))
            #expect(again == 0, "\(rerun.stderr)")
            #expect(try rerun.json()["types"] as? [String] == [SampleType.heartRate.rawValue])
        }
    }

    @Test("a second stepsync sync on the same data directory exits at once with a clear message")
    func secondSyncRefused() async throws {
        let fixture = try SyncFixture(intervals: 2, samplesPerInterval: 2)
        try await SyncLock.withLock(path: fixture.dataDirectory.syncLockPath) {
            let (status, process) = try await StepSyncProcess.run(syncArguments(fixture, port: 9))
            #expect(status != 0)
            #expect(process.stderr.contains("already running on this data directory"))
        }
        #expect(try fixture.store.intervalSummary().pending == 2)
    }

    @Test("invalid options are refused before anything runs", arguments: [
        (["--concurrency", "0"], "--concurrency"),
        (["--give-up-after", "-1"], "--give-up-after"),
        (["--type", "not a type"], "--type"),
        (["--server", "ftp://example.com"], "scheme"),
        (["--max-attempts", "0"], "--max-attempts"),
    ])
    func invalidOptions(extra: [String], mention: String) async throws {
        let fixture = try SyncFixture(intervals: 1, samplesPerInterval: 1)
        let (status, process) = try await StepSyncProcess.run(syncArguments(fixture, port: 9) + extra)
        #expect(status == 64)
        #expect(process.stderr.contains(mention))
    }

    @Test("reset --yes clears the ledger; without --yes and no terminal it refuses")
    func reset() async throws {
        let fixture = try SyncFixture(intervals: 3, samplesPerInterval: 2)
        let (refused, refusal) = try await StepSyncProcess.run(["reset", "--data-dir", fixture.path])
        #expect(refused != 0 && refusal.stderr.contains("--yes"))
        #expect(try fixture.store.intervalSummary().intervals == 3)
        let (status, process) = try await StepSyncProcess.run(["reset", "--data-dir", fixture.path, "--yes"])
        #expect(status == 0 && process.stdout.contains("deleted 3 intervals"))
        #expect(try fixture.store.intervalSummary().intervals == 0)
    }

    @Test("reset --remote --yes empties the sink too, and a new sync sends everything again")
    func resetRemote() async throws {
        let fixture = try SyncFixture(intervals: 4, samplesPerInterval: 5)
        try await SinkHarness.withSink { port in
            let (synced, _) = try await StepSyncProcess.run(syncArguments(fixture, port: port, packed: true))
            #expect(synced == 0)
            #expect(try await SinkHarness.storedUUIDs(port: port).count == 20)
            let (status, process) = try await StepSyncProcess.run(
                ["reset", "--data-dir", fixture.path, "--remote", "--server", "http://127.0.0.1:\(port)", "--yes"])
            #expect(status == 0, "\(process.stderr)")
            #expect(process.stdout.contains("sink emptied: deleted 20 samples of 1 type\n  StepCount: 20\n"), "\(process.stdout)")
            #expect(try await SinkHarness.storedUUIDs(port: port).count == 0)
            #expect(try fixture.store.intervalSummary().intervals == 0)
        }
    }

    @Test("without --json a paused sync prints what is left and exits non-zero")
    func plainSummaryWhenPaused() async throws {
        let fixture = try SyncFixture(intervals: 20, samplesPerInterval: 2)
        try await FaultFront.withSink(plan: FaultPlan(delay: .milliseconds(80))) { port, counters, _ in
            let process = try StepSyncProcess(["sync", "--data-dir", fixture.path, "--server", "http://127.0.0.1:\(port)", "--request-samples", "0"])
            try await counters.waitForPosts(2)
            kill(process.pid, SIGTERM)
            #expect(try await process.wait() != 0)
            #expect(process.stdout.contains("paused: "))
            #expect(process.stdout.contains("intervals left; run `stepsync sync` again to carry on."))
            #expect(process.stderr.contains("stop requested"))
        }
    }

}

extension StepSyncProcess {
    /// Returns once the process has written `text` to stderr (it is an event of the process, not a delay); fails
    /// when the process exits first or after `timeout`.
    func waitForStderr(containing text: String, timeout: Duration = .seconds(240)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !stderr.contains(text) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                throw SinkHarness.HarnessError(message: "stepsync never said \"\(text)\"; stderr: \(stderr)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Runs `stepsync <arguments>` to the end, failing after `timeout`.
    static func run(_ arguments: [String], timeout: Duration) async throws -> (status: Int32, process: StepSyncProcess) {
        let process = try StepSyncProcess(arguments)
        return (try await process.wait(timeout: timeout), process)
    }
}
