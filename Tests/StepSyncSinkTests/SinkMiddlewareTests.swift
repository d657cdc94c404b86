import Foundation
import StepSyncSink
import StepSyncTestSupport
import Testing

/// The middleware in front of the route table, in its order: CORS outermost (a preflight is answered before the
/// request log, so it is not counted; every other answer, a refusal too, carries the CORS headers), then the request
/// log (every answer counted, the dashboard's own reads not moving "last request"), then the Host check (a 421 is
/// logged and counted as an error).
@Suite("the sink's middleware")
struct SinkMiddlewareTests {
    static let allowed = "https://app.example"

    @Test("a preflight is not counted; a foreign Host's 421 and a 404 are, with CORS headers; dashboard reads keep lastRequest")
    func order() async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir, configure: { $0.cors = CORSPolicy(allowedOrigins: [Self.allowed]) }) { client, _ in
                let origin = [("Origin", Self.allowed)]
                let preflight = try await client.send(.OPTIONS, "/samples", contentType: nil,
                                                      headers: origin + [("Access-Control-Request-Method", "POST")])
                #expect(preflight.status == 204)
                let foreign = try await client.send(.GET, "/steps", headers: origin + [("Host", "evil.example")])
                #expect(foreign.status == 421 && foreign.headers["access-control-allow-origin"] == Self.allowed)
                let absent = try await client.send(.GET, "/nope", headers: origin)
                #expect(absent.status == 404 && absent.headers["access-control-allow-origin"] == Self.allowed)
                let first = try await client.send(.GET, "/stats").json["activity"] as? [String: Any]
                #expect(first?["requests"] as? Int == 2)
                #expect(first?["errors"] as? Int == 2)
                let lastRequest = try #require(first?["lastRequest"] as? String)
                #expect(try await client.send(.GET, "/").status == 200)
                #expect(try await client.send(.GET, "/favicon.ico").status == 204)
                let second = try await client.send(.GET, "/stats").json["activity"] as? [String: Any]
                #expect(second?["requests"] as? Int == 5) // the first /stats, the page, the favicon
                #expect(second?["errors"] as? Int == 2)
                #expect(second?["lastRequest"] as? String == lastRequest)
            }
        }
    }
}
