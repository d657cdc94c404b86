import Foundation
import StepSyncTestSupport
import Testing

/// Issue 16: one vocabulary for every `--json`. Each reporting command's JSON has a schema in `docs/json/`; the real
/// binary's output is checked against it, and the schemas themselves are checked to use the same key for the same
/// thing.
@Suite("Every --json against its schema in docs/json", .serialized)
struct JSONOutputSchemaTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let schemaDirectory = root.appendingPathComponent("docs/json")

    /// The schema `docs/json/<name>.schema.json`.
    static func schema(_ name: String) throws -> JSONValue {
        try JSONValue.parse(String(contentsOf: schemaDirectory.appendingPathComponent("\(name).schema.json"), encoding: .utf8))
    }

    /// The schemas by name (`sync`, `stats-daily`, …).
    static func allSchemas() throws -> [String: JSONValue] {
        let files = try FileManager.default.contentsOfDirectory(atPath: schemaDirectory.path).filter { $0.hasSuffix(".schema.json") }
        return try Dictionary(uniqueKeysWithValues: files.map { file in
            let name = String(file.dropLast(".schema.json".count))
            return (name, try schema(name))
        })
    }

    /// Runs `stepsync <arguments>` (which must exit 0) and checks its stdout against `docs/json/<schema>.schema.json`.
    /// Returns the JSON.
    @discardableResult
    static func check(_ schemaName: String, _ arguments: [String]) async throws -> JSONValue {
        let (status, process) = try await StepSyncProcess.run(arguments)
        #expect(status == 0, "stepsync \(arguments.joined(separator: " ")): \(process.stderr)")
        let value = try JSONValue.parse(process.stdout)
        let problems = JSONSchemaValidator(root: try schema(schemaName)).problems(value)
        #expect(problems.isEmpty, "stepsync \(arguments.joined(separator: " ")) against \(schemaName).schema.json:\n\(problems.joined(separator: "\n"))")
        return value
    }

    @Test("the validator refuses what the schemas forbid: a missing key, an unknown key, a wrong type, an instant without milliseconds")
    func validatorRefuses() throws {
        let schema = try Self.schema("generate")
        let good = try JSONValue.parse("""
            {"samples":3,"steps":120,"duplicates":0,"days":1,"firstDay":"2025-06-30","lastDay":"2025-06-30",
             "profile":"seed","seed":42,"seconds":0.01,"samplesPerSecond":300,
             "types":{"HKQuantityTypeIdentifierStepCount":{"samples":3,"duplicates":0,"steps":120}}}
            """)
        #expect(JSONSchemaValidator(root: schema).problems(good).isEmpty)
        guard case .object(var object) = good else { Issue.record("not an object"); return }
        object["records"] = .integer(3)
        object["samples"] = nil
        object["steps"] = .number(12.5)
        object["firstDay"] = .string("2025-06-30T00:00:00Z")
        let problems = JSONSchemaValidator(root: schema).problems(.object(object))
        #expect(problems.contains("$: the required key samples is missing"))
        #expect(problems.contains("$: the key records is not in the schema"))
        #expect(problems.contains("$.steps: 12.5 is not of type integer"))
        #expect(problems.contains("$.firstDay: \"2025-06-30T00:00:00Z\" is not a date YYYY-MM-DD"))
        let instant = try JSONValue.parse(#"{"type":"string","format":"date-time"}"#)
        #expect(JSONSchemaValidator(root: instant).problems(.string("2025-06-30T00:00:00Z")) == [
            "$: \"2025-06-30T00:00:00Z\" is not an ISO-8601 UTC instant with milliseconds"])
        #expect(JSONSchemaValidator(root: instant).problems(.string("2025-06-30T00:00:00.000Z")).isEmpty)
    }

    @Test("the schemas speak one vocabulary: samples count, steps sum step counts, instants are UTC with ms, durations seconds, types identifiers")
    func oneVocabulary() throws {
        var problems: [String] = []
        func ref(_ schema: JSONValue?) -> String? { schema?.object?["$ref"]?.string?.replacingOccurrences(of: "#/$defs/", with: "") }
        func walk(_ schema: JSONValue, _ path: String) {
            guard let object = schema.object else { return }
            for (key, property) in object["properties"]?.object ?? [:] {
                let at = "\(path).\(key)"
                let expected: Set<String>? = switch key {
                case "samples", "stepSamples", "inserted", "duplicates", "intervals", "synced", "pending", "failed":
                    ["count"]
                case _ where key.hasSuffix("Samples"): ["count"]
                case "steps": ["steps", "number"]
                case "seconds", "durationSeconds": ["seconds"]
                case _ where key.hasSuffix("Seconds"): ["seconds"]
                case "start", "end", "first", "last", "at": ["instant"]
                case "date", "firstDay", "lastDay": ["day"]
                case "type" where !path.hasSuffix("skippedRecords[]"): ["type"]
                default: nil
                }
                if let expected {
                    let actual = ref(property) ?? property.object?["type"]?.string ?? "?"
                    if !expected.contains(actual) { problems.append("\(at) is \(actual), not \(expected.sorted())") }
                }
                walk(property, at)
            }
            if let items = object["items"] { walk(items, path + "[]") }
            if let additional = object["additionalProperties"], additional != .bool(false) { walk(additional, path + "{}") }
            if object["type"]?.string == "object", object["properties"] != nil,
               object["additionalProperties"] != .bool(false) {
                problems.append("\(path) allows keys it does not list (additionalProperties is not false)")
            }
        }
        let schemas = try Self.allSchemas()
        #expect(schemas.count >= 10)
        for (name, schema) in schemas.sorted(by: { $0.key < $1.key }) { walk(schema, name) }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("every command whose --help offers --json has a schema, and every schema a command")
    func everyReportingCommandHasASchema() async throws {
        var withJSON: Set<String> = []
        for (path, _) in HelpTests.commandTypes() {
            let (status, help) = try await StepSyncProcess.run(path + ["--help"])
            #expect(status == 0)
            let name = path.joined(separator: "-")
            // The options the command itself takes, not those its examples mention.
            let options = HelpTests.declaredOptions(in: help.stdout)
            if options.contains("--json") { withJSON.insert(name) }
            if options.contains("--daily") { withJSON.insert(name + "-daily") }
        }
        #expect(withJSON.isSuperset(of: ["sync", "import", "generate", "demo", "stats", "stats-daily", "layer", "chunks",
                                         "status", "delete"]))
        #expect(Set(try Self.allSchemas().keys) == withJSON)
    }

    @Test("every command's --json, run through the real binary on one history, conforms to its schema")
    func everyCommand() async throws {
        let dir = TemporaryDirectory.uniquePath("stepsync-schema")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let data = ["--data-dir", (dir as NSString).appendingPathComponent("data")]
        let exportPath = (dir as NSString).appendingPathComponent("export.xml")
        try ImportSyncTests.export(days: 2).xml.write(toFile: exportPath, atomically: true, encoding: .utf8)

        let imported = try await Self.check("import", ["import", exportPath, "--json"] + data)
        #expect(imported.object?["skipped"]?.object?.isEmpty == false)
        try await Self.check("stats", ["stats", "--json"] + data)
        try await Self.check("stats-daily", ["stats", "--daily", "--from", "2024-03-01", "--to", "2024-03-03",
                                             "--tz", "Europe/Berlin", "--json"] + data)
        try await Self.check("layer", ["layer", "--json"] + data)
        try await Self.check("chunks", ["chunks", "--json"] + data)
        let sync = try await SinkHarness.withSink { port in
            try await Self.check("sync", ["sync", "--server", "http://127.0.0.1:\(port)", "--json"] + data)
        }
        #expect(sync.object?["complete"] == .bool(true))
        try await Self.check("status", ["status", "--json"] + data)
        let deleted = try await Self.check("delete", ["delete", "--from", "2024-03-01T00:00:00.000Z",
                                                      "--to", "2024-03-01T12:00:00.000Z", "--yes", "--json"] + data)
        #expect(deleted.object?["samples"] != .integer(0))

        let generated = ["--data-dir", (dir as NSString).appendingPathComponent("generated")]
        try await Self.check("generate", ["generate", "--profile", "seed", "--years", "1", "--end", "2025-06-30", "--json"] + generated)
        let demo = try await Self.check("demo", ["demo", "--profile", "seed", "--years", "1", "--json"])
        #expect(demo.object?["exact"] == .bool(true))
    }

    @Test("clients list --json against a real PostgreSQL conforms to its schema: an active client with samples, a revoked one never seen",
          .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"))
    func clientsList() async throws {
        try await PostgresHarness.withDatabase { url in
            #expect(try await StepSyncProcess.run(["clients", "add", "anna", "--database", url]).0 == 0)
            #expect(try await StepSyncProcess.run(["clients", "add", "ben", "--database", url]).0 == 0)
            #expect(try await StepSyncProcess.run(["clients", "revoke", "ben", "--database", url]).0 == 0)
            let server = try await PostgresHarness.sharedServer()
            // Two samples of anna's, written as a sink would, and a request seen (last_seen_at).
            _ = try await server.psql("""
                INSERT INTO samples (client_id, uuid, type, start_at, end_at, value, unit, source_name, source_bundle_id,
                                     type_key)
                SELECT id, gen_random_uuid(), 'HKQuantityTypeIdentifierStepCount', now(), now(), 10, 'count', 'iPhone',
                       'com.apple.health', stepsync_type_key('HKQuantityTypeIdentifierStepCount')
                FROM clients, generate_series(1, 2) WHERE name = 'anna';
                UPDATE clients SET last_seen_at = now() WHERE name = 'anna'
                """, url: url)
            let list = try await Self.check("clients-list", ["clients", "list", "--database", url, "--json"])
            let clients = list.object?["clients"]?.array ?? []
            #expect(clients.map { $0.object?["name"]?.string } == ["anna", "ben"])
            #expect(clients.map { $0.object?["samples"] } == [.integer(2), .integer(0)])
            #expect(clients.map { $0.object?["status"]?.string } == ["active", "revoked"])
            #expect(clients.last?.object?["lastSeen"] == .null)
        }
    }
}
