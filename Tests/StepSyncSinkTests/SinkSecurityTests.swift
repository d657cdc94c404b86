import Foundation
import StepSyncCore
import StepSyncSink
import Testing
import StepSyncTestSupport

@Suite("Sink: strangers stay out")
struct SinkSecurityTests {
    @Test("issue 11.5: on a loopback bind a request for a foreign Host (DNS rebinding) gets 421 and changes nothing",
          arguments: ["evil.example", "evil.example:8000", "10.0.0.1", "[2001:db8::1]:80", "127.0.0.1.evil.example"])
    func foreignHost(host: String) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir) { client, path in
                _ = try await client.post(makeSamples(3))
                let read = try await client.send(.GET, "/steps", headers: [("Host", host)])
                #expect(read.status == 421, "\(read.text)")
                #expect(read.json["error"] as? String == "misdirected_host")
                #expect(read.uuids.isEmpty)
                let wipe = try await client.send(.DELETE, "/steps", headers: [("Host", host)])
                #expect(wipe.status == 421)
                #expect(try await client.send(.GET, "/steps").json["storedCount"] as? Int == 3)
            }
        }
    }

    @Test("loopback names and addresses in Host are answered", arguments: [
        "localhost", "localhost:8000", "127.0.0.1", "127.0.0.1:1", "127.1.2.3", "[::1]:8000", "LOCALHOST", "app.localhost",
    ])
    func loopbackHost(host: String) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir) { client, _ in
                let reply = try await client.send(.GET, "/steps", headers: [("Host", host)])
                #expect(reply.status == 200, "\(reply.text)")
            }
        }
    }

    @Test("issue 11.5: a non-loopback bind without a token is refused naming --token; with --allow-unauthenticated it is allowed")
    func publicBindNeedsToken() async throws {
        try await withTemporaryDirectory { dir in
            var configuration = SinkConfiguration(host: "0.0.0.0", port: 0, dataPath: dir + "/sink/steps.jsonl", time: .system)
            await #expect {
                try await SinkServer.withRunningSink(configuration: configuration, logger: quietLogger) { _ in 0 }
            } throws: { error in
                "\(error)".contains("--token") && "\(error)".contains("0.0.0.0")
            }
            #expect(!FileManager.default.fileExists(atPath: dir + "/sink/steps.jsonl"))
            #expect(throws: Never.self) {
                try SinkSetupError.check(SinkConfiguration(host: "0.0.0.0", dataPath: "", token: "0123456789abcdef", time: .system))
            }
            // Issue 21.10: a guessable token on a public bind is refused, on loopback any token is fine.
            for weak in ["t", " ", String(repeating: " ", count: 16), "0123456789abcde"] {
                #expect(throws: SinkSetupError.self) {
                    try SinkSetupError.check(SinkConfiguration(host: "0.0.0.0", dataPath: "", token: weak, time: .system))
                }
            }
            #expect(throws: Never.self) { try SinkSetupError.check(SinkConfiguration(host: "127.0.0.1", dataPath: "", token: "t", time: .system)) }
            configuration.allowUnauthenticated = true
            #expect(throws: Never.self) { try SinkSetupError.check(configuration) }
            #expect(throws: Never.self) { try SinkSetupError.check(SinkConfiguration(host: "127.0.0.1", dataPath: "", time: .system)) }
            #expect(throws: Never.self) { try SinkSetupError.check(SinkConfiguration(host: "::1", dataPath: "", time: .system)) }
        }
    }

    @Test("issue 11.4: a second sink on the same data directory is refused at once, naming the holder's pid")
    func oneSinkPerDirectory() async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir) { client, path in
                _ = try await client.post(makeSamples(2))
                let before = fileBytes(path)
                await #expect {
                    try await withSink(directory: dir) { _, _ in 0 }
                } throws: { error in
                    "\(error)".contains("pid \(getpid())") && "\(error)".contains(dir + "/sink")
                }
                #expect(fileBytes(path) == before)
                #expect(try await client.post(makeSamples(3)).json["inserted"] as? Int == 1)
            }
            // Released at shutdown: the next sink starts.
            try await withSink(directory: dir) { client, _ in
                let count = try await client.send(.GET, "/steps").json["storedCount"] as? Int
                #expect(count == 3)
            }
        }
    }
}
