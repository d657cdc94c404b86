import HTTPTypes

/// The sink's routes, joined from the groups: the one place the dispatcher, the dashboard's public reads and the
/// OpenAPI test learn which paths exist, with which methods, and who may call them.
///
/// To add an endpoint, add one ``SinkRoute`` to its group's list (and its handler beside it), and document it in
/// `Resources/openapi.json`; the OpenAPI test holds the two together.
struct SinkRouteTable: Sendable {
    /// Every route, group by group.
    let routes: [SinkRoute]
    /// The routes without parameters, by template.
    private let literal: [String: SinkRoute]
    /// The routes with parameters, tried in order after the literal ones.
    private let parameterised: [SinkRoute]

    /// A table of `routes`; templates must be distinct.
    init(_ routes: [SinkRoute]) {
        precondition(Set(routes.map(\.template)).count == routes.count, "a template is declared twice")
        self.routes = routes
        literal = Dictionary(uniqueKeysWithValues: routes.filter { !$0.hasParameters }.map { ($0.template, $0) })
        parameterised = routes.filter(\.hasParameters)
    }

    /// The sink's table: samples and deletions, daily figures, series, export, dashboard and documents.
    static let sink = SinkRouteTable(SinkResponder.sampleRoutes + SinkResponder.dailyRoutes
        + SinkResponder.seriesRoutes + SinkResponder.exportRoutes + SinkResponder.dashboardRoutes + SinkResponder.healthAutoExportRoutes
        + SinkResponder.metricsRoutes)

    /// The route `path` names (a literal template first, then one with parameters) and its parameters' texts.
    func resolve(_ path: String) -> (route: SinkRoute, parameters: [Substring])? {
        if let route = literal[path] { return (route, []) }
        for route in parameterised {
            if let parameters = route.match(path) { return (route, parameters) }
        }
        return nil
    }

    /// The template of the route `path` names (a trailing `/` ignored, as the dispatcher does), or `nil`.
    func template(of path: String) -> String? {
        var path = path
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return resolve(path)?.route.template
    }

    /// Whether `request` is one of the dashboard's own reads (a `GET` or `HEAD` of a route marked so, its path as
    /// sent), which do not count as the sink's last request.
    func isDashboardRead(method: HTTPRequest.Method, path: String) -> Bool {
        guard method == .get || method == .head else { return false }
        return literal[path]?.isDashboardRead ?? false
    }
}
