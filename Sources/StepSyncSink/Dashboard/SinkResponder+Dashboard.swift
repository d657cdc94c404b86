import HTTPTypes
import Hummingbird
import NIOCore
import StepSyncCore

extension SinkResponder {
    /// The documents anyone who can reach the sink may read, token or not: the dashboard's page (it holds no data:
    /// it asks for the token and reads the JSON endpoints with it) and the OpenAPI document. `nil` for other paths.
    func publicDocument(_ path: String, method: HTTPRequest.Method) throws -> Response? {
        let document: (bytes: [UInt8], contentType: String)
        if path == "/favicon.ico", method == .get || method == .head {
            // A browser asks for it with every page load: no icon, and no 404 in the error counter.
            return Response(status: .noContent, headers: [.cacheControl: "max-age=86400"])
        }
        switch path {
        case "/": document = (DashboardPage.bytes, "text/html; charset=utf-8")
        case "/openapi.json": document = (OpenAPIDocument.bytes, "application/json")
        default: return nil
        }
        guard method == .get || method == .head else { throw SinkError.methodNotAllowed(method, path, allow: [.get]) }
        let headers: HTTPFields = [
            .contentType: document.contentType, .cacheControl: "no-cache",
            .contentLength: String(document.bytes.count),
            // The page runs only its own inline script and style and talks only to this sink.
            .contentSecurityPolicy: "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                + "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            .init("X-Content-Type-Options")!: "nosniff",
        ]
        return Response(status: .ok, headers: headers,
                        body: method == .head ? .init() : .init(byteBuffer: ByteBuffer(bytes: document.bytes)))
    }

    /// Whether `request` is one of the dashboard's own reads, which do not count as the sink's last request.
    static func isDashboardRead(_ request: Request) -> Bool {
        guard request.method == .get || request.method == .head else { return false }
        switch request.uri.path {
        case "/", "/openapi.json", "/stats", "/health", "/favicon.ico": return true
        default: return false
        }
    }

    // MARK: - GET /stats

    /// `GET /stats`: what the dashboard shows, in one object (see `Planning/dashboard.md` and the OpenAPI document).
    func stats(client: ClientIdentity) async throws -> Response {
        let counts = try await storage.typeCounts(for: client)
        let bounds = try await storage.startBounds(of: Array(counts.keys), for: client)
        let steps = bounds[.stepCount]
        let usage = try await storage.usage()
        let health = await storage.health()
        let done = activity.snapshot(for: client)
        let description = storage.storageDescription

        func time(_ ms: Int64?) -> String? { ms.map { ISO8601Millis.format($0) } }
        let answer = SinkStatsAnswer(
            samples: .init(total: counts.values.reduce(0, +), steps: counts[.stepCount] ?? 0,
                           types: SinkTypesAnswer(counts: counts).types,
                           firstStepStart: time(steps?.lowerBound), lastStepStart: time(steps?.upperBound),
                           firstStarts: Dictionary(uniqueKeysWithValues: bounds.map {
                               ($0.key.rawValue, ISO8601Millis.format($0.value.lowerBound))
                           }),
                           lastStarts: Dictionary(uniqueKeysWithValues: bounds.map {
                               ($0.key.rawValue, ISO8601Millis.format($0.value.upperBound))
                           })),
            activity: .init(startedAt: time(done.startedAtMs), requests: done.requests, errors: done.errors,
                            ingests: done.ingests, inserted: done.inserted, duplicates: done.duplicates,
                            lastIngest: time(done.lastIngestMs), lastRequest: time(done.lastRequestMs)),
            storage: .init(kind: description.kind, location: description.location,
                           files: usage.items.map { .init(name: $0.name, bytes: Int($0.bytes)) },
                           totalBytes: Int(usage.totalBytes), status: health.isDegraded ? "degraded" : "ok",
                           reason: health.degradedReason))
        return json(try answer.encoded())
    }
}
