import Foundation
import PostgresNIO
import StepSyncCore
@testable import StepSyncPostgres
import StepSyncSink
import StepSyncTestSupport
import Testing

/// Schema v3 (migration 3, issue 26) over a database that already holds rows: what was stored at v2 reads back the
/// same through every path of the storage, and exactly-once holds across the migration.
@Suite("PostgreSQL schema v3 migration of a v2 database",
       .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"))
struct PostgresMigrationTests {
    @Test("rows stored at v2 read back byte for byte after migration 3 (pages with cursors, uuids, counts, step spans, bounds), resends are duplicates, deletes and new rows work")
    func fromVersion2() async throws {
        try await PostgresHarness.withDatabase { url in
            let configuration = PostgresSampleStorage.Configuration(
                url: try DatabaseURL(url), leaseTimeout: PostgresHarness.patientLeaseTimeout, time: .system)
            try await PostgresSampleStorage.withStorage(configuration: configuration, logger: quietLogger,
                                                        migrate: false) { storage in
                #expect(try await PostgresSchema.migrate(storage.client, upTo: 2, logger: quietLogger) == [1, 2])
                let anna = try await storage.addClient(name: "anna", token: .random()).id
                let ben = try await storage.addClient(name: "ben", token: .random()).id
                let stored: [Int64: [HealthSample]] = [anna: Self.history(seed: 1), ben: Self.history(seed: 2)]
                for (client, samples) in stored { try await Self.insertAtVersion2(samples, client: client, storage) }

                let server = try await PostgresHarness.sharedServer()
                let before = try await server.psql(Self.digestOfV2Columns, url: url)
                #expect(try await PostgresSchema.migrate(storage.client, logger: quietLogger) == [3, 4, 5])
                #expect(try await PostgresSchema.migrate(storage.client, logger: quietLogger) == [])
                // Every stored value of v2's columns, as the database prints it, is the same after the rewrite.
                #expect(try await server.psql(Self.digestOfV2Columns, url: url) == before)
                #expect(try await server.psql("SELECT count(*) FROM samples", url: url)
                        == "\(stored.values.map(\.count).reduce(0, +))\n")

                for (client, samples) in stored {
                    let types = Set(samples.map(\.type))
                    #expect(try await storage.counts(client: client)
                            == Dictionary(grouping: samples, by: \.type).mapValues(\.count))
                    for type in types {
                        let expected = samples.filter { $0.type == type }.sorted(by: Self.pageOrder)
                        // Pages of 7 with cursors: page boundaries fall between samples of the same start.
                        var read: [HealthSample] = []
                        var cursor: PostgresSampleStorage.PageCursor?
                        repeat {
                            let page = try await storage.page(client: client, type: type, after: cursor, from: nil,
                                                              to: nil, limit: 7)
                            read += page.samples
                            cursor = page.next
                        } while cursor != nil
                        #expect(read.map(Self.line) == expected.map(Self.line), "\(type.rawValue)")
                        #expect(try await storage.count(client: client, type: type) == expected.count)
                        let some = expected.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
                        let byUUID = try await storage.samples(some.map(\.uuid), type: type, client: client)
                        #expect(Set(byUUID.map(Self.line)) == Set(some.map(Self.line)))
                    }
                    let steps = samples.filter { $0.type == .stepCount }
                    let low = steps.map(\.startMs).min()!, high = steps.map(\.startMs).max()!
                    let range = (low + 3 * 3_600_000)..<(low + 40 * 3_600_000)
                    let spans = try await storage.stepSpans(client: client, overlapping: range)
                    let expectedSpans = steps.filter {
                        $0.startMs < range.upperBound
                            && ($0.endMs > range.lowerBound || ($0.endMs == $0.startMs && $0.startMs >= range.lowerBound))
                    }
                    #expect(spans.map(\.startMs).sorted() == expectedSpans.map(\.startMs).sorted())
                    #expect(spans.map(\.value).reduce(0, +) == expectedSpans.map(\.value).reduce(0, +))
                    // Every type's first and last start, from the index (a type not held is left out).
                    var bounds: [SampleType: ClosedRange<Int64>] = [:]
                    for (type, ofType) in Dictionary(grouping: samples, by: \.type) {
                        bounds[type] = ofType.map(\.startMs).min()!...ofType.map(\.startMs).max()!
                    }
                    #expect(bounds[.stepCount] == low...high)
                    #expect(try await storage.startBounds(of: Array(bounds.keys) + [SampleType("HKQuantityTypeIdentifierNone")],
                                                          for: ClientIdentity(String(client))) == bounds)

                    // Exactly once across the migration: the whole history again is all duplicates.
                    let again = try await storage.insert(samples, client: client)
                    #expect(again.inserted == 0 && again.duplicates == samples.count)
                }
                // New rows beside the migrated ones, and a delete of a migrated one.
                let fresh = stepSamples(50, first: 50_000)
                let added = try await storage.insert(fresh, client: anna)
                #expect(added.inserted == 50 && added.duplicates == 0)
                let annaSteps = try #require(stored[anna]).filter { $0.type == .stepCount }
                #expect(try await storage.count(client: anna, type: .stepCount) == annaSteps.count + 50)
                let gone = try await storage.delete([annaSteps[0].uuid], type: .stepCount, client: anna)
                #expect(gone.deleted == 1 && gone.missing == 0)
                #expect(try await storage.count(client: ben, type: .stepCount)
                        == stored[ben]!.filter { $0.type == .stepCount }.count)
            }
        }
    }

    @Test("the sink's type key is the database's stepsync_type_key for every name, Unicode and empty included")
    func typeKeyMatchesTheDatabase() async throws {
        try await withStorage { storage, _ in
            let names = [SampleType.stepCount, .heartRate, .distanceWalkingRunning, .activeEnergyBurned, .sleepAnalysis,
                         .workout].map(\.rawValue) + ["", "Ä ⌚️ \u{1F3C3}", "x", String(repeating: "y", count: 300)]
            let keys = try await storage.withConnection { connection in
                var keys: [Int64] = []
                let rows = try await connection.query(
                    "SELECT stepsync_type_key(n) FROM unnest(\(names)::text[]) WITH ORDINALITY AS t(n, i) ORDER BY i",
                    logger: quietLogger)
                for try await key in rows.decode(Int64.self) { keys.append(key) }
                return keys
            }
            #expect(keys == names.map { SampleTypeKey.of($0) })
        }
    }

    @Test("without the foreign key (migration 3) what it guarded holds: a batch for an unknown client id stores nothing, and clients cannot be deleted or truncated")
    func clientsGuarded() async throws {
        try await withStorage { storage, url in
            let server = try await PostgresHarness.sharedServer()
            #expect(try await server.psql(
                "SELECT count(*) FROM pg_constraint WHERE conrelid = 'samples'::regclass AND contype = 'f'", url: url)
                == "0\n")
            let anna = try await storage.addClient(name: "anna", token: .random()).id
            let error = await #expect(throws: PostgresStorageError.self) {
                try await storage.insert(stepSamples(20), client: anna + 1_000)
            }
            #expect(error?.kind == "no_such_client")
            #expect(error?.message.contains("no client has id \(anna + 1_000)") == true)
            #expect(try await server.psql("SELECT count(*) FROM samples", url: url) == "0\n")

            let stored = try await storage.insert(stepSamples(20), client: anna)
            #expect(stored.inserted == 20)
            for statement in ["DELETE FROM clients WHERE id = \(anna)", "TRUNCATE clients CASCADE"] {
                await #expect(throws: (any Error).self, "\(statement)") {
                    _ = try await server.psql(statement, url: url)
                }
            }
            #expect(try await server.psql("SELECT count(*) FROM clients", url: url) == "1\n")
            #expect(try await server.psql("SELECT count(*) FROM samples WHERE client_id = \(anna)", url: url) == "20\n")
        }
    }

    /// The MD5 of every row of `samples` in v2's columns, as text, in primary-key order.
    static let digestOfV2Columns = """
        SELECT md5(string_agg(row(client_id, uuid, type, start_at, end_at, utc_offset_seconds, value, unit,
                                  source_name, source_bundle_id, source_version, device_name, device_model,
                                  details)::text, E'\\n' ORDER BY client_id, uuid))
        FROM samples
        """

    /// Page order: start, then uuid as PostgreSQL orders it (bytes).
    static func pageOrder(_ a: HealthSample, _ b: HealthSample) -> Bool {
        a.startMs != b.startMs ? a.startMs < b.startMs : a.uuid.bytesPrecede(b.uuid)
    }

    /// The sample's stored JSON line: the bytes the API gives back.
    static func line(_ sample: HealthSample) -> [UInt8] {
        var line: [UInt8] = []
        WireEncoder.appendStoredLine(sample, to: &line)
        return line
    }

    /// A client's history: time-ordered steps (some sharing a start, one over an hour), heart rate, and the awkward
    /// samples (COPY escapes, Unicode, the ends of the time range, details JSON).
    static func history(seed: Int) -> [HealthSample] {
        var samples = stepSamples(300, first: seed * 1_000)
        for i in stride(from: 0, to: 300, by: 10) {  // ties on start_at, for the cursor's uuid tie-breaker
            samples[i + 1].startMs = samples[i].startMs
        }
        samples[40].endMs = samples[40].startMs + 5 * 3_600_000
        samples += stepSamples(60, first: seed * 1_000 + 500, type: .heartRate)
        samples += awkwardSamples().map { sample in
            var sample = sample
            sample.uuid = fixedUUID(seed * 100_000 + Int(sample.uuid.uuid.15))
            return sample
        }
        return samples
    }

    @Test("the step count's type key is the step count's alone: a name sharing it is refused (400 invalid_type), and migration 5 refuses a database holding such a row, keeping its schema at 4")
    func stepKeyIsStepsAlone() async throws {
        let forged = "HKQuantityTypeIdentifierForged"
        let refusal = try #require(SampleTypeKey.refusal(name: forged, key: SampleTypeKey.stepCount))
        #expect(refusal.isInvalidType && refusal.message.contains(forged), "\(refusal.message)")
        #expect(SampleTypeKey.refusal(name: SampleType.stepCount.rawValue, key: SampleTypeKey.stepCount) == nil)
        #expect(SampleTypeKey.refusal(name: forged, key: SampleTypeKey.of(forged)) == nil)
        try await PostgresHarness.withDatabase { url in
            let configuration = PostgresSampleStorage.Configuration(
                url: try DatabaseURL(url), leaseTimeout: PostgresHarness.patientLeaseTimeout, time: .system)
            try await PostgresSampleStorage.withStorage(configuration: configuration, logger: quietLogger,
                                                        migrate: false) { storage in
                #expect(try await PostgresSchema.migrate(storage.client, upTo: 4, logger: quietLogger) == [1, 2, 3, 4])
                let anna = try await storage.addClient(name: "anna", token: .random()).id
                // A row that only a 2⁶⁴ search could make: another type's name under the step count's key.
                _ = try await storage.withConnection { connection in
                    try await connection.query("""
                        INSERT INTO samples (client_id, uuid, type, type_key, start_at, end_at, value, unit,
                                             source_name, source_bundle_id)
                        VALUES (\(anna), \(UUID()), \(forged), \(SampleTypeKey.stepCount), now(), now(), 1, 'count',
                                'x', 'x')
                        """, logger: quietLogger)
                }
                await #expect(throws: PostgresStorageError.self) {
                    try await PostgresSchema.migrate(storage.client, logger: quietLogger)
                }
                let server = try await PostgresHarness.sharedServer()
                #expect(try await server.psql("SELECT max(version) FROM schema_migrations", url: url) == "4\n")
                _ = try await server.psql("DELETE FROM samples", url: url)
                #expect(try await PostgresSchema.migrate(storage.client, logger: quietLogger) == [5])
            }
        }
    }

    /// Inserts rows as a v2 sink did (no `type_key` column yet).
    static func insertAtVersion2(_ samples: [HealthSample], client: Int64, _ storage: PostgresSampleStorage)
        async throws {
        try await storage.withConnection { connection in
            // One transaction: one WAL flush, not one a row (360 flushes on a loaded disk once outran the deadline).
            try await connection.query("BEGIN", logger: quietLogger)
            for s in samples {
                try await connection.query("""
                    INSERT INTO samples (client_id, uuid, type, start_at, end_at, utc_offset_seconds, value, unit,
                                         source_name, source_bundle_id, source_version, device_name, device_model,
                                         details)
                    VALUES (\(client), \(s.uuid), \(s.type.rawValue), \(PostgresInstant(milliseconds: s.startMs)),
                            \(PostgresInstant(milliseconds: s.endMs)), \(s.utcOffsetSeconds), \(s.value), \(s.unit),
                            \(s.sourceName), \(s.sourceBundleId), \(s.sourceVersion), \(s.deviceName),
                            \(s.deviceModel), \(s.details)::json)
                    """, logger: quietLogger)
            }
            try await connection.query("COMMIT", logger: quietLogger)
        }
    }
}
