import Foundation
import StepSyncCore
import StepSyncTestSupport
import Testing

/// Issue 34: a Health Auto Export push through `kill -9` of `stepsync serve` (JSONL) mid-request, the retry exact.
///
/// The sink runs only until the test sees its first batch written (``ProcessPacer``: SIGCONT, then SIGSTOP as soon
/// as the type's log grows), so it is killed with the request part stored, whatever the machine's speed.
@Suite("JSONL sink: a Health Auto Export push through kill -9 mid-request")
struct ServeHAECrashTests {
    static func start(_ dir: String, port: Int = 0) async throws -> (process: StepSyncProcess, port: Int) {
        let process = try StepSyncProcess(["serve", "--data-dir", dir, "--port", "\(port)"], killOnRelease: true)
        return (process, try await process.listeningPort())
    }

    static func post(_ body: [UInt8], port: Int) async throws -> (status: Int, body: [UInt8]) {
        try await SinkHarness.request("POST", "/ingest/health-auto-export", port: port, token: nil, body: body,
                                      headers: [("automation-aggregation", "minutes")])
    }

    /// Every uuid the sink holds for heart rate (`GET /samples`, page by page).
    static func storedUUIDs(port: Int) async throws -> [UUID] {
        var uuids: [UUID] = []
        var cursor: String?
        repeat {
            let path = "/samples?type=HKQuantityTypeIdentifierHeartRate&limit=10000" + (cursor.map { "&cursor=\($0)" } ?? "")
            let reply = try await SinkHarness.request("GET", path, port: port, token: nil)
            let page = try #require(try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any])
            uuids += (page["samples"] as? [[String: Any]] ?? []).compactMap { ($0["uuid"] as? String).flatMap { UUID(uuidString: $0) } }
            cursor = page["nextCursor"] as? String
        } while cursor != nil
        return uuids
    }

    @Test("kill -9 once the first batch is written: the restarted sink holds part, the retry the rest, every uuid once")
    func killedAfterTheFirstBatch() async throws {
        try await withTemporaryDirectory { dir in
            let body = HAETestBodies.heartRateMinutes(30_000)
            let batches = try HAETestBodies.batches(body).batches
            #expect(batches.count == 4)
            let all = batches.flatMap { $0 }
            #expect(all.count == 90_000)

            var (serve, port) = try await Self.start(dir)
            let logs = dir + "/sink/samples"
            @Sendable func written() -> Int {
                let files = (try? FileManager.default.contentsOfDirectory(atPath: logs)) ?? []
                return files.reduce(0) { sum, file in
                    sum + (((try? FileManager.default.attributesOfItem(atPath: logs + "/" + file))?[.size] as? Int) ?? 0)
                }
            }
            #expect(written() == 0)
            kill(serve.pid, SIGSTOP)
            let firstPort = port
            let push = Task { try await Self.post(body, port: firstPort).status }
            let paused = await ProcessPacer.continueUntil(serve.process) { written() > 0 }
            #expect(paused, "the sink ended, or did not write within 120 s: \(serve.stderr.suffix(400))")
            kill(serve.pid, SIGKILL)
            _ = try await serve.wait(timeout: .seconds(30))
            #expect((try? await push.value) == nil, "the push was answered before the kill")

            (serve, port) = try await Self.start(dir, port: port)
            let kept = try await Self.storedUUIDs(port: port)
            #expect(!kept.isEmpty && kept.count < all.count, "killed mid-request: \(kept.count) of \(all.count) kept")
            #expect(Set(kept).isSubset(of: Set(all.map(\.uuid))))
            #expect(Set(kept).count == kept.count)

            let retry = try await Self.post(body, port: port)
            #expect(retry.status == 200, "\(String(decoding: retry.body, as: UTF8.self))")
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(retry.body)) as? [String: Any])
            #expect(answer["inserted"] as? Int == all.count - kept.count)
            #expect(answer["duplicates"] as? Int == kept.count)
            #expect(answer["replaced"] as? Int == 0)
            let stored = try await Self.storedUUIDs(port: port)
            #expect(stored.count == all.count)
            #expect(Set(stored) == Set(all.map(\.uuid)))
            kill(serve.pid, SIGTERM)
            #expect(try await serve.wait(timeout: .seconds(60)) == 0)
        }
    }
}
