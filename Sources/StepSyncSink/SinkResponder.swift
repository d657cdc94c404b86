import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import StepSyncCore

/// Routes and answers the sink's requests (see `Planning/sink.md` for the endpoints) over one ``SampleStorage``.
///
/// A hand-written switch rather than Hummingbird's `Router`, because the router answers 404 where the wire needs
/// 405 for a known path with the wrong method. Order of checks: `Host` (on a loopback bind), path, credentials,
/// method, then the handler.
struct SinkResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let storage: any SampleStorage
    let authenticator: any SinkAuthenticator
    let configuration: SinkConfiguration
    /// Whether the sink is bound to a loopback address, so only loopback `Host`s are answered.
    let loopbackOnly: Bool
    /// The bytes all requests' bodies may hold at once.
    let budget: BodyBudget
    /// Requests and ingests since start, for `GET /stats` (per client when the authenticator knows many).
    var activity = SinkActivity()
    /// Warns once when a tokenless sink is reached through a proxy.
    let proxyWarning = ProxyWarning()

    /// The paths and the methods each allows.
    static let routes: [String: [HTTPRequest.Method]] = [
        "/steps": [.get, .post, .delete],
        "/steps/delete": [.post],
        "/steps/daily": [.get],
        "/samples/daily": [.get],
        "/sleep/nights": [.get],
        "/workouts": [.get],
        "/samples": [.get, .post, .delete],
        "/samples/types": [.get],
        "/samples/delete": [.post],
        "/stats": [.get],
        "/export": [.get],
        "/electrocardiograms": [.get],
        "/routes": [.get],
    ]

    func respond(to request: Request, context: Context) async throws -> Response {
        let origin = request.headers[.origin]
        let cors = configuration.cors.allows(origin) ? origin : nil
        if let cors, request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            // A browser's preflight from an allowed origin: no credentials are sent with it, so it is answered before
            // the token check, and is not counted as a request.
            return Response(status: .noContent, headers: configuration.cors.preflightHeaders(origin: cors))
        }
        var response = try await answer(request, context: context)
        if let cors { response.headers.append(contentsOf: configuration.cors.responseHeaders(origin: cors)) }
        return response
    }

    private func answer(_ request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        proxyWarning.check(request.headers, tokenless: configuration.token == nil && authenticator is SharedTokenAuthenticator,
                           logger: context.logger)
        let response: Response
        var client: ClientIdentity?
        do {
            response = try await route(request, context: context, client: &client)
        } catch let error as SinkError {
            response = try error.response(from: request, context: context)
        } catch let error as SampleStorageError {
            response = try SinkError.storage(error).response(from: request, context: context)
        } catch let error as SampleLogError {
            response = try SinkError.unavailable(error.description, retryAfterSeconds: configuration.retryAfterSeconds)
                .response(from: request, context: context)
        }
        activity.recordRequest(status: Int(response.status.code), dashboard: Self.isDashboardRead(request), client: client)
        context.logger.info("Request", metadata: [
            "http.method": "\(request.method.rawValue)", "http.path": "\(request.uri.path.prefix(128))",
            "http.status": "\(response.status.code)", "http.duration": "\(ContinuousClock.now - started)",
        ])
        return response
    }

    /// Answers `request`; sets `client` once the request is authenticated (also when it then fails).
    private func route(_ request: Request, context: Context, client authenticated: inout ClientIdentity?) async throws
        -> Response
    {
        if loopbackOnly, let host = request.head.authority, !HostPolicy.isLoopbackAuthority(host) {
            throw SinkError.foreignHost(host)
        }
        var path = request.uri.path
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        if path == "/health" {
            guard request.method == .get || request.method == .head else {
                throw SinkError.methodNotAllowed(request.method, path, allow: [.get])
            }
            return await health()
        }
        if let page = try publicDocument(path, method: request.method) { return page }
        // A path with a parameter (`/workouts/{uuid}/route`, `SinkResponder+Series.swift`) when no fixed one.
        let series = Self.routes[path] == nil ? SeriesPath(path) : nil
        guard let allowed = Self.routes[path] ?? series?.methods else { throw SinkError.notFound(path) }
        guard let client = try await authenticator.client(authorization: request.headers[.authorization]) else {
            throw SinkError.unauthorized()
        }
        authenticated = client
        guard allowed.contains(request.method) else { throw SinkError.methodNotAllowed(request.method, path, allow: allowed) }
        let query = try Query(request)
        if let series { return try await answer(series, query: query, client: client) }
        switch (path, request.method) {
        case ("/steps", .post): return try await post(request, shape: .steps, client: client)
        case ("/samples", .post): return try await post(request, shape: .samples, client: client)
        case ("/steps", .get): return try await page(query, type: SampleType.stepCount, shape: Shape.steps, client: client)
        case ("/samples", .get):
            return try await page(query, type: try requiredType(query), shape: Shape.samples, client: client)
        case ("/steps", .delete): return try await clear([.stepCount], client: client)
        case ("/samples", .delete): return try await clear(try optionalType(query).map { [$0] }, client: client)
        case ("/steps/delete", .post): return try await deleteUUIDs(request, type: .stepCount, client: client)
        case ("/samples/delete", .post): return try await deleteUUIDs(request, type: nil, client: client)
        case ("/samples/types", .get): return try await types(client: client)
        case ("/stats", .get): return try await stats(client: client)
        case ("/export", .get): return try await export(query, client: client)
        case ("/samples/daily", .get): return try await samplesDaily(query, client: client)
        case ("/sleep/nights", .get): return try await sleepNights(query, client: client)
        case ("/workouts", .get): return try await workouts(query, client: client)
        case ("/electrocardiograms", .get): return try await electrocardiograms(query, client: client)
        case ("/routes", .get): return try await routes(query, client: client)
        default: return try await daily(query, client: client)
        }
    }

    // MARK: - Handlers

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

    /// `POST /steps` and `POST /samples`.
    private func post(_ request: Request, shape: Shape, client: ClientIdentity) async throws -> Response {
        var reservation = 0
        defer { budget.release(reservation) }
        let body = try await jsonBody(request, reservation: &reservation)
        let decoded: DecodedSamples
        do {
            decoded = try decode(body, shape)
        } catch {
            throw SinkError.invalid(error)
        }
        let outcome = try await storage.insert(SampleBatch(decoded, body: body), for: client)
        activity.recordIngest(inserted: outcome.inserted, duplicates: outcome.duplicates, client: client)
        return json(SinkIngestAnswer(saved: decoded.samples.count, inserted: outcome.inserted,
                                     duplicates: outcome.duplicates).encoded())
    }

    private func decode(_ body: ByteBuffer, _ shape: Shape) throws(WireError) -> DecodedSamples {
        let result: Result<DecodedSamples, WireError> = body.withUnsafeReadableBytes { raw in
            do throws(WireError) {
                return .success(shape == .steps ? try WireDecoder.decodeStepsBody(raw)
                                                : try WireDecoder.decodeSamplesBody(raw))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// `DELETE /steps`, `DELETE /samples[?type=T]`.
    private func clear(_ types: [SampleType]?, client: ClientIdentity) async throws -> Response {
        let count = try await storage.clear(types, for: client)
        return json(SinkClearAnswer(deleted: count).encoded())
    }

    /// `POST /steps/delete {"uuids":[…]}` and `POST /samples/delete {"type":…,"uuids":[…]}`.
    private func deleteUUIDs(_ request: Request, type fixedType: SampleType?, client: ClientIdentity) async throws -> Response {
        var reservation = 0
        defer { budget.release(reservation) }
        let body = try await jsonBody(request, reservation: &reservation)
        let parsed: DeletionRequest
        do {
            parsed = try DeletionRequest.parse(Data(buffer: body), type: fixedType)
        } catch {
            throw SinkError.badRequest(error.message, field: error.field)
        }
        let (type, uuids) = (parsed.type, parsed.uuids)
        let outcome = try await storage.delete(uuids, type: type, for: client)
        return json(SinkDeletionAnswer(deleted: outcome.deleted, missing: outcome.missing).encoded())
    }

    /// `GET /steps` and `GET /samples?type=T`: `{"storedCount":N,"samples":[…],"nextCursor":…}`.
    private func page(_ query: Query, type: SampleType, shape: Shape,
                      client: ClientIdentity) async throws -> Response {
        var limit = configuration.defaultPageLimit
        if let text = query["limit"] {
            guard let value = Int(text), value > 0 else {
                throw SinkError.badRequest("limit \"\(text.prefix(64))\" is not a positive integer", field: "limit")
            }
            limit = min(value, configuration.maxPageLimit)
        }
        let cursor = query["cursor"].map(String.init)
        let range = try startRange(query)
        let page = try await storage.page(
            SamplePageQuery(type: type, cursor: cursor, limit: limit, maxBytes: configuration.maxPageBytes,
                            startRange: range),
            for: client)
        var out: [UInt8] = []
        out.reserveCapacity(64 + page.samples.count * 240)
        out.append(contentsOf: #"{"storedCount":\#(page.storedCount),"samples":["#.utf8)
        for (i, sample) in page.samples.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            if shape == .steps {
                WireEncoder.appendObject(WireSample(sample), to: &out)
            } else {
                WireEncoder.appendSampleObject(sample, to: &out)
            }
        }
        out.append(contentsOf: #"],"nextCursor":\#(page.nextCursor.map { "\"\($0)\"" } ?? "null")}"#.utf8)
        return json(out)
    }

    /// `GET /samples/types`: `{"types":{"T":count,…}}`.
    private func types(client: ClientIdentity) async throws -> Response {
        return json(SinkTypesAnswer(counts: try await storage.typeCounts(for: client)).encoded())
    }

    /// `GET /steps/daily?from=YYYY-MM-DD&to=YYYY-MM-DD&tz=IANA&priority=A,B`: the step total of every local day
    /// `from`…`to`, by the daily-totals rule (``DailyStepTotals``: a walk the iPhone and the Watch both recorded counts
    /// once), the same answer as `stepsync stats --daily --json`. `tz` defaults to UTC and `priority` to Apple Watch,
    /// then iPhone; without `from` and `to`, the days from the first to the last stored step sample (at most
    /// ``DailyStepsRequest/maxDays``, ending on the last, within 0001-01-01…9999-12-31), which the answer's `from` and
    /// `to` state. 400 names the parameter at fault, only ever one the request sent.
    private func daily(_ query: Query, client: ClientIdentity) async throws -> Response {
        let tz = query["tz"].map(String.init) ?? "UTC"
        let priority = query["priority"].map(String.init)
        do {
            let request: DailyStepsRequest
            let spans: [StepSpan]
            switch (query["from"], query["to"]) {
            case let (from?, to?):
                request = try DailyStepsRequest.parse(from: String(from), to: String(to), tz: tz, priority: priority)
                let span = DailyStepTotals(request: request).span
                spans = try await storage.stepSpans(overlapping: span.start..<span.end, for: client)
            case (nil, nil):
                let zone = try DailyStepsRequest.parseTimeZone(tz)
                spans = try await storage.stepSpans(overlapping: Instants.min..<Instants.max, for: client)
                guard let firstStart = spans.map(\.startMs).min(), let lastStart = spans.map(\.startMs).max() else {
                    let ranking = try priority.map { try DevicePriority.parse($0, parameter: "priority") } ?? .default
                    return json(DailyStepsResult(timeZoneName: tz, days: [], unmatched: ranking.names).json)
                }
                // The stored days, clamped to the dates a request can name (a sample at 9999-12-31T23:00Z is on
                // 10000-01-01 in UTC+14) and to the last maxDays: the answer's from/to say which were chosen.
                let last = min(CivilDate.local(ofMs: lastStart, in: zone), Self.lastDate)
                let first = max(CivilDate.local(ofMs: firstStart, in: zone), Self.firstDate,
                                last.advanced(by: -(DailyStepsRequest.maxDays - 1)))
                let ranking = try priority.map { try DevicePriority.parse($0, parameter: "priority") } ?? .default
                request = try DailyStepsRequest(from: min(first, last), to: last, timeZoneName: tz, priority: ranking)
            case (nil, _?), (_?, nil):
                throw SinkError.badRequest("from and to go together (YYYY-MM-DD), or neither for every stored day",
                                           field: query["from"] == nil ? "from" : "to")
            }
            let result = try DailyStepTotals.compute(spans, request: request)
            return json(result.json)
        } catch let error as DailyStepsError {
            throw SinkError.badRequest(error.description, field: error.parameter)
        }
    }

    /// The first and last dates a daily request can name.
    static let firstDate = CivilDate(year: 1, month: 1, day: 1)
    static let lastDate = CivilDate(year: 9999, month: 12, day: 31)


    // MARK: - Parameters

    enum Shape { case steps, samples }

    /// The query parameters of a request, decoded as `application/x-www-form-urlencoded` (``FormQuery``: `+` is a
    /// space, as every HTTP library's default encoding writes it).
    struct Query {
        let parameters: FormQuery

        /// - Throws: ``SinkError`` 400 naming the parameter with a bad escape or bad UTF-8.
        init(_ request: Request) throws {
            do {
                parameters = try FormQuery(parsing: request.uri.query.map { Substring($0) })
            } catch {
                throw SinkError.badRequest(error.description, field: error.parameter)
            }
        }

        subscript(_ name: Substring) -> Substring? { parameters[String(name)].map { Substring($0) } }
    }

    func requiredType(_ query: Query) throws -> SampleType {
        guard let type = try optionalType(query) else {
            throw SinkError.badRequest("the query parameter type is required, e.g. ?type=HKQuantityTypeIdentifierHeartRate",
                                       field: "type")
        }
        return type
    }

    func optionalType(_ query: Query) throws -> SampleType? {
        try query["type"].map { try validType(String($0), field: "type") }
    }

    func validType(_ text: String, field: String) throws -> SampleType {
        let type = SampleType(text)
        if let problem = SampleValidation.typeProblem(type) {
            throw SinkError.badRequest("\(field) \(problem.detail)", field: field)
        }
        return type
    }

    /// The half-open start range `from..<to` of a query's ISO-8601 instants (either may be absent), `nil` when
    /// neither is given; 400 naming `to` when it is before `from`.
    func startRange(_ query: Query) throws -> Range<Int64>? {
        guard query["from"] != nil || query["to"] != nil else { return nil }
        let from = try instant(query, "from") ?? Instants.min
        let to = try instant(query, "to") ?? Instants.max
        guard to >= from else { throw SinkError.badRequest("to is before from", field: "to") }
        return from..<to
    }

    /// The instant of query parameter `name`, or `nil` when absent; 400 naming it when it is not an ISO-8601 date
    /// inside ``Instants``.
    func instant(_ query: Query, _ name: String) throws -> Int64? {
        guard let text = query[Substring(name)] else { return nil }
        guard let ms = ISO8601Millis.parse(text) else {
            throw SinkError.badRequest("""
                \(name) "\(text.prefix(64))" is not an ISO-8601 date such as 2025-05-11T16:27:22.000Z \
                within \(Instants.description)
                """, field: name)
        }
        return ms
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return a % b < 0 ? q - 1 : q
    }

    func json(_ text: String) -> Response { json(Array(text.utf8)) }

    func json(_ bytes: [UInt8]) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
