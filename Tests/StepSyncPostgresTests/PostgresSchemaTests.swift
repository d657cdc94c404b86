import Crypto
import Foundation
import Logging
import PostgresNIO
import StepSyncCore
@testable import StepSyncPostgres
import StepSyncTestSupport
import Testing

/// What the schema promises beyond round trips: migrations that never change once landed, the indexes that the
/// paging and daily-totals statements actually use, and the session settings every connection runs with.
@Suite("PostgreSQL schema, indexes and session settings",
       .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"))
struct PostgresSchemaTests {
    /// The SHA-256 of every landed migration's statements. A migration is never edited once on main: a change must
    /// be a new migration, which adds a line here.
    static let landed: [Int: String] = [
        1: "fa8d7ebadb6de81a37c3e05fedf8d4433ea3893fd16d655e9df5af6ef1c01f79",
        2: "cc3107145d9217c8d8653266876d4b358ac95574a9fda6b104f5857154380d79",
        3: "11b851499628cf645b9a2d744615bec4b6fbe2ebe2ab047dab50883dba842b6b",
        4: "3c29b4bff2bd55816eacf4dda24a2062e5eda47e8930bf43ec112f837235af07",
        5: "71b48e12791ac1a70f022f53eb56917d8a785e79b892f65da8ec97a24b15b442",
    ]

    @Test("landed migrations are never edited: each one's statements hash to the value pinned when it landed")
    func migrationsPinned() {
        #expect(PostgresSchema.migrations.map(\.version) == Array(1...PostgresSchema.latestVersion))
        for migration in PostgresSchema.migrations {
            let digest = SHA256.hash(data: Data(migration.statements.joined(separator: "\n;\n").utf8))
            let hex = digest.map { String(format: "%02x", $0) }.joined()
            #expect(Self.landed[migration.version] == hex, "migration \(migration.version) (\(migration.name)) changed")
        }
    }

    @Test("connections run synchronous_commit=on and TimeZone=UTC even when the database's defaults say otherwise")
    func sessionSettings() async throws {
        try await PostgresHarness.withDatabase { url in
            let server = try await PostgresHarness.sharedServer()
            let name = try #require(url.split(separator: "/").last?.split(separator: "?").first)
            _ = try await server.psql(
                "ALTER DATABASE \"\(name)\" SET synchronous_commit = off; ALTER DATABASE \"\(name)\" SET TimeZone = 'Asia/Tokyo'",
                url: url)
            // Another session gets the database's defaults: the setting would weaken a plain connection.
            #expect(try await server.psql("SHOW synchronous_commit", url: url) == "off\n")
            let configuration = PostgresSampleStorage.Configuration(
                url: try DatabaseURL(url), maximumConnections: 1, leaseTimeout: PostgresHarness.patientLeaseTimeout, time: .system)
            let settings = try await PostgresSampleStorage.withStorage(configuration: configuration, logger: quietLogger) {
                storage in
                try await storage.withConnection { connection in
                    var values: [String] = []
                    for setting in ["synchronous_commit", "TimeZone", "fsync"] {
                        let rows = try await connection.query(
                            PostgresQuery(unsafeSQL: "SHOW \(setting)"), logger: quietLogger)
                        for try await value in rows.decode(String.self) { values.append(value) }
                    }
                    return values
                }
            }
            #expect(settings == ["on", "UTC", "on"])
        }
    }

    @Test("paging reads through samples_client_type_start, the daily totals an index-only scan of it (and samples_long_duration), never a sequential scan")
    func statementsUseTheIndexes() async throws {
        try await withStorage { storage, url in
            // Three clients, two types, 4,000 samples each: a realistic spread for the planner's statistics.
            var owners: [Int64] = []
            for name in ["anna", "ben", "chris"] {
                let owner = try await storage.addClient(name: name, token: .random())
                owners.append(owner.id)
                var samples = stepSamples(4_000) + stepSamples(4_000, first: 10_000, type: .heartRate)
                for i in samples.indices { samples[i].uuid = UUID() }
                samples[7].endMs = samples[7].startMs + 3 * 3_600_000  // one sample over an hour
                _ = try await storage.insert(samples, client: owner.id)
            }
            let server = try await PostgresHarness.sharedServer()
            // VACUUM marks the pages all-visible, as autovacuum does after an ingest: the step spans' read is then an
            // index-only scan of the paging index, which includes its columns (migration 5).
            _ = try await server.psql("VACUUM ANALYZE samples", url: url)

            let day: Int64 = 86_400_000
            let first = stepSamples(1)[0].startMs
            let cursor = PostgresSampleStorage.PageCursor(startMs: first + 3 * day, uuid: UUID())
            let statements: [(String, PostgresQuery, [String])] = [
                ("first page", PostgresSampleStorage.pageQuery(
                    client: owners[1], type: .stepCount, after: nil, from: nil, to: nil, limit: 1_000),
                 ["samples_client_type_start"]),
                ("page after a cursor, from/to", PostgresSampleStorage.pageQuery(
                    client: owners[1], type: .heartRate, after: cursor, from: first, to: first + 10 * day, limit: 500),
                 ["samples_client_type_start"]),
                ("two days of step spans", PostgresSampleStorage.stepSpansQuery(
                    client: owners[2], overlapping: (first + day)..<(first + 3 * day)),
                 ["Index Only Scan using samples_client_type_start", "samples_long_duration"]),
            ]
            for (what, query, indexes) in statements {
                let plan = try await storage.withConnection { connection in
                    var lines: [String] = []
                    let rows = try await connection.query(
                        PostgresQuery(unsafeSQL: "EXPLAIN " + query.sql, binds: query.binds), logger: quietLogger)
                    for try await line in rows.decode(String.self) { lines.append(line) }
                    return lines.joined(separator: "\n")
                }
                #expect(!plan.contains("Seq Scan"), "\(what):\n\(plan)")
                for index in indexes {
                    #expect(plan.contains(index), "\(what) does not use \(index):\n\(plan)")
                }
            }
        }
    }

    @Test("the type probe's generic plan reads samples_client_type_start, also for a client the statistics never saw")
    func typeProbeGenericPlan() async throws {
        try await withStorage { storage, url in
            // One client holding everything: the statistics say every row is its, which made a generic plan of
            // "the first row of this client and key" a sequential scan (reading the whole table for a new client).
            let anna = try await storage.addClient(name: "anna", token: .random())
            let ben = try await storage.addClient(name: "ben", token: .random())
            var samples = stepSamples(12_000)
            for i in samples.indices { samples[i].uuid = UUID() }
            _ = try await storage.insert(samples, client: anna.id)
            let server = try await PostgresHarness.sharedServer()
            _ = try await server.psql("ANALYZE samples", url: url)
            let key = SampleTypeKey.of(.stepCount)
            for client in [anna.id, ben.id] {
                let plan = try await storage.withConnection { connection in
                    try await connection.query("SET plan_cache_mode = force_generic_plan", logger: quietLogger)
                    try await connection.query(PostgresQuery(unsafeSQL: "PREPARE probe_test(bigint[], bigint) AS "
                        + TypeProbeStatement.sql), logger: quietLogger)
                    var lines: [String] = []
                    let rows = try await connection.query(PostgresQuery(unsafeSQL:
                        "EXPLAIN EXECUTE probe_test('{\(key)}', \(client))"), logger: quietLogger)
                    for try await line in rows.decode(String.self) { lines.append(line) }
                    try await connection.query("DEALLOCATE probe_test", logger: quietLogger)
                    try await connection.query("RESET plan_cache_mode", logger: quietLogger)
                    return lines.joined(separator: "\n")
                }
                #expect(plan.contains("samples_client_type_start") && !plan.contains("Seq Scan on samples"), "\(plan)")
            }
            // And the probe answers through the prepared statement: anna holds steps, ben nothing.
            let held = try await storage.withConnection { connection in
                var answers: [Int] = []
                for client in [anna.id, ben.id] {
                    for try await (count, _) in try await connection.execute(
                        TypeProbeStatement(keys: [key], client: client), logger: quietLogger) { answers.append(count) }
                }
                return answers
            }
            #expect(held == [0, 1])
        }
    }
}
