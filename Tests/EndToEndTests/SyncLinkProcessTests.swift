import Foundation
import StepSyncCore
import StepSyncTestSupport
import Testing

/// `stepsync sync` over a long link: the benchmarks' delay proxy (`Benchmarks/LinkProxy/delay_proxy.py`, 25 ms each
/// way) between the binary and a fault front that counts the requests in flight, in front of the real sink.
@Suite("stepsync sync over a 50 ms link, end to end", .serialized,
       .enabled(if: DelayProxy.isAvailable, "python3 is not installed"))
struct SyncLinkProcessTests {
    @Test("three lanes over a 50 ms round trip: more requests in flight at the sink than --concurrency, the sink exact")
    func windowOverTheLink() async throws {
        let fixture = try SyncFixture(intervals: 60, samplesPerInterval: 20)
        try await FaultFront.withSink(plan: FaultPlan()) { frontPort, counters, sinkPort in
            try await DelayProxy.with(target: frontPort, delayMs: 25) { proxyPort in
                let (status, process) = try await StepSyncProcess.run(
                    ["sync", "--data-dir", fixture.path, "--server", "http://127.0.0.1:\(proxyPort)",
                     "--concurrency", "3", "--request-samples", "0", "--json"])
                #expect(status == 0, "\(process.stderr)")
                let json = try process.json()
                #expect(json["synced"] as? Int == 60 && json["failed"] as? Int == 0 && json["pending"] as? Int == 0)
                #expect(json["samples"] as? Int == 1_200 && json["duplicates"] as? Int == 0)
                let peak = try #require(json["peakInFlight"] as? Int)
                #expect(peak > 3, "peakInFlight \(peak)")
                let roundTrip = try #require(json["roundTripMs"] as? Double)
                #expect(roundTrip >= 50)
                #expect(await counters.maxInFlight > 3)
                #expect(await counters.posts == 60)
            }
            let stored = try await SinkHarness.storedUUIDs(port: sinkPort)
            #expect(stored.uuids == fixture.storeUUIDs && stored.count == 1_200)
        }
    }

    @Test("--max-in-flight 3 over the same link: never more than three at the sink")
    func windowCapped() async throws {
        let fixture = try SyncFixture(intervals: 30, samplesPerInterval: 10)
        try await FaultFront.withSink(plan: FaultPlan()) { frontPort, counters, sinkPort in
            try await DelayProxy.with(target: frontPort, delayMs: 25) { proxyPort in
                let (status, process) = try await StepSyncProcess.run(
                    ["sync", "--data-dir", fixture.path, "--server", "http://127.0.0.1:\(proxyPort)",
                     "--concurrency", "3", "--max-in-flight", "3", "--request-samples", "0", "--json"])
                #expect(status == 0, "\(process.stderr)")
                #expect(try process.json()["peakInFlight"] as? Int == 3)
                #expect(await counters.maxInFlight <= 3)
            }
            let stored = try await SinkHarness.storedUUIDs(port: sinkPort)
            #expect(stored.uuids == fixture.storeUUIDs && stored.count == 300)
        }
    }
}

/// `Benchmarks/LinkProxy/delay_proxy.py` as a child process.
enum DelayProxy {
    /// The script, found from this file's path.
    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Benchmarks/LinkProxy/delay_proxy.py").path
    }

    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") }

    /// Runs `body` with the proxy's port, the proxy forwarding to `target` with `delayMs` each way; stops it after.
    static func with<R>(target: Int, delayMs: Int, _ body: (Int) async throws -> R) async throws -> R {
        let output = (NSTemporaryDirectory() as NSString).appendingPathComponent("delay-proxy-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: output) }
        let proxy = try ChildProcess("/usr/bin/python3", [script, "--target", "127.0.0.1:\(target)",
                                                          "--delay-ms", "\(delayMs)"], stdout: output)
        defer {
            // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them.
            kill(proxy.processIdentifier, SIGKILL)
            proxy.waitUntilExit()
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening ") }),
               let port = Int(line.dropFirst("listening ".count)) {
                return try await body(port)
            }
            guard proxy.isRunning else { throw SinkHarness.HarnessError(message: "delay_proxy.py exited: \(text)") }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw SinkHarness.HarnessError(message: "delay_proxy.py did not say it was listening")
    }
}
