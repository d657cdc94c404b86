import Foundation
import StepSyncSink
import Testing
import StepSyncTestSupport

/// `serve --cors-origin`: a browser app on an allowed origin may call the API; any other origin gets no CORS header.
@Suite("Sink CORS")
struct SinkCORSTests {
    static let allowed = "https://app.example"

    @Test("a preflight from the allowed origin is 204 with the methods and headers; from another it gets no CORS header")
    func preflight() async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir, token: "0123456789abcdef-token",
                               configure: { $0.cors = CORSPolicy(allowedOrigins: [Self.allowed]) }) { client, _ in
                let ask = [("Access-Control-Request-Method", "POST"),
                           ("Access-Control-Request-Headers", "authorization,content-type")]
                let ok = try await client.send(.OPTIONS, "/samples", contentType: nil, headers: [("Origin", Self.allowed)] + ask)
                #expect(ok.status == 204)
                #expect(ok.headers["access-control-allow-origin"] == Self.allowed)
                #expect(ok.headers["access-control-allow-methods"]?.contains("POST") == true)
                #expect(ok.headers["access-control-allow-headers"]?.lowercased().contains("authorization") == true)
                #expect(ok.headers["vary"] == "Origin")
                for origin in ["https://evil.example", "https://app.example.evil", "http://app.example", "null"] {
                    let refused = try await client.send(.OPTIONS, "/samples", contentType: nil,
                                                        headers: [("Origin", origin)] + ask)
                    #expect(refused.status != 204 && refused.status < 500, "\(origin): \(refused.status)")
                    #expect(refused.headers["access-control-allow-origin"] == nil, "\(origin)")
                }
            }
        }
    }

    @Test("answers to the allowed origin carry Access-Control-Allow-Origin (also errors); others' and no origin's do not")
    func actualRequests() async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir, configure: { $0.cors = CORSPolicy(allowedOrigins: [Self.allowed]) }) { client, _ in
                #expect(try await client.post(makeSamples(3)).status == 200)
                let page = try await client.send(.GET, "/steps", headers: [("Origin", Self.allowed)])
                #expect(page.status == 200 && page.uuids.count == 3)
                #expect(page.headers["access-control-allow-origin"] == Self.allowed)
                #expect(page.headers["access-control-expose-headers"]?.contains("Retry-After") == true)
                let error = try await client.send(.GET, "/samples", headers: [("Origin", Self.allowed)])
                #expect(error.status == 400 && error.headers["access-control-allow-origin"] == Self.allowed)
                let other = try await client.send(.GET, "/steps", headers: [("Origin", "https://evil.example")])
                #expect(other.status == 200 && other.headers["access-control-allow-origin"] == nil)
                let none = try await client.send(.GET, "/steps")
                #expect(none.headers["access-control-allow-origin"] == nil)
            }
        }
    }

    @Test("without --cors-origin no origin is allowed", arguments: ["https://app.example", "http://localhost:5173"])
    func noneByDefault(origin: String) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir) { client, _ in
                let reply = try await client.send(.OPTIONS, "/steps", contentType: nil,
                                                  headers: [("Origin", origin), ("Access-Control-Request-Method", "GET")])
                #expect(reply.status != 204 && reply.headers["access-control-allow-origin"] == nil)
            }
        }
    }

    @Test("origins that are not scheme://host[:port] are refused with a reason", arguments: [
        "app.example", "https://app.example/", "https://app.example/path", "*", "https://*.example", "ftp://x",
    ])
    func invalidOrigins(origin: String) {
        #expect(CORSPolicy.problem(with: origin) != nil)
    }

    @Test("well-formed origins are accepted", arguments: ["https://app.example", "http://localhost:5173", "http://127.0.0.1:8080"])
    func validOrigins(origin: String) {
        #expect(CORSPolicy.problem(with: origin) == nil)
    }
}
