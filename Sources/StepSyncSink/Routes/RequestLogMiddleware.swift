import HTTPTypes
import Hummingbird
import Logging
import StepSyncCore

/// Logs every answered request ("Request" at info, at warning for a 5xx; with its id, method, path, route
/// template, status, duration in seconds and the client's name when known), counts it in ``SinkActivity`` and
/// ``SinkMetrics``, and returns its id as `X-Request-Id`; turns the errors the sink answers (``SinkError``, a storage's errors) into their JSON
/// responses, so that they are logged and counted like any answer. Also warns once when a tokenless sink is reached
/// through a proxy (``ProxyWarning``).
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = SinkRequestContext

    /// `X-Request-Id`: kept from a proxy when sane, else made; returned on every answer and logged as `request.id`.
    static let requestIDHeader = HTTPField.Name("X-Request-Id")!

    /// Requests and ingests since start, for `GET /stats`.
    let activity: SinkActivity
    /// Warns once when a tokenless sink is reached through a proxy.
    let proxyWarning: ProxyWarning
    /// Whether the sink has no token (the shared-token authenticator without one).
    let tokenless: Bool
    /// The `Retry-After` of a 503 for a failed write.
    let retryAfterSeconds: Int
    /// The routes, for which requests are the dashboard's own reads.
    let table: SinkRouteTable
    /// The sink's time (``SinkConfiguration/time``): each request's duration is measured on it.
    let time: TimeSource
    /// The figures of `GET /metrics`: requests by route template and status, their durations, those in flight.
    let metrics: SinkMetrics
    /// The request ids, kept from a proxy's `X-Request-Id` or made.
    let requestIDs: RequestIDs

    /// Health Auto Export's headers naming the pushing automation, and their keys in the log line's metadata.
    static let automationHeaders: [(HTTPField.Name, String)] = [
        (HTTPField.Name("automation-name")!, "hae.automation.name"),
        (HTTPField.Name("automation-id")!, "hae.automation.id"), (HTTPField.Name("session-id")!, "hae.session.id"),
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let elapsed = time.stopwatch()
        let requestID = requestIDs.id(given: request.headers[Self.requestIDHeader])
        var context = context
        context.logger[metadataKey: "request.id"] = "\(requestID)"
        proxyWarning.check(request.headers, tokenless: tokenless, logger: context.logger)
        metrics.requestStarted()
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as SinkError {
            response = try error.response(from: request, context: context)
        } catch let error as SampleStorageError {
            response = try SinkError.storage(error).response(from: request, context: context)
        } catch let error as SampleLogError {
            response = try SinkError.unavailable(error.description, retryAfterSeconds: retryAfterSeconds)
                .response(from: request, context: context)
        } catch {
            metrics.requestEnded(route: table.template(of: request.uri.path), method: request.method.rawValue,
                                 status: 500, duration: elapsed())
            throw error
        }
        response.headers[Self.requestIDHeader] = requestID
        let duration = elapsed()
        let status = Int(response.status.code)
        let route = table.template(of: request.uri.path)
        metrics.requestEnded(route: route, method: request.method.rawValue, status: status, duration: duration)
        activity.recordRequest(status: status,
                               dashboard: table.isDashboardRead(method: request.method, path: request.uri.path),
                               client: context.client.identity)
        var metadata: Logger.Metadata = [
            "http.method": "\(request.method.rawValue)", "http.path": "\(request.uri.path.prefix(128))",
            "http.route": "\(route ?? "unmatched")", "http.status": .stringConvertible(status),
            "http.duration": .stringConvertible(Double(duration.components.seconds)
                + Double(duration.components.attoseconds) / 1e18),
        ]
        if let client = context.client.identity { metadata["client"] = "\(client.name ?? client.id)" }
        for (header, key) in Self.automationHeaders {
            if let value = request.headers[header] { metadata[key] = "\(value.prefix(128))" }
        }
        context.logger.log(level: status >= 500 ? .warning : .info, "Request", metadata: metadata)
        return response
    }
}
