import HTTPTypes
import Hummingbird

/// One endpoint of the sink: a path template, who may call it, and its handler for each method it allows.
///
/// The route groups (`SinkResponder+Samples.swift`, `+Daily`, `+Series`, `+Export`, `+Dashboard`) each declare their
/// routes once, as Hummingbird's `RouteCollection` does; ``SinkRouteTable`` joins them, and the dispatcher, the
/// dashboard's public reads, path matching and the OpenAPI test all read that one table. A template is literal
/// segments and `{name}` parameters (`/workouts/{uuid}/route`), as the OpenAPI document writes it.
struct SinkRoute: Sendable {
    /// Answers an authenticated request to the route (method checked, query parsed).
    typealias Handler = @Sendable (SinkResponder, SinkCall) async throws -> Response
    /// Answers anyone's `GET` or `HEAD` of a public route (no token, no query read).
    typealias PublicHandler = @Sendable (SinkResponder, Request) async throws -> Response

    /// Who may call a route, and what answers it.
    enum Access: Sendable {
        /// Anyone who can reach the sink, token or not: `GET` and `HEAD` (one handler), answered before the token
        /// is looked at.
        case open(PublicHandler)
        /// Only a client its token names: one handler per method, in the order the `Allow` header lists them.
        case token([(method: HTTPRequest.Method, handler: Handler)])
        /// The operator's reads (`/metrics`): `GET` and `HEAD` with the metrics token when one is set
        /// (``SinkConfiguration/metricsToken``); without one, anyone on a loopback bind, and elsewhere the sink's
        /// shared token (a sink of many clients then refuses: no client's token may read every client's figures).
        case operatorRead(PublicHandler)
    }

    /// A segment of a template.
    enum Segment: Sendable, Equatable {
        case literal(Substring)
        case parameter(Substring)
    }

    /// The path template, as the OpenAPI document names it.
    let template: String
    /// Who may call it, and its handlers.
    let access: Access
    /// Whether a `GET` or `HEAD` of it is one of the dashboard's own reads, which do not move "last request".
    let isDashboardRead: Bool
    /// Whether the OpenAPI document lists it. A route it does not list answers any other method 404, as if absent.
    let isDocumented: Bool
    /// The template's segments (the first is the empty one before the leading `/`).
    let segments: [Segment]

    private init(_ template: String, access: Access, dashboardRead: Bool, documented: Bool) {
        self.template = template
        self.access = access
        self.isDashboardRead = dashboardRead
        self.isDocumented = documented
        self.segments = template.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}")
                ? .parameter(segment.dropFirst().dropLast()) : .literal(segment)
        }
    }

    /// A route only a client with a token may call, with a handler for each method it allows (`Allow` lists them
    /// in this order: GET, POST, DELETE).
    init(_ template: String, dashboardRead: Bool = false, get: Handler? = nil, post: Handler? = nil,
         delete: Handler? = nil) {
        let handlers = [(HTTPRequest.Method.get, get), (.post, post), (.delete, delete)]
            .compactMap { method, handler in handler.map { (method: method, handler: $0) } }
        precondition(!handlers.isEmpty, "a route answers at least one method")
        self.init(template, access: .token(handlers), dashboardRead: dashboardRead, documented: true)
    }

    /// A route anyone may `GET` or `HEAD`, answered by `handler`.
    static func open(_ template: String, dashboardRead: Bool = false, documented: Bool = true,
                     _ handler: @escaping PublicHandler) -> SinkRoute {
        SinkRoute(template, access: .open(handler), dashboardRead: dashboardRead, documented: documented)
    }

    /// An operator's read (``Access/operatorRead(_:)``), answered by `handler`; not a dashboard request.
    static func operatorRead(_ template: String, _ handler: @escaping PublicHandler) -> SinkRoute {
        SinkRoute(template, access: .operatorRead(handler), dashboardRead: true, documented: true)
    }

    /// Whether only a client's token opens it (not a public route, not an operator's read).
    var needsClientToken: Bool {
        if case .token = access { return true }
        return false
    }

    /// Whether anyone may call it, token or not.
    var isPublic: Bool {
        if case .open = access { return true }
        return false
    }

    /// The methods it answers.
    var methods: [HTTPRequest.Method] {
        switch access {
        case .open, .operatorRead: [.get, .head]
        case .token(let handlers): handlers.map(\.method)
        }
    }

    /// The methods a 405's `Allow` header names: ``methods`` but `HEAD`, which goes with `GET`.
    var allowed: [HTTPRequest.Method] { methods.filter { $0 != .head } }

    /// Whether the template has a parameter.
    var hasParameters: Bool { segments.contains { if case .parameter = $0 { true } else { false } } }

    /// The texts of the template's parameters in `path`, in order (empty for a literal template), or `nil` when
    /// `path` does not match. A parameter matches any one segment, also an empty one (its handler checks it).
    func match(_ path: String) -> [Substring]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == segments.count else { return nil }
        var parameters: [Substring] = []
        for (part, segment) in zip(parts, segments) {
            switch segment {
            case .literal(let text): guard part == text else { return nil }
            case .parameter: parameters.append(part)
            }
        }
        return parameters
    }

    /// The names of the template's parameters, in order.
    var parameterNames: [Substring] {
        segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }
}
