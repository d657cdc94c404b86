import AsyncHTTPClient
import CompressNIO
import Foundation
import NIOCore
import StepSyncCore
import StepSyncSink
import Testing
import StepSyncTestSupport

@Suite("Sink rejects bad input whole")
struct SinkRejectTests {
    static let good = String(decoding: WireEncoder.encodeRequest(makeSamples(3, first: 100)), as: UTF8.self)

    /// (what, body, content type, extra headers, expected status, expected index)
    static let cases: [(String, String, String?, [(String, String)], Int, Int?)] = [
        ("malformed JSON", #"{"samples":[{"uuid":"#, "application/json", [], 400, 0),
        ("not JSON at all", "hello", "application/json", [], 400, nil),
        ("missing field", good.replacingOccurrences(of: #","sourceBundleId":"com.apple.health","sourceDeviceName":"iPhone"}]"#, with: #","sourceDeviceName":"iPhone"}]"#), "application/json", [], 400, 2),
        ("ill-typed count", good.replacingOccurrences(of: #""count":102"#, with: #""count":"102""#), "application/json", [], 400, 1),
        ("invalid uuid", good.replacingOccurrences(of: "00000000-0000-4000-8000-000000000066", with: "not-a-uuid"), "application/json", [], 400, 2),
        ("unparsable date", good.replacingOccurrences(of: "2025-05-11T16:50:00.000Z", with: "2025-13-01T00:00:00.000Z"), "application/json", [], 400, 1),
        ("end before start", good.replacingOccurrences(of: #""endDate":"2025-05-11T16:41:00.000Z""#, with: #""endDate":"2025-05-11T16:00:00.000Z""#), "application/json", [], 400, 0),
        ("negative count", good.replacingOccurrences(of: #""count":103"#, with: #""count":-3"#), "application/json", [], 400, 2),
        ("absurd count", good.replacingOccurrences(of: #""count":101"#, with: #""count":1000001"#), "application/json", [], 400, 0),
        ("wrong content type", good, "text/plain", [], 415, nil),
        ("no content type", good, nil, [], 415, nil),
        ("unknown encoding", good, "application/json", [("Content-Encoding", "br")], 415, nil),
        ("corrupt gzip", good, "application/json", [("Content-Encoding", "gzip")], 400, nil),
    ]

    @Test("every bad input class gets its status, names the sample, and leaves the file byte-identical",
          arguments: SinkBackend.allCases, 0..<cases.count)
    func rejected(backend: SinkBackend, caseIndex: Int) async throws {
        let (what, body, type, headers, status, index) = Self.cases[caseIndex]
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, path in
                _ = try await client.post(makeSamples(5))
                let before = fileBytes(path)
                #expect(backend != .jsonl || before.count > 500)
                let reply = try await client.send(.POST, "/steps", body: Array(body.utf8), contentType: type, headers: headers)
                #expect(reply.status == status, "\(what): \(reply.text)")
                if let index {
                    #expect(reply.json["index"] as? Int == index, "\(what): \(reply.text)")
                    #expect((reply.json["message"] as? String)?.contains("sample \(index)") == true)
                }
                #expect(fileBytes(path) == before, "\(what) changed the file")
                let count = try await client.send(.GET, "/steps?limit=1")
                #expect(count.json["storedCount"] as? Int == 5)
            }
        }
    }

    @Test("a body over the limit gets 413 and a gzip bomb gets 413 on its inflated size")
    func limits() async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir, configure: { $0.maxBodyBytes = 64 << 10; $0.maxInflatedBytes = 256 << 10 }) { client, path in
                _ = try await client.post(makeSamples(2))
                let before = fileBytes(path)
                let big = try await client.post(makeSamples(1000))
                #expect(big.status == 413)
                // 4 MiB of JSON whitespace inside a valid body gzips to a few KiB.
                var bomb = ByteBuffer(bytes: Array(#"{"samples":["#.utf8) + [UInt8](repeating: 0x20, count: 4 << 20) + Array("]}".utf8))
                let packed = try bomb.compress(with: .gzip)
                #expect(packed.readableBytes < 64 << 10)
                let reply = try await client.send(.POST, "/steps", body: Array(buffer: packed), headers: [("Content-Encoding", "gzip")])
                #expect(reply.status == 413)
                #expect(fileBytes(path) == before)
            }
        }
    }

    @Test("issue 11.5: bodies in memory are bounded: a gzip body inflating past the budget gets 503 + Retry-After; the budget is given back after every request")
    func memoryBudget() async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir, configure: { $0.maxBufferedBytes = 100 << 10; $0.maxInflatedBytes = 1 << 20 }) { client, _ in
                var plain = ByteBuffer(bytes: WireEncoder.encodeRequest(makeSamples(2_000)))
                #expect(plain.readableBytes > 300 << 10)
                let packed = try plain.compress(with: .gzip)
                #expect(packed.readableBytes < 100 << 10)
                let big = try await client.send(.POST, "/steps", body: Array(buffer: packed), headers: [("Content-Encoding", "gzip")])
                #expect(big.status == 503)
                #expect(big.headers["retry-after"] == "1")
                #expect(big.json["error"] as? String == "busy")
                // 40 KB bodies one after another: each fits, so the budget was released every time.
                for round in 0..<6 {
                    let reply = try await client.post(makeSamples(150, first: round * 150))
                    #expect(reply.status == 200, "\(reply.text)")
                }
                #expect(try await client.send(.GET, "/steps").json["storedCount"] as? Int == 900)
            }
        }
    }

    @Test("unknown paths get 404 and wrong methods 405", arguments: SinkBackend.allCases)
    func routing(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                let unknown = try await client.send(.GET, "/nope")
                let put = try await client.send(.PUT, "/steps", body: Array(Self.good.utf8))
                let getDelete = try await client.send(.GET, "/steps/delete")
                let postHealth = try await client.send(.POST, "/health", body: [])
                #expect(unknown.status == 404)
                #expect(put.status == 405)
                #expect(getDelete.status == 405)
                #expect(postHealth.status == 405)
            }
        }
    }

    @Test("with a token every request but /health needs the bearer token", arguments: SinkBackend.allCases)
    func token(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir, token: "s3cret") { client, path in
                var anonymous = client
                anonymous.token = nil
                var wrong = client
                wrong.token = String((client.token ?? "s3cret").dropLast()) + "x"
                #expect(try await anonymous.send(.GET, "/health").status == 200)
                #expect(try await anonymous.post(makeSamples(3)).status == 401)
                #expect(try await wrong.post(makeSamples(3)).status == 401)
                #expect(try await anonymous.send(.GET, "/steps").status == 401)
                #expect(try await anonymous.send(.GET, "/samples/types").status == 401)
                #expect(try await wrong.send(.DELETE, "/samples").status == 401)
                #expect(try await client.send(.GET, "/steps").json["storedCount"] as? Int == 0)
                let reply = try await client.post(makeSamples(3))
                #expect(reply.status == 200)
                #expect(reply.json["inserted"] as? Int == 3)
            }
        }
    }
}
