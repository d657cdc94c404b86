import Foundation
import StepSyncCore
@testable import StepSyncPostgres
import StepSyncTestSupport
import Testing

/// The PostgreSQL storage on a real server: schema, exact round trips, de-duplication by the unique key.
// The time limit names a test that hangs in the run's output (a run hung with "sixteen concurrent overlapping
// batches" the one test left unfinished; Planning/postgres.md, "The pool's own end is bounded").
@Suite("PostgreSQL storage", .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"),
       .timeLimit(.minutes(10)))
struct PostgresStorageTests {
    @Test("migrations: the first start applies versions 1 to 5, a second applies nothing")
    func migrationsOnce() async throws {
        try await withStorage { storage, url in
            #expect(try await storage.migrate() == [])
            let server = try await PostgresHarness.sharedServer()
            let recorded = try await server.psql("SELECT version, name FROM schema_migrations ORDER BY version", url: url)
            #expect(recorded == "1|clients and samples\n2|index of samples longer than an hour\n"
                    + "3|type keys in the indexes, no uuid tie-breaker, no per-row client check\n"
                    + "4|the database's sink identity\n5|the paging index covers the daily totals\n")
        }
    }

    @Test("eight sinks starting at once on an empty database: the schema is built exactly once")
    func concurrentMigrations() async throws {
        try await PostgresHarness.withDatabase { url in
            let configuration = PostgresSampleStorage.Configuration(url: try DatabaseURL(url), maximumConnections: 2,
                                                                    leaseTimeout: PostgresHarness.patientLeaseTimeout, time: .system)
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await PostgresSampleStorage.withStorage(configuration: configuration, logger: quietLogger,
                                                                    migrate: false) { try await $0.migrate() }
                    }
                }
                return try await group.reduce(into: [[Int]]()) { $0.append($1) }
            }
            #expect(applied.filter { $0 == [1, 2, 3, 4, 5] }.count == 1)
            #expect(applied.filter(\.isEmpty).count == 7)
        }
    }

    @Test("a database whose schema is newer than this build is refused, naming both versions")
    func newerSchemaRefused() async throws {
        try await withStorage { storage, url in
            let server = try await PostgresHarness.sharedServer()
            _ = try await server.psql("INSERT INTO schema_migrations (version, name) VALUES (99, 'future')", url: url)
            let error = await #expect(throws: PostgresStorageError.self) { try await storage.migrate() }
            #expect(error?.message.contains("version 99, newer than this stepsync knows (5)") == true)
        }
    }

    @Test("every field round-trips exactly (COPY escapes, Unicode, extreme instants, nil, details verbatim)",
          arguments: PostgresSampleStorage.IngestMethod.allCases)
    func roundTrip(_ method: PostgresSampleStorage.IngestMethod) async throws {
        try await withStorage(ingest: method) { storage, _ in
            let owner = try await storage.addClient(name: "anna", token: .random())
            let samples = awkwardSamples()
            let result = try await storage.insert(samples, client: owner.id)
            #expect(result.inserted == 4 && result.duplicates == 0)
            var read: [HealthSample] = []
            for type in [SampleType.heartRate, .workout] {
                let page = try await storage.page(client: owner.id, type: type, after: nil, from: nil, to: nil, limit: 100)
                #expect(page.next == nil)
                read += page.samples
            }
            #expect(Set(read) == Set(samples))
        }
    }

    @Test("values and instants in the COPY's short forms (integer digits, `+00`, no zero milliseconds) read back bit for bit",
          arguments: PostgresSampleStorage.IngestMethod.allCases)
    func shortFormsRoundTrip(_ method: PostgresSampleStorage.IngestMethod) async throws {
        let values: [Double] = [0, -0.0, 1, -5, 123, 12.5, 0.1, -1.5, 9_007_199_254_740_991, -9_007_199_254_740_991,
                                9_007_199_254_740_992, 9_007_199_254_740_994, 1e300, -1e-300, 1e15 + 0.5]
        let instants: [Int64] = [Instants.min, Instants.min + 1, -62_135_596_799_000, -86_400_001, -1_000, -1, 0, 1, 999,
                                 1_000, 951_782_400_000, 1_700_000_000_123, Instants.max - 999, Instants.max]
        let samples = values.indices.map { i in
            HealthSample(uuid: fixedUUID(9100 + i), type: .heartRate, startMs: instants[i % instants.count],
                         endMs: instants[(i + 3) % instants.count] < instants[i % instants.count]
                             ? instants[i % instants.count] : instants[(i + 3) % instants.count],
                         value: values[i], unit: "count/min", sourceName: "s", sourceBundleId: "b")
        } + instants.indices.map { i in
            HealthSample(uuid: fixedUUID(9200 + i), type: .heartRate, startMs: instants[i], endMs: instants[i],
                         value: Double(i), unit: "count/min", sourceName: "s", sourceBundleId: "b")
        }
        try await withStorage(ingest: method) { storage, _ in
            let owner = try await storage.addClient(name: "anna", token: .random())
            let result = try await storage.insert(samples, client: owner.id)
            #expect(result.inserted == samples.count && result.duplicates == 0)
            let page = try await storage.page(client: owner.id, type: .heartRate, after: nil, from: nil, to: nil, limit: 100)
            let read = Dictionary(uniqueKeysWithValues: page.samples.map { ($0.uuid, $0) })
            #expect(read.count == samples.count)
            for sample in samples {
                let back = try #require(read[sample.uuid])
                #expect(back == sample)
                #expect(back.value.bitPattern == sample.value.bitPattern, "\(sample.value)")
            }
            // A half-open bound just past the last instant keeps the samples that start at it (query bounds are not
            // clamped to the stored range).
            let edge = try await storage.page(client: owner.id, type: .heartRate, after: nil, from: Instants.max - 999,
                                              to: Instants.max + 1, limit: 100)
            let atEdge = Set(samples.filter { $0.startMs >= Instants.max - 999 }.map(\.uuid))
            #expect(atEdge.count >= 2)
            #expect(Set(edge.samples.map(\.uuid)) == atEdge)
        }
    }

    @Test("a batch repeated, overlapping and with a uuid twice: inserted and duplicates are exact",
          arguments: PostgresSampleStorage.IngestMethod.allCases)
    func duplicates(_ method: PostgresSampleStorage.IngestMethod) async throws {
        try await withStorage(ingest: method) { storage, url in
            let owner = try await storage.addClient(name: "anna", token: .random())
            let first = try await storage.insert(stepSamples(1_500), client: owner.id)
            #expect(first.inserted == 1_500 && first.duplicates == 0)
            let again = try await storage.insert(stepSamples(1_500), client: owner.id)
            #expect(again.inserted == 0 && again.duplicates == 1_500)
            let overlap = try await storage.insert(stepSamples(1_000, first: 1_000) + stepSamples(1, first: 2_400),
                                                   client: owner.id)
            #expect(overlap.inserted == 501 && overlap.duplicates == 500)
            let server = try await PostgresHarness.sharedServer()
            #expect(try await server.psql("SELECT count(*), count(DISTINCT uuid) FROM samples", url: url) == "2001|2001\n")
        }
    }

    @Test("sixteen concurrent overlapping batches (both ingest paths at once) store each uuid once",
          arguments: PostgresSampleStorage.IngestMethod.allCases)
    func concurrentOverlap(_ method: PostgresSampleStorage.IngestMethod) async throws {
        try await withStorage(ingest: method) { storage, url in
            let owner = try await storage.addClient(name: "anna", token: .random())
            // Batch b holds uuids b*300 ..< b*300+900: each uuid is in up to three batches; reversed order in odd
            // batches so that lock order would differ if the storage did not sort.
            let results = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for b in 0..<16 {
                    group.addTask {
                        let batch = stepSamples(900, first: b * 300)
                        return try await storage.insert(b % 2 == 0 ? batch : batch.reversed(), client: owner.id)
                    }
                }
                return try await group.reduce(into: [(Int, Int)]()) { $0.append($1) }
            }
            let distinct = 15 * 300 + 900
            #expect(results.map(\.0).reduce(0, +) == distinct)
            #expect(results.map(\.1).reduce(0, +) == 16 * 900 - distinct)
            let server = try await PostgresHarness.sharedServer()
            #expect(try await server.psql("SELECT count(*), count(DISTINCT uuid) FROM samples", url: url)
                    == "\(distinct)|\(distinct)\n")
        }
    }

    @Test("pages by type in (start, uuid) order, with from/to half-open on the start, never mixing types or clients")
    func paging() async throws {
        try await withStorage { storage, _ in
            let anna = try await storage.addClient(name: "anna", token: .random())
            let ben = try await storage.addClient(name: "ben", token: .random())
            let steps = stepSamples(95)
            _ = try await storage.insert(steps + stepSamples(20, first: 500, type: .heartRate), client: anna.id)
            _ = try await storage.insert(stepSamples(30, first: 1_000), client: ben.id)
            var cursor: PostgresSampleStorage.PageCursor?
            var read: [HealthSample] = []
            var pages = 0
            repeat {
                let page = try await storage.page(client: anna.id, type: .stepCount, after: cursor, from: nil, to: nil,
                                                  limit: 10)
                read += page.samples
                cursor = page.next
                pages += 1
            } while cursor != nil
            #expect(pages == 10)
            #expect(read == steps.sorted { ($0.startMs, $0.uuid.uuidString) < ($1.startMs, $1.uuid.uuidString) })
            let from = steps[10].startMs, to = steps[20].startMs
            let window = try await storage.page(client: anna.id, type: .stepCount, after: nil, from: from, to: to, limit: 100)
            #expect(window.samples.map(\.uuid) == steps[10..<20].map(\.uuid))
            #expect(try await storage.counts(client: anna.id) == [.stepCount: 95, .heartRate: 20])
            #expect(try await storage.counts(client: ben.id) == [.stepCount: 30])
        }
    }

    @Test("the same uuid under two clients is two samples; deleting one client's leaves the other's")
    func uuidPerClient() async throws {
        try await withStorage { storage, _ in
            let anna = try await storage.addClient(name: "anna", token: .random())
            let ben = try await storage.addClient(name: "ben", token: .random())
            let shared = stepSamples(10)
            #expect(try await storage.insert(shared, client: anna.id).inserted == 10)
            #expect(try await storage.insert(shared, client: ben.id).inserted == 10)
            let deleted = try await storage.delete(shared.prefix(4).map(\.uuid) + [fixedUUID(777), fixedUUID(0)],
                                                   type: .stepCount, client: anna.id)
            #expect(deleted.deleted == 4 && deleted.missing == 1)
            #expect(try await storage.counts(client: anna.id) == [.stepCount: 6])
            #expect(try await storage.counts(client: ben.id) == [.stepCount: 10])
            #expect(try await storage.clear(client: ben.id, types: nil) == 10)
            #expect(try await storage.counts(client: anna.id) == [.stepCount: 6])
        }
    }

    @Test("a failed COPY (U+0000, which PostgreSQL text refuses) rolls back whole; the next batch on that connection is stored",
          arguments: PostgresSampleStorage.IngestMethod.allCases)
    func failedBatchRollsBack(_ method: PostgresSampleStorage.IngestMethod) async throws {
        try await PostgresHarness.withDatabase { url in
            let configuration = PostgresSampleStorage.Configuration(url: try DatabaseURL(url), maximumConnections: 1,
                                                                    ingest: method,
                                                                    leaseTimeout: PostgresHarness.patientLeaseTimeout, time: .system)
            try await PostgresSampleStorage.withStorage(configuration: configuration, logger: quietLogger) { storage in
                let owner = try await storage.addClient(name: "anna", token: .random())
                var bad = stepSamples(50)
                bad[30].sourceName = "nul\u{0}here"
                let error = await #expect(throws: PostgresStorageError.self) {
                    try await storage.insert(bad, client: owner.id)
                }
                #expect(error?.message.contains("SQLSTATE 22021") == true, "\(String(describing: error))")
                #expect(try await storage.counts(client: owner.id) == [:])
                let good = try await storage.insert(stepSamples(50), client: owner.id)
                #expect(good.inserted == 50 && good.duplicates == 0)
            }
        }
    }

    @Test("a database that does not answer: the call fails as unavailable within the lease timeout")
    func unreachable() async throws {
        let closed = try ClosedPort()
        defer { closed.release() }
        let port = closed.port
        let configuration = PostgresSampleStorage.Configuration(
            url: try DatabaseURL("postgresql://stepsync@127.0.0.1:\(port)/nothing?sslmode=disable"),
            leaseTimeout: .milliseconds(300), time: .system)
        let error = await #expect(throws: PostgresStorageError.self) {
            try await PostgresSampleStorage.withStorage(configuration: configuration, logger: quietLogger) { _ in }
        }
        #expect(error?.isUnavailable == true)
        #expect(error?.message.contains("the database is unavailable") == true)
    }
}
