import CompressNIO
import Foundation
import NIOCore
import StepSyncCore
import Testing
import StepSyncTestSupport

/// Issue 21.6 through the real sink: a gzip body is one gzip member whose trailer (CRC-32, length) matches what it
/// inflates to, and nothing after it; anything else is a 400 and nothing of it is stored.
@Suite("Sink gzip: the trailer is checked and nothing may follow it")
struct SinkGzipTests {
    static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        var plain = ByteBuffer(bytes: bytes)
        return Array(buffer: try plain.compress(with: .gzip))
    }

    /// A gzip body of `samples` changed by `mutate`, the message the sink must answer with (a prefix), and a name.
    static let cases: [(String, @Sendable ([UInt8]) -> [UInt8], String)] = [
        ("no trailer", { Array($0.dropLast(8)) }, "gzip body is cut short: it ends before its 8-byte trailer (CRC-32 and length)"),
        ("half a trailer", { Array($0.dropLast(3)) }, "gzip body is cut short: it ends before its 8-byte trailer (CRC-32 and length)"),
        ("cut inside the deflate data", { Array($0.prefix($0.count / 2)) }, "gzip body is cut short: it ends "),
        ("only the header", { Array($0.prefix(10)) }, "gzip body is cut short: it ends "),
        ("wrong CRC-32", { var b = $0; b[b.count - 8] ^= 0x01; return b }, "gzip body is corrupt: its trailer's CRC-32 "),
        ("wrong length", { var b = $0; b[b.count - 4] ^= 0x01; return b }, "gzip body is corrupt: its trailer's length "),
        ("trailing garbage", { $0 + Array("garbage".utf8) }, "gzip body has 7 bytes after its gzip trailer (garbage, or a second gzip member, which is not accepted: send one gzip stream)"),
        ("one trailing zero byte", { $0 + [0] }, "gzip body has 1 byte after its gzip trailer"),
        ("a second gzip member", { $0 + $0 }, "gzip body has "),
        ("not gzip at all", { _ in Array(#"{"samples":[]}"#.utf8) }, "gzip body is not gzip: it does not start with 1F 8B"),
        ("empty", { _ in [] }, "gzip body is cut short: it ends inside its 10-byte header"),
        ("corrupt deflate data", { var b = $0; b[10] = 0xFF; b[11] = 0xFF; return b }, "gzip body is corrupt: "),
    ]

    @Test("a gzip body without its trailer, with a wrong CRC-32 or length, cut short, or with bytes after it → 400 with a clear message; nothing stored; a correct one → 200",
          arguments: SinkBackend.allCases)
    func framing(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, path in
                for (k, (what, mutate, message)) in Self.cases.enumerated() {
                    let steps = try Self.gzip(WireEncoder.encodeRequest(makeSamples(20, first: 1_000 + 20 * k)))
                    let reply = try await client.send(.POST, "/steps", body: mutate(steps), headers: [("Content-Encoding", "gzip")])
                    #expect(reply.status == 400, "\(what): \(reply.text)")
                    #expect((reply.json["message"] as? String)?.hasPrefix(message) == true, "\(what): \(reply.text)")
                    let samples = try Self.gzip(samplesBody(makeHealthSamples(20, first: 2_000 + 20 * k)))
                    let other = try await client.send(.POST, "/samples", body: mutate(samples), headers: [("Content-Encoding", "gzip")])
                    #expect(other.status == 400, "\(what) on /samples: \(other.text)")
                }
                #expect(try await client.send(.GET, "/steps").json["storedCount"] as? Int == 0)
                #expect(try await client.send(.GET, "/samples/types").json["types"] as? [String: Int] == [:])
                if backend == .jsonl { #expect(fileBytes(path).isEmpty) }

                // Correct bodies: one of 20 samples, and one that inflates past the sink's 1 MiB window.
                let good = try Self.gzip(WireEncoder.encodeRequest(makeSamples(20, first: 1)))
                let reply = try await client.send(.POST, "/steps", body: good, headers: [("Content-Encoding", "gzip")])
                #expect(reply.status == 200, "\(reply.text)")
                #expect(reply.json["inserted"] as? Int == 20)
                let large = try Self.gzip(samplesBody(makeHealthSamples(6_000, first: 10_000)))
                let largeReply = try await client.send(.POST, "/samples", body: large, headers: [("Content-Encoding", "gzip")])
                #expect(largeReply.status == 200, "\(largeReply.text)")
                let steps = try await client.allPages("/steps")
                #expect(Set(steps.compactMap { $0["uuid"] as? String }) == Set((1...20).map { uuid($0).uuidString }))
                let heart = try await client.allPages("/samples?type=HKQuantityTypeIdentifierHeartRate")
                #expect(Set(heart.compactMap { $0["uuid"] as? String }) == Set((10_000..<16_000).map { uuid($0).uuidString }))
            }
        }
    }
}
