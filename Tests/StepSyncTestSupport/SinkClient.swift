import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StepSyncCore

/// The tests' one HTTP client of a running sink, as one client (its bearer `token`) or none: raw requests and their
/// answers as bytes, the sample doors, and every page of a read. The sink suites call it `SinkTestClient`, the
/// PostgreSQL suites `SinkCaller`; ``SinkHarness`` posts and reads back through it.
public struct SinkClient: Sendable {
    /// The sink's port on 127.0.0.1.
    public let port: Int
    /// Sent as `Authorization: Bearer <token>` unless a request names its own authorization.
    public var token: String?

    public init(port: Int, token: String? = nil) {
        self.port = port
        self.token = token
    }

    /// One answer: status, headers (names lower-cased) and body bytes.
    public struct Reply: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The body as a JSON object (empty when it is not one).
        public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) ?? [:] }
        /// The `samples` of a page.
        public var samples: [[String: Any]] { json["samples"] as? [[String: Any]] ?? [] }
        /// The uuids of a page's samples.
        public var uuids: [String] { samples.compactMap { $0["uuid"] as? String } }
    }

    /// Sends `method path` with `body` (of `contentType`), `headers` replacing any of the same name, and
    /// `authorization` instead of the token's when given.
    public func send(_ method: HTTPMethod, _ path: String, body: [UInt8]? = nil,
                     contentType: String? = "application/json", headers extra: [(String, String)] = [],
                     authorization: String? = nil, timeout: TimeAmount = .seconds(60)) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
            if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        }
        if let authorization {
            request.headers.add(name: "Authorization", value: authorization)
        } else if let token {
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
        }
        for (name, value) in extra { request.headers.replaceOrAdd(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let buffer = try await response.body.collect(upTo: 64 << 20)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return Reply(status: Int(response.status.code), headers: headers, body: Array(buffer: buffer))
    }

    /// `POST /steps` of `samples`.
    public func post(_ samples: [WireSample]) async throws -> Reply {
        try await send(.POST, "/steps", body: WireEncoder.encodeRequest(samples))
    }

    /// `POST /samples` of `samples`.
    public func post(_ samples: [HealthSample], timeout: TimeAmount = .seconds(60)) async throws -> Reply {
        try await send(.POST, "/samples", body: Self.samplesBody(samples), timeout: timeout)
    }

    /// `POST /samples` of `samples`.
    public func post(samples: [HealthSample]) async throws -> Reply {
        try await post(samples)
    }

    /// The `POST /samples` body of `samples`.
    public static func samplesBody(_ samples: some Collection<HealthSample>) -> [UInt8] {
        var out = Array(#"{"samples":["#.utf8)
        for (i, sample) in samples.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            WireEncoder.appendSampleObject(sample, to: &out)
        }
        out += Array("]}".utf8)
        return out
    }

    /// Every page of `path` (`/steps` or `/samples?type=…`), `limit` a page, following `nextCursor`.
    public func allPages(_ path: String, limit: Int = 1000) async throws -> [[String: Any]] {
        var all: [[String: Any]] = []
        var cursor: String?
        var pages = 0
        repeat {
            let separator = path.contains("?") ? "&" : "?"
            let page = try await send(.GET, path + separator + "limit=\(limit)"
                                      + (cursor.map { "&cursor=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0)" } ?? ""))
            guard page.status == 200 else {
                throw SinkHarness.HarnessError(message: "GET \(path) answered \(page.status): \(page.text.prefix(300))")
            }
            all += page.samples
            cursor = page.json["nextCursor"] as? String
            pages += 1
        } while cursor != nil && pages < 10_000
        return all
    }

    /// Every uuid of `type` this client reads through `GET /samples` pages (997 a page); throws on a uuid missing
    /// or served twice.
    public func storedUUIDs(type: SampleType = .stepCount) async throws -> Set<UUID> {
        var uuids = Set<UUID>()
        for sample in try await allPages("/samples?type=\(type.rawValue)", limit: 997) {
            guard let uuid = (sample["uuid"] as? String).flatMap(UUID.init(uuidString:)), uuids.insert(uuid).inserted
            else { throw SinkHarness.HarnessError(message: "a uuid missing or served twice: \(sample)") }
        }
        return uuids
    }
}
