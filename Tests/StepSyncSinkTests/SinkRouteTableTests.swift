import HTTPTypes
@testable import StepSyncSink
import Testing

/// The route table resolves a path as the wire always has: a literal template before one with parameters, a
/// parameter is any one segment (also an empty one, which its handler refuses 400), and the dashboard's own reads
/// are the marked routes' paths exactly as sent.
@Suite("the sink's route table")
struct SinkRouteTableTests {
    let table = SinkRouteTable.sink

    @Test("paths resolve to their template and parameters, or to nothing", arguments: [
        ("/steps", "/steps", [String]()),
        ("/electrocardiograms", "/electrocardiograms", []),
        ("/electrocardiograms/ABC", "/electrocardiograms/{uuid}", ["ABC"]),
        ("/electrocardiograms/", "/electrocardiograms/{uuid}", [""]),
        ("/workouts/W-1/route", "/workouts/{uuid}/route", ["W-1"]),
        ("/workouts//route", "/workouts/{uuid}/route", [""]),
    ])
    func resolves(path: String, template: String, parameters: [String]) throws {
        let (route, found) = try #require(table.resolve(path))
        #expect(route.template == template)
        #expect(found.map(String.init) == parameters)
    }

    @Test("paths no route names resolve to nothing", arguments: ["/stats/x", "/workouts/W-1", "/workouts/W-1/route/x",
                                                                   "/dashboard", "", "/Steps"])
    func unknown(path: String) {
        #expect(table.resolve(path)?.route.template == nil)
    }

    @Test("every template is declared once, and a 405's Allow names the methods but HEAD")
    func templates() throws {
        #expect(Set(table.routes.map(\.template)).count == table.routes.count)
        #expect(try #require(table.resolve("/health")).route.allowed == [.get])
        #expect(try #require(table.resolve("/steps")).route.allowed == [.get, .post, .delete])
        #expect(SinkResponder.routes["/samples"] == [.get, .post, .delete])
        #expect(SinkResponder.routes["/health"] == nil && SinkResponder.routes["/electrocardiograms/{uuid}"] == nil)
        #expect(SinkResponder.routes["/metrics"] == nil) // an operator's read, open on loopback (SinkMetricsTests)
    }

    @Test("the dashboard's reads are GET or HEAD of its marked paths as sent", arguments: [
        (HTTPRequest.Method.get, "/", true), (.head, "/stats", true), (.get, "/health", true),
        (.get, "/favicon.ico", true), (.get, "/openapi.json", true), (.post, "/stats", false),
        (.get, "/stats/", false), (.get, "/steps", false), (.get, "/export", false),
    ])
    func dashboardReads(method: HTTPRequest.Method, path: String, expected: Bool) {
        #expect(table.isDashboardRead(method: method, path: path) == expected)
    }
}
