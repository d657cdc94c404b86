import HTTPTypes
import Hummingbird

/// Cross-origin access (``CORSPolicy``) in front of everything else: a browser's preflight from an allowed origin is
/// answered 204 here (it carries no credentials, so before the token check, and it is neither logged nor counted as
/// a request); every other answer to an allowed origin gets the CORS headers.
struct SinkCORSMiddleware: RouterMiddleware {
    typealias Context = SinkRequestContext

    /// The origins allowed.
    let policy: CORSPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let origin = request.headers[.origin]
        let cors = policy.allows(origin) ? origin : nil
        if let cors, request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            return Response(status: .noContent, headers: policy.preflightHeaders(origin: cors))
        }
        var response = try await next(request, context)
        if let cors { response.headers.append(contentsOf: policy.responseHeaders(origin: cors)) }
        return response
    }
}
