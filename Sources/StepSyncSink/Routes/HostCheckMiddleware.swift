import Hummingbird

/// The Host check (``HostPolicy``): a sink bound to loopback answers a request for any other name 421, the defence
/// against DNS rebinding. Inside the request log, so the refusal is logged and counted.
struct HostCheckMiddleware: RouterMiddleware {
    typealias Context = SinkRequestContext

    /// Whether the sink is bound to a loopback address, so only loopback `Host`s are answered.
    let loopbackOnly: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        if loopbackOnly, let host = request.head.authority, !HostPolicy.isLoopbackAuthority(host) {
            throw SinkError.foreignHost(host)
        }
        return try await next(request, context)
    }
}
