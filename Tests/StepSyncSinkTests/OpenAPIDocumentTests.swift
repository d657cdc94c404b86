import AsyncHTTPClient
import Foundation
import NIOHTTP1
@testable import StepSyncSink
import Testing
import StepSyncTestSupport

/// `GET /openapi.json` is held to the sink: every route it answers is documented with exactly its methods, and every
/// example in the document, sent to a real sink, gets a documented answer whose body has the documented shape.
@Suite("the OpenAPI document")
struct OpenAPIDocumentTests {
    static let methods: [HTTPMethod] = [.GET, .HEAD, .POST, .PUT, .PATCH, .DELETE, .OPTIONS]

    static func document() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.bytes)) as? [String: Any])
    }

    /// path → documented methods (lower case).
    static func documentedRoutes(_ document: [String: Any]) -> [String: Set<String>] {
        let paths = document["paths"] as? [String: [String: Any]] ?? [:]
        let verbs: Set<String> = ["get", "head", "post", "put", "patch", "delete", "options", "trace"]
        return paths.mapValues { Set($0.keys.filter(verbs.contains)) }
    }

    @Test("it is OpenAPI 3.1 JSON, served at /openapi.json without a token, byte for byte")
    func served() async throws {
        let document = try Self.document()
        #expect(document["openapi"] as? String == "3.1.0")
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir, token: "t0ken") { client, _ in
                var anonymous = client
                anonymous.token = nil
                let reply = try await anonymous.send(.GET, "/openapi.json")
                #expect(reply.status == 200)
                #expect(reply.headers["content-type"] == "application/json")
                #expect(reply.body == OpenAPIDocument.bytes)
                #expect(reply.body == sinkResourceBytes("openapi.json"))
                #expect(try await anonymous.send(.GET, "/stats").status == 401)
                #expect(try await client.send(.GET, "/stats").status == 200)
            }
        }
    }

    @Test("the documented paths and methods are exactly the route table's: each answers, every other method is 405")
    func routesMatch() async throws {
        let documented = Self.documentedRoutes(try Self.document())
        // The table the dispatcher reads: every documented path and method is a route of it, and every route of it
        // is documented with exactly its methods (HEAD where a public route answers it), but the favicon's 204.
        let table = SinkRouteTable.sink.routes
        let documentedRoutes = table.filter(\.isDocumented)
        #expect(Dictionary(uniqueKeysWithValues: documentedRoutes.map {
            ($0.template, Set($0.methods.map { $0.rawValue.lowercased() }))
        }) == documented)
        #expect(table.filter { !$0.isDocumented }.map(\.template) == ["/favicon.ico"])
        #expect(Set(table.filter(\.isPublic).map(\.template)) == ["/", "/openapi.json", "/health", "/favicon.ico"])
        let allowed = Dictionary(uniqueKeysWithValues: documentedRoutes.map {
            ($0.template, $0.allowed.map(\.rawValue).joined(separator: ", "))
        })
        // And the running sink agrees, method by method: documented → answered (not 404/405), else 405.
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir) { client, _ in
                for (path, methods) in documented.sorted(by: { $0.key < $1.key }) {
                    for method in Self.methods {
                        let post = path == "/ingest/health-auto-export" ? #"{"data":{}}"#
                            : #"{"samples":[],"uuids":[],"type":"HKQuantityTypeIdentifierHeartRate"}"#
                        let body: [UInt8]? = method == .POST ? Array(post.utf8) : nil
                        let query = ["/samples", "/samples/daily"].contains(path) && method == .GET ? "?type=HKQuantityTypeIdentifierHeartRate" : ""
                        // A parameterised path (`/workouts/{uuid}/route`) with a uuid nothing is stored under: the
                        // path is known (not 404 "no endpoint", not 405), the thing is absent (404 not_found).
                        let target = path.replacingOccurrences(of: "{uuid}", with: UUID().uuidString) + query
                        let reply = try await client.send(method, target, body: body)
                        if methods.contains(method.rawValue.lowercased()), path.contains("{") {
                            #expect(reply.status == 404 && reply.json["error"] as? String == "not_found"
                                    && !reply.text.contains("no endpoint"), "\(method) \(path): \(reply.text.prefix(200))")
                        } else if methods.contains(method.rawValue.lowercased()) {
                            #expect(reply.status == 200, "\(method) \(path): \(reply.status) \(reply.text.prefix(200))")
                        } else {
                            #expect(reply.status == 405, "\(method) \(path) is not documented but answered \(reply.status)")
                            #expect(reply.headers["allow"] == allowed[path], "\(method) \(path)")
                        }
                    }
                }
                // A path the document does not name is 404.
                #expect(try await client.send(.GET, "/dashboard").status == 404)
                #expect(try await client.send(.GET, "/stats/x").status == 404)
            }
        }
    }

    @Test("every schema and example in the document is checkable, and every example conforms to its schema")
    func examplesConform() throws {
        let document = try Self.document()
        let check = SchemaCheck(document: document)
        var examples = 0
        for (path, item) in document["paths"] as? [String: [String: Any]] ?? [:] {
            for (method, value) in item {
                guard let operation = value as? [String: Any] else { continue }
                if let body = operation["requestBody"] as? [String: Any],
                   let media = (body["content"] as? [String: Any])?["application/json"] as? [String: Any],
                   let schema = media["schema"] as? [String: Any], let example = media["example"] {
                    examples += 1
                    #expect(check.problems(example, schema).isEmpty, "\(method) \(path) request: \(check.problems(example, schema))")
                }
                for (status, response) in operation["responses"] as? [String: [String: Any]] ?? [:] {
                    let response = check.dereferenced(response)
                    #expect(response["description"] is String, "\(method) \(path) \(status) has no description")
                    guard let media = (response["content"] as? [String: Any])?["application/json"] as? [String: Any],
                          let schema = media["schema"] as? [String: Any] else { continue }
                    #expect(check.uncheckedKeywords(in: schema).isEmpty, "\(method) \(path) \(status)")
                    if let example = media["example"] {
                        examples += 1
                        #expect(check.problems(example, schema).isEmpty, "\(method) \(path) \(status): \(check.problems(example, schema))")
                    }
                }
            }
        }
        #expect(examples >= 12)
        // Every schema uses only keywords SchemaCheck checks.
        for (name, schema) in (document["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]] ?? [:] {
            #expect(check.uncheckedKeywords(in: schema).isEmpty, "\(name): \(check.uncheckedKeywords(in: schema))")
        }
    }

    @Test("the document's request examples, sent to a real sink, get 200 with bodies of the documented shape")
    func examplesAgainstTheSink() async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir, token: "t0ken") { client, _ in
                let document = try Self.document()
                let check = SchemaCheck(document: document)
                let paths = document["paths"] as? [String: [String: Any]] ?? [:]
                func schema(_ path: String, _ method: String, _ status: String) throws -> [String: Any] {
                    let operation = try #require(paths[path]?[method] as? [String: Any])
                    let response = check.dereferenced(try #require((operation["responses"] as? [String: Any])?[status] as? [String: Any]))
                    return try #require(((response["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"] as? [String: Any])
                }
                func example(_ path: String) throws -> [UInt8] {
                    let body = try #require((paths[path]?["post"] as? [String: Any])?["requestBody"] as? [String: Any])
                    let media = try #require((body["content"] as? [String: Any])?["application/json"] as? [String: Any])
                    return Array(try JSONSerialization.data(withJSONObject: try #require(media["example"])))
                }
                let sent: [(HTTPMethod, String, [UInt8]?, String, String)] = [
                    (.POST, "/steps", try example("/steps"), "/steps", "post"),
                    (.POST, "/samples", try example("/samples"), "/samples", "post"),
                    (.POST, "/steps", try example("/steps"), "/steps", "post"), // duplicates now
                    (.GET, "/steps", nil, "/steps", "get"),
                    (.GET, "/samples?type=HKQuantityTypeIdentifierHeartRate", nil, "/samples", "get"),
                    (.GET, "/samples/types", nil, "/samples/types", "get"),
                    (.GET, "/steps/daily?from=2025-05-10&to=2025-05-12&tz=Europe/Berlin", nil, "/steps/daily", "get"),
                    (.GET, "/steps/daily", nil, "/steps/daily", "get"),
                    (.GET, "/stats", nil, "/stats", "get"),
                    (.GET, "/health", nil, "/health", "get"),
                    (.POST, "/steps/delete", try example("/steps/delete"), "/steps/delete", "post"),
                    (.POST, "/samples/delete", try example("/samples/delete"), "/samples/delete", "post"),
                    (.DELETE, "/samples?type=HKQuantityTypeIdentifierHeartRate", nil, "/samples", "delete"),
                    (.DELETE, "/steps", nil, "/steps", "delete"),
                ]
                var answers: [String: [String: Any]] = [:]
                for (method, target, body, path, operation) in sent {
                    let reply = try await client.send(method, target, body: body)
                    #expect(reply.status == 200, "\(method) \(target): \(reply.text.prefix(200))")
                    let value = try JSONSerialization.jsonObject(with: Data(reply.body))
                    let problems = check.problems(value, try schema(path, operation, "200"))
                    #expect(problems.isEmpty, "\(method) \(target): \(problems)")
                    answers["\(method) \(target)"] = value as? [String: Any]
                }
                // The answers are the real ones, not merely well-shaped.
                #expect(answers["POST /steps"]?["inserted"] as? Int == 0) // the second POST of the example
                #expect(answers["POST /steps"]?["duplicates"] as? Int == 1)
                let daily = answers["GET /steps/daily?from=2025-05-10&to=2025-05-12&tz=Europe/Berlin"]?["days"] as? [[String: Any]]
                #expect(daily?.map { $0["date"] as? String } == ["2025-05-10", "2025-05-11", "2025-05-12"])
                #expect(daily?.map { $0["steps"] as? Int } == [0, 176, 0])
                let stats = answers["GET /stats"]
                #expect((stats?["samples"] as? [String: Any])?["total"] as? Int == 2)
                #expect((stats?["activity"] as? [String: Any])?["duplicates"] as? Int == 1)

                // The errors: their bodies have the Error shape and their statuses are documented.
                let errors: [(HTTPMethod, String, [UInt8]?, String?, Int, String, String)] = [
                    (.GET, "/steps?limit=0", nil, "t0ken", 400, "/steps", "get"),
                    (.GET, "/steps/daily?tz=Mars/Olympus", nil, "t0ken", 400, "/steps/daily", "get"),
                    (.POST, "/steps", Array("{".utf8), "t0ken", 400, "/steps", "post"),
                    (.GET, "/stats", nil, nil, 401, "/stats", "get"),
                    (.POST, "/samples", Array(#"{"samples":[]}"#.utf8), "wrong", 401, "/samples", "post"),
                ]
                for (method, target, body, token, status, path, operation) in errors {
                    var caller = client
                    caller.token = token
                    let reply = try await caller.send(method, target, body: body)
                    #expect(reply.status == status, "\(method) \(target)")
                    let problems = check.problems(try JSONSerialization.jsonObject(with: Data(reply.body)),
                                                  try schema(path, operation, String(status)))
                    #expect(problems.isEmpty, "\(method) \(target): \(problems)")
                }
            }
        }
    }
}
