import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// A front on 127.0.0.1 (port 0) that forwards `DELETE /steps` and `DELETE /samples[?type=T]` to the real sink and
/// then loses the sink's answer (`GET /samples/types` is answered as the sink answers):
/// the client gets `502 Bad Gateway` although the sink did the work. This is the one fault between "the sink
/// acted" and "the client knows" that a real network produces but a real sink cannot on demand.
public enum AnswerLossFront {
    public static func withFront<R>(sinkPort: Int, _ body: (_ port: Int) async throws -> R) async throws -> R {
        let router = Router()
        /// Forwards `request` (method, path and query, the token) to the sink; its status and body.
        @Sendable func forward(_ request: Request) async throws -> (HTTPResponseStatus, ByteBuffer) {
            var forward = HTTPClientRequest(url: "http://127.0.0.1:\(sinkPort)\(request.uri.description)")
            forward.method = .init(rawValue: request.method.rawValue)
            if let authorization = request.headers[.authorization] {
                forward.headers.add(name: "Authorization", value: authorization)
            }
            let response = try await HTTPClient.shared.execute(forward, timeout: .seconds(30))
            return (response.status, try await response.body.collect(upTo: 1 << 20))
        }
        let lost = Response(status: .badGateway, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: #"{"error":{"message":"the sink's answer was lost"}}"#)))
        // Deletions: done by the sink, the answer lost.
        for path in ["/steps", "/samples"] as [RouterPath] {
            router.delete(path) { request, _ -> Response in
                _ = try await forward(request)
                return lost
            }
        }
        // Reads (reset --remote first asks which types the sink holds): answered as the sink answered.
        router.get("/samples/types") { request, _ -> Response in
            let (status, body) = try await forward(request)
            return Response(status: .init(code: Int(status.code)), headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: body))
        }
        return try await TestFront.run(router, name: "answer-loss-front", body)
    }
}
