import HTTPTypes
import Hummingbird
import Logging
import StepSyncCore

/// Logs every answered request ("Request" at info, with method, path, status and duration) and counts it in
/// ``SinkActivity``; turns the errors the sink answers (``SinkError``, a storage's errors) into their JSON
/// responses, so that they are logged and counted like any answer. Also warns once when a tokenless sink is reached
/// through a proxy (``ProxyWarning``).
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = SinkRequestContext

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

    /// Health Auto Export's headers naming the pushing automation, and their keys in the log line's metadata.
    static let automationHeaders: [(HTTPField.Name, String)] = [
        (HTTPField.Name("automation-name")!, "hae.automation.name"),
        (HTTPField.Name("automation-id")!, "hae.automation.id"), (HTTPField.Name("session-id")!, "hae.session.id"),
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let elapsed = time.stopwatch()
        proxyWarning.check(request.headers, tokenless: tokenless, logger: context.logger)
        let response: Response
        do {
            response = try await next(request, context)
        } catch let error as SinkError {
            response = try error.response(from: request, context: context)
        } catch let error as SampleStorageError {
            response = try SinkError.storage(error).response(from: request, context: context)
        } catch let error as SampleLogError {
            response = try SinkError.unavailable(error.description, retryAfterSeconds: retryAfterSeconds)
                .response(from: request, context: context)
        }
        activity.recordRequest(status: Int(response.status.code),
                               dashboard: table.isDashboardRead(method: request.method, path: request.uri.path),
                               client: context.client.identity)
        var metadata: Logger.Metadata = [
            "http.method": "\(request.method.rawValue)", "http.path": "\(request.uri.path.prefix(128))",
            "http.status": "\(response.status.code)", "http.duration": "\(elapsed())",
        ]
        for (header, key) in Self.automationHeaders {
            if let value = request.headers[header] { metadata[key] = "\(value.prefix(128))" }
        }
        context.logger.info("Request", metadata: metadata)
        return response
    }
}
