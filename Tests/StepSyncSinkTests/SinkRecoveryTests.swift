import Foundation
import StepSyncCore
import StepSyncSink
import Testing
import StepSyncTestSupport

@Suite("Sink file recovery and deletion")
struct SinkRecoveryTests {
    @Test("a torn last line is cut off at start and the sample can be sent again")
    func tornTail() async throws {
        try await withTemporaryDirectory { dir in
            let path = try await withSink(directory: dir) { client, path in
                _ = try await client.post(makeSamples(4))
                return path
            }
            let intact = fileBytes(path)
            var line: [UInt8] = []
            WireEncoder.appendLine(makeSamples(1, first: 4)[0], to: &line)
            let handle = try #require(FileHandle(forWritingAtPath: path))
            handle.seekToEndOfFile()
            handle.write(Data(line.prefix(line.count / 2)))
            try handle.close()
            #expect(fileBytes(path).count == intact.count + line.count / 2)
            try await withSink(directory: dir) { client, path in
                #expect(fileBytes(path) == intact)
                let reply = try await client.post(makeSamples(5))
                #expect(reply.json["inserted"] as? Int == 1)
                #expect(reply.json["duplicates"] as? Int == 4)
                #expect(try storedSamples(path).map(\.uuid) == makeSamples(5).map(\.uuid))
            }
        }
    }

    @Test("an unreadable complete line is moved to the quarantine file, logged by line number, and the sink starts with the rest")
    func quarantine() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/sink/steps.jsonl"
            try FileManager.default.createDirectory(atPath: dir + "/sink", withIntermediateDirectories: true)
            var firstLine: [UInt8] = [], lastLine: [UInt8] = []
            WireEncoder.appendLine(makeSamples(1)[0], to: &firstLine)
            WireEncoder.appendLine(makeSamples(1, first: 1)[0], to: &lastLine)
            let first = firstLine, last = lastLine
            // Issue 11.1: what the old sink stored for an end in year 10000 (clamped to 9999-01-01, before its start).
            let bricked = Array(#"{"uuid":"00000000-0000-4000-8000-0000000000AA","startDate":"9999-12-31T20:00:00.000Z","endDate":"9999-01-01T01:00:00.000Z","count":5,"sourceBundleId":"com.apple.health"}"#.utf8) + [0x0A]
            let garbage = Array("garbage\n".utf8)
            #expect(FileManager.default.createFile(atPath: path, contents: Data(first + garbage + bricked + last)))
            try await withSink(directory: dir) { client, path in
                #expect(fileBytes(path) == first + last)
                #expect(fileBytes(path + ".quarantine") == garbage + bricked)
                let page = try await client.send(.GET, "/steps")
                #expect(page.uuids == [uuid(0).uuidString, uuid(1).uuidString])
                #expect(page.json["storedCount"] as? Int == 2)
            }
            // A second start finds nothing more to move.
            try await withSink(directory: dir) { client, path in
                #expect(fileBytes(path) == first + last)
                #expect(fileBytes(path + ".quarantine") == garbage + bricked)
            }
        }
    }

    @Test("a complete last line that cannot be read is quarantined, not cut as a torn tail")
    func unreadableLastLine() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/sink/steps.jsonl"
            try FileManager.default.createDirectory(atPath: dir + "/sink", withIntermediateDirectories: true)
            var goodLine: [UInt8] = []
            WireEncoder.appendLine(makeSamples(1)[0], to: &goodLine)
            let good = goodLine
            let zeros = [UInt8](repeating: 0, count: 40) + [0x0A]
            #expect(FileManager.default.createFile(atPath: path, contents: Data(good + zeros)))
            try await withSink(directory: dir) { _, path in
                #expect(fileBytes(path) == good)
                #expect(fileBytes(path + ".quarantine") == zeros)
            }
        }
    }

    @Test("POST /steps/delete writes tombstones that survive a restart; the uuid can be stored again; DELETE clears")
    func deletion() async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir) { client, path in
                _ = try await client.post(makeSamples(10))
                let body = #"{"uuids":["\#(uuid(2).uuidString.lowercased())","\#(uuid(5).uuidString)","\#(uuid(99).uuidString)"]}"#
                let reply = try await client.send(.POST, "/steps/delete", body: Array(body.utf8))
                #expect(reply.json["deleted"] as? Int == 2)
                #expect(reply.json["missing"] as? Int == 1)
                #expect(String(decoding: fileBytes(path), as: UTF8.self).contains(#"{"deleted":"\#(uuid(2).uuidString)"}"#))
                let bad = try await client.send(.POST, "/steps/delete", body: Array(#"{"uuids":["x"]}"#.utf8))
                #expect(bad.status == 400)
            }
            try await withSink(directory: dir) { client, path in
                let page = try await client.send(.GET, "/steps")
                #expect(page.json["storedCount"] as? Int == 8)
                let uuids = (page.json["samples"] as? [[String: Any]])?.compactMap { $0["uuid"] as? String }
                #expect(uuids == makeSamples(10).map(\.uuid.uuidString).filter { $0 != uuid(2).uuidString && $0 != uuid(5).uuidString })
                let again = try await client.post(makeSamples(10))
                #expect(again.json["inserted"] as? Int == 2)
                let cleared = try await client.send(.DELETE, "/steps")
                #expect(cleared.status == 200)
                #expect((cleared.json["message"] as? String)?.isEmpty == false)
                #expect(fileBytes(path).isEmpty)
                #expect(try await client.send(.GET, "/steps").json["storedCount"] as? Int == 0)
                #expect(try await client.post(makeSamples(3)).json["inserted"] as? Int == 3)
            }
        }
    }
}
