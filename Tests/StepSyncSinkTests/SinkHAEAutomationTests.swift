import Foundation
import Logging
import StepSyncCore
import StepSyncSink
import StepSyncTestSupport
import Testing

/// Issue 34.3: the `automation-name`, `automation-id` and `session-id` headers of a Health Auto Export push are
/// recorded in the answer (`automation`) and in the request's log line.
@Suite("Sink: Health Auto Export automation headers")
struct SinkHAEAutomationTests {
    static let body = Array("""
        {"data":{"metrics":[{"name":"step_count","units":"count","data":[
          {"date":"2025-06-02 08:00:00 +0200","qty":120,"source":"Anna\u{2019}s iPhone"}]}]}}
        """.utf8)

    @Test("The three headers come back as automation {name, id, sessionId} and are in the log line; absent, neither")
    func recorded() async throws {
        let dir = try TemporaryDirectory.make("stepsync-hae-automation")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let collected = RequestLog()
        let configuration = SinkConfiguration(host: "127.0.0.1", port: 0, dataPath: dir + "/steps.jsonl", time: .system)
        let (named, plain) = try await SinkServer.withRunningSink(configuration: configuration,
                                                                  logger: collected.logger) { port in
            let named = try await SinkHarness.request(
                "POST", "/ingest/health-auto-export", port: port, token: nil, body: Self.body,
                headers: [("automation-aggregation", "minutes"), ("automation-name", "Steps to \u{201C}home\u{201D}"),
                          ("automation-id", "7F3C-22"), ("session-id", "S-9")])
            let plain = try await SinkHarness.request("POST", "/ingest/health-auto-export", port: port, token: nil,
                                                      body: Self.body, headers: [("automation-aggregation", "minutes")])
            return (named, plain)
        }
        #expect(named.status == 200)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(named.body)) as? [String: Any])
        #expect(answer["automation"] as? [String: String]
            == ["name": "Steps to \u{201C}home\u{201D}", "id": "7F3C-22", "sessionId": "S-9"])
        #expect(answer["inserted"] as? Int == 1)
        #expect(plain.status == 200)
        let plainAnswer = try #require(try JSONSerialization.jsonObject(with: Data(plain.body)) as? [String: Any])
        #expect(plainAnswer["automation"] == nil)
        #expect(plainAnswer["duplicates"] as? Int == 1)

        let lines = collected.requests.filter { $0["http.path"] == "/ingest/health-auto-export" }
        #expect(lines.count == 2)
        #expect(lines.first?["hae.automation.name"] == "Steps to \u{201C}home\u{201D}")
        #expect(lines.first?["hae.automation.id"] == "7F3C-22")
        #expect(lines.first?["hae.session.id"] == "S-9")
        #expect(lines.last?["hae.automation.name"] == nil)
    }

    @Test("The answer's automation keeps the values given, each clipped to 256 bytes, keys sorted")
    func encoded() throws {
        let automation = try #require(HAEAutomation(name: String(repeating: "a", count: 300), id: nil, sessionId: "s"))
        let answer = HAEIngestAnswer(reading: HAEReading(), inserted: 0, replaced: 0, duplicates: 0,
                                     automation: automation)
        let text = String(decoding: answer.encoded(), as: UTF8.self)
        #expect(text.hasSuffix(",\"automation\":{\"name\":\"\(String(repeating: "a", count: 256))\",\"sessionId\":\"s\"}}"))
        #expect(HAEAutomation(name: nil, id: nil, sessionId: nil) == nil)
        let none = HAEIngestAnswer(reading: HAEReading(), inserted: 0, replaced: 0, duplicates: 0)
        #expect(String(decoding: none.encoded(), as: UTF8.self).hasSuffix("\"unknownMetrics\":[]}"))
    }
}
