import AsyncHTTPClient
import Foundation
import Logging
import StepSyncCore
import StepSyncSink
import StepSyncTestSupport
import Synchronization
import Testing

/// The warnings a sink's log keeps: collected from a real in-process sink's logger.
final class CollectedWarnings: Sendable {
    let lines = Mutex<[String]>([])

    var logger: Logger {
        Logger(label: "test") { _ in Handler(collected: self) }
    }

    struct Handler: LogHandler {
        let collected: CollectedWarnings
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            guard event.level >= .warning else { return }
            collected.lines.withLock { $0.append(event.message.description) }
        }
    }
}

/// Issue 32.5: a tokenless sink behind a proxy says so once; `/health` names the data directory's identity.
@Suite("A tokenless sink behind a proxy warns once; /health names the sink", .serialized)
struct ProxyWarningTests {
    static func get(_ port: Int, _ path: String, headers: [(String, String)] = []) async throws -> (Int, [UInt8]) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), Array(body.readableBytesView))
    }

    static func withSink<R: Sendable>(dir: String, token: String? = nil, logger: Logger,
                                      _ body: @Sendable (Int) async throws -> R) async throws -> R {
        let configuration = SinkConfiguration(host: "127.0.0.1", port: 0, dataPath: dir + "/steps.jsonl", token: token, time: .system)
        return try await SinkServer.withRunningSink(configuration: configuration, logger: logger, body)
    }

    @Test("X-Forwarded-For without a token: one warning for many requests; with a token, or without the header, none")
    func warnsOnce() async throws {
        let dir = try TemporaryDirectory.make("stepsync-proxy-warning")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plain = CollectedWarnings()
        try await Self.withSink(dir: dir + "/a", logger: plain.logger) { port in
            let direct = try await Self.get(port, "/steps?limit=1").0
            #expect(direct == 200)
            #expect(plain.lines.withLock { $0 }.isEmpty)
            for _ in 0..<3 {
                let proxied = try await Self.get(port, "/steps?limit=1", headers: [("X-Forwarded-For", "203.0.113.9")]).0
                #expect(proxied == 200)
            }
        }
        let warnings = plain.lines.withLock { $0 }.filter { $0.contains("through a proxy") }
        #expect(warnings.count == 1 && warnings[0].contains("--token"), "\(plain.lines.withLock { $0 })")

        let tokened = CollectedWarnings()
        try await Self.withSink(dir: dir + "/b", token: "s3cret", logger: tokened.logger) { port in
            let answer = try await Self.get(port, "/steps?limit=1",
                                            headers: [("Forwarded", "for=203.0.113.9"), ("Authorization", "Bearer s3cret")])
            #expect(answer.0 == 200)
        }
        #expect(tokened.lines.withLock { $0 }.filter { $0.contains("through a proxy") }.isEmpty)
    }

    @Test("/health names the data directory's sink: the same after a restart, another for another directory or a wiped one")
    func healthNamesTheSink() async throws {
        let dir = try TemporaryDirectory.make("stepsync-sink-identity")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func identity(_ path: String) async throws -> String? {
            try await Self.withSink(dir: path, logger: SinkHarness.quiet) { port in
                let (status, body) = try await Self.get(port, "/health")
                #expect(status == 200)
                return try SinkHealthBody(bytes: body).sink
            }
        }
        let first = try #require(try await identity(dir + "/a"))
        #expect(UUID(uuidString: first) != nil)
        #expect(try await identity(dir + "/a") == first)
        #expect(try String(contentsOfFile: dir + "/a/sink-id", encoding: .utf8) == first + "\n")
        let other = try #require(try await identity(dir + "/b"))
        #expect(other != first)
        try FileManager.default.removeItem(atPath: dir + "/a")
        #expect(try await identity(dir + "/a") != first, "a wiped directory is another sink's data")
    }
}
