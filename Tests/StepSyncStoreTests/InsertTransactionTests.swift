import Foundation
import GRDB
import StepSyncCore
@testable import StepSyncStore
import Testing

/// ``StepStore/insertSamples(_:)`` turns SQLite's foreign-key check off for its transaction only.
@Suite("Bulk insert transaction: foreign keys")
struct InsertTransactionTests {
    static func sample(_ n: Int, type: SampleType = .stepCount) -> HealthSample {
        let start = Int64(1_700_000_000_000) + Int64(n) * 60_000
        return HealthSample(uuid: UUID(uuid: (UInt8(n), 0, 0x4B, 0, 0, 0, 0x50, 0, 0x80, 0, 0, 0, 0, 0, 0, 4)),
                            type: type, startMs: start, endMs: start + 60_000, value: Double(n), unit: "count",
                            sourceName: "Watch", sourceBundleId: "")
    }

    /// Whether the writer connection refuses a sample row whose type id is not in `sample_type`.
    static func refusesAnUnknownTypeId(_ store: StepStore) throws -> Bool {
        do {
            try store.dbWriter.write { db in
                try db.execute(sql: """
                    INSERT INTO sample (seq, uuid, type_id, start_ms, end_ms, value, unit, source_name, source_bundle_id)
                    VALUES (1000000, x'00112233445566778899AABBCCDDEEFF', 987654, 0, 1, 1, 'count', 'x', '')
                    """)
            }
            return false
        } catch let error as DatabaseError {
            return error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY
        }
    }

    @Test("after a bulk insert that commits and after one that throws, the writer enforces foreign keys again; what was inserted references only known types")
    func foreignKeysBackOn() throws {
        let dir = try TemporaryDirectory()
        let store = try StepStore(path: dir.file("health.sqlite"))
        #expect(try Self.refusesAnUnknownTypeId(store))

        let summary = try store.insert((0..<100).map { Self.sample($0, type: $0 % 2 == 0 ? .stepCount : .heartRate) })
        #expect(summary.inserted == 100)
        #expect(try store.dbWriter.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA foreign_keys") } == 1)
        #expect(try Self.refusesAnUnknownTypeId(store))
        #expect(try store.dbWriter.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }.isEmpty)

        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.insertSamples { inserter in
                try inserter.insert(Self.sample(200))
                throw Stop()
            }
        }
        #expect(try Self.refusesAnUnknownTypeId(store))
        #expect(try store.dbWriter.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sample") } == 100)
    }
}
