import HTTPTypes
import Hummingbird
import NIOCore
import StepSyncCore

/// Dashboard and documents: what anyone who can reach the sink may read, token or not — the dashboard's page (it
/// holds no data: it asks for the token and reads the JSON endpoints with it), the OpenAPI document, `/health` and
/// the favicon's 204 — and `GET /stats`, what the dashboard shows.
extension SinkResponder {
    /// The routes of the dashboard and the documents.
    static let dashboardRoutes: [SinkRoute] = [
        .open("/", dashboardRead: true) { $0.document(DashboardPage.bytes, "text/html; charset=utf-8", method: $1.method) },
        .open("/openapi.json", dashboardRead: true) { $0.document(OpenAPIDocument.bytes, "application/json", method: $1.method) },
        // A browser asks for it with every page load: no icon, and no 404 in the error counter.
        .open("/favicon.ico", dashboardRead: true, documented: false) { _, _ in
            Response(status: .noContent, headers: [.cacheControl: "max-age=86400"])
        },
        .open("/health", dashboardRead: true) { sink, _ in await sink.health() },
        SinkRoute("/stats", dashboardRead: true, get: { try await $0.stats(client: $1.client) }),
    ]

    /// A document's answer to `GET` or `HEAD` (no body).
    private func document(_ bytes: [UInt8], _ contentType: String, method: HTTPRequest.Method) -> Response {
        let headers: HTTPFields = [
            .contentType: contentType, .cacheControl: "no-cache",
            .contentLength: String(bytes.count),
            // The page runs only its own inline script and style and talks only to this sink.
            .contentSecurityPolicy: "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                + "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            .init("X-Content-Type-Options")!: "nosniff",
        ]
        return Response(status: .ok, headers: headers,
                        body: method == .head ? .init() : .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    // MARK: - GET /health

    /// `GET /health`: 200 `{"api":1,"service":"stepsync","sink":"<uuid>","status":"ok"}`, or 503
    /// `{"status":"degraded","reason":…,"since":…}` (with `api` and `service`) while writes fail
    /// (``SinkHealthBody``; ``SinkHealthAnswer``: the sync checks it is talking to a stepsync sink).
    private func health() async -> Response {
        let health = await storage.health()
        let sink = storage.sinkIdentity
        guard let reason = health.degradedReason else { return json(SinkHealthBody.ok.identified(as: sink).encoded()) }
        let body = SinkHealthBody.degraded(reason: reason, since: health.degradedSince ?? 0).identified(as: sink).encoded()
        return Response(status: .serviceUnavailable,
                        headers: [.contentType: "application/json", .retryAfter: String(configuration.retryAfterSeconds)],
                        body: .init(byteBuffer: ByteBuffer(bytes: body)))
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
