import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import StepSyncCore

import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import StepSyncCore

/// Answers the sink's requests over one ``SampleStorage`` (see `Planning/sink.md` for the endpoints): the
/// middleware (CORS, the request log, the Host check) in front of a dispatcher that reads ``SinkRouteTable``.
///
/// Its own dispatcher rather than Hummingbird's `Router`, because the router answers 404 where the wire needs 405
/// (with `Allow`) for a known path with the wrong method, and 401 before 405 for a route that needs a token. Order
/// of checks: CORS preflight, `Host` (on a loopback bind), path, credentials (unless the route is public), method,
/// query, then the route's handler. The handlers live with their routes in the group files (`SinkResponder+…`).
struct SinkResponder: HTTPResponder {
    typealias Context = SinkRequestContext

    let storage: any SampleStorage
    let authenticator: any SinkAuthenticator
    let configuration: SinkConfiguration
    /// Whether the sink is bound to a loopback address, so only loopback `Host`s are answered.
    let loopbackOnly: Bool
    /// The bytes all requests' bodies may hold at once.
    let budget: BodyBudget
    /// Requests and ingests since start, for `GET /stats` (per client when the authenticator knows many).
    let activity: SinkActivity
    /// The figures of `GET /metrics`.
    let metrics: SinkMetrics
    /// The ids of requests that come without one.
    let requestIDs: RequestIDs
    /// Warns once when a tokenless sink is reached through a proxy.
    let proxyWarning = ProxyWarning()

    /// The routes answered.
    static var table: SinkRouteTable { .sink }

    /// The paths without parameters that need a client's token, and the methods each allows (read by tests that try
    /// every route; `/metrics`, an operator's read, is not one of them).
    static var routes: [String: [HTTPRequest.Method]] {
        Dictionary(uniqueKeysWithValues: table.routes.filter { $0.needsClientToken && !$0.hasParameters }
            .map { ($0.template, $0.methods) })
    }

    /// The middleware in front of the dispatcher, outermost first.
    @MiddlewareFixedTypeBuilder<Request, Response, Context>
    var middleware: some MiddlewareProtocol<Request, Response, Context> {
        SinkCORSMiddleware(policy: configuration.cors)
        RequestLogMiddleware(activity: activity, proxyWarning: proxyWarning,
                             tokenless: configuration.token == nil && authenticator is SharedTokenAuthenticator,
                             retryAfterSeconds: configuration.retryAfterSeconds, table: Self.table,
                             time: configuration.time, metrics: metrics, requestIDs: requestIDs)
        HostCheckMiddleware(loopbackOnly: loopbackOnly)
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        try await middleware.handle(request, context: context) { request, context in
            try await dispatch(request, context: context)
        }
    }

    /// Answers `request` from the table: 404 for a path no route matches, 401 without a valid token for a route
    /// that needs one (the client is then noted in `context`, also when the request fails later), 405 with `Allow`
    /// for a method the route does not answer (404 when the route is not documented), else its handler's answer.
    func dispatch(_ request: Request, context: Context) async throws -> Response {
        var path = request.uri.path
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        guard let resolved = Self.table.resolve(path) else { throw SinkError.notFound(path) }
        let (route, parameters) = resolved
        let handlers: [(method: HTTPRequest.Method, handler: SinkRoute.Handler)]
        switch route.access {
        case .open(let handler):
            guard route.methods.contains(request.method) else { throw wrongMethod(request.method, path, route) }
            return try await handler(self, request)
        case .operatorRead(let handler):
            guard route.methods.contains(request.method) else { throw wrongMethod(request.method, path, route) }
            guard try await operatorMayRead(request) else { throw SinkError.unauthorized() }
            return try await handler(self, request)
        case .token(let byMethod):
            handlers = byMethod
        }
        guard let client = try await authenticator.client(authorization: request.headers[.authorization]) else {
            throw SinkError.unauthorized()
        }
        context.client.identity = client
        guard let handler = handlers.first(where: { $0.method == request.method })?.handler else {
            throw wrongMethod(request.method, path, route)
        }
        let call = SinkCall(request: request, route: route, parameters: parameters, query: try Query(request),
                            client: client)
        return try await handler(self, call)
    }

    /// Whether `request` may read an operator's route (``SinkRoute/Access/operatorRead(_:)``): with the metrics
    /// token when set; else anyone on a loopback bind, and elsewhere a sink of one shared token's holder.
    private func operatorMayRead(_ request: Request) async throws -> Bool {
        if let token = configuration.metricsToken {
            return try await SharedTokenAuthenticator(token: token).client(authorization: request.headers[.authorization]) != nil
        }
        if loopbackOnly { return true }
        guard authenticator is SharedTokenAuthenticator else { return false }
        return try await authenticator.client(authorization: request.headers[.authorization]) != nil
    }

    /// 405 naming the methods `route` allows, or 404 for a route the OpenAPI document does not list.
    private func wrongMethod(_ method: HTTPRequest.Method, _ path: String, _ route: SinkRoute) -> SinkError {
        route.isDocumented ? .methodNotAllowed(method, path, allow: route.allowed) : .notFound(path)
    }

    // MARK: - Parameters

    /// The query parameters of a request, decoded as `application/x-www-form-urlencoded` (``FormQuery``: `+` is a
    /// space, as every HTTP library's default encoding writes it).
    struct Query: Sendable {
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

    func json(_ text: String) -> Response { json(Array(text.utf8)) }

    func json(_ bytes: [UInt8]) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
