import Foundation
import GRDB
import StepSyncCore
@testable import StepSyncStore
import Testing
import StepSyncTestSupport

@Suite("Migrating an existing store forward")
struct StoreMigrationTests {
    static let v4 = "v4: index of samples longer than an hour"
    static let v5 = "v5: tombstone acknowledgements"
    static let v6 = "v6: hourly rollup"

    /// A store as main's stepsync left it (migrations v1–v4 only): three step samples, two deleted ones (tombstones 4
    /// and 5), a synced backfill interval, a deletions interval for tombstone 4 synced at 1,234 ms and one for
    /// tombstone 5 still pending, the layering state, and one rejected sample.
    static func makeV4Store(at path: String) throws -> (alive: [UUID], deleted: [UUID]) {
        let queue = try DatabaseQueue(path: path)
        try StepStore.migrator.migrate(queue, upTo: v4)
        let alive = (0..<3).map { _ in UUID() }, deleted = (0..<2).map { _ in UUID() }
        let t = StoreTestData.origin
        try queue.write { db in
            try db.execute(sql: "INSERT INTO sample_type (id, identifier) VALUES (1, ?)", arguments: [SampleType.stepCount.rawValue])
            for (i, uuid) in alive.enumerated() {
                try db.execute(sql: """
                    INSERT INTO sample (seq, uuid, type_id, start_ms, end_ms, utc_offset, value, unit, source_name,
                        source_bundle_id) VALUES (?, ?, 1, ?, ?, 3600, ?, 'count', 'iPhone', 'com.apple.health')
                    """, arguments: [i + 1, uuid, t + Int64(i) * 60_000, t + Int64(i) * 60_000 + 30_000, 100 * (i + 1)])
            }
            for (i, uuid) in deleted.enumerated() {
                try db.execute(sql: "INSERT INTO tombstone (seq, uuid, type_id, start_ms) VALUES (?, ?, 1, ?)",
                               arguments: [4 + i, uuid, t + 3_600_000])
            }
            try db.execute(sql: """
                UPDATE store_state SET change_seq = 5;
                INSERT INTO sync_interval (id, type_id, start_ms, end_ms, kind, seq_after, seq_through, steps, samples,
                    status, attempts, synced_at_ms) VALUES (1, 1, \(t), \(t + 3_600_000), 'samples', 0, 3, 600, 3, 'synced', 1, 999);
                INSERT INTO sync_interval (id, type_id, start_ms, end_ms, kind, seq_after, seq_through, steps, samples,
                    status, attempts, synced_at_ms) VALUES (2, 1, \(t), \(t + 3_600_001), 'deletions', 3, 4, 0, 1, 'synced', 1, 1234);
                INSERT INTO sync_interval (id, type_id, start_ms, end_ms, kind, seq_after, seq_through, steps, samples,
                    status, attempts) VALUES (3, 1, \(t), \(t + 3_600_001), 'deletions', 4, 5, 0, 1, 'pending', 0);
                INSERT INTO layer_state (type_id, anchor, layered_end_ms) VALUES (1, 5, \(t + 3_600_000));
                """)
            try db.execute(sql: """
                INSERT INTO rejected_sample (uuid, type_id, reason, field, detail, interval_id, found_by, rejected_at_ms)
                VALUES (?, 1, 'negative_value', 'value', 'value -3 is negative', 1, 'engine', 1000)
                """, arguments: [UUID()])
        }
        #expect(try queue.read { try StepStore.migrator.appliedIdentifiers($0) }.contains(v5) == false)
        try queue.close()
        return (alive, deleted)
    }

    @Test("a new store has 8 KiB pages; a store made with 4 KiB pages keeps them, migrates and takes a bulk load")
    func pageSizes() throws {
        let dir = try TemporaryDirectory()
        func pageSize(_ path: String) throws -> Int? {
            try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") }
        }
        _ = try StepStore(path: dir.file("new.sqlite"))
        #expect(try pageSize(dir.file("new.sqlite")) == 8192)
        let old = dir.file("old.sqlite")
        let (alive, _) = try Self.makeV4Store(at: old)
        #expect(try pageSize(old) == 4096)
        let store = try StepStore(path: old)
        let samples = SampleInserterTests.samples(seed: 21)
        let summary = try store.insertSamples(bulkLoad: .standard) { inserter in try inserter.insert(contentsOf: samples) }.1
        #expect(summary.inserted == Set(samples.map(\.uuid)).count)
        #expect(try pageSize(old) == 4096)
        let (count, check) = try DatabaseQueue(path: old).read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM sample"), try String.fetchOne(db, sql: "PRAGMA integrity_check"))
        }
        #expect(count == alive.count + summary.inserted)
        #expect(check == "ok")
    }

    @Test("a store made with only v1–v4 opens: v5 and v6 apply, samples, ledger, rejected samples survive, the rollup is filled, and only the unacknowledged deletion is owed after reset")
    func v4StoreMigratesForward() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("health.sqlite")
        let (alive, deleted) = try Self.makeV4Store(at: path)

        let store = try StepStore(path: path)
        let queue = try DatabaseQueue(path: path)
        let applied = try queue.read { try StepStore.migrator.appliedIdentifiers($0) }
        #expect(applied.contains(Self.v4) && applied.contains(Self.v5) && applied.contains(Self.v6))
        #expect(try queue.read { try StepStore.migrator.hasCompletedMigrations($0) })

        // The data survived.
        let total = try store.total(of: .stepCount, in: LayeringEngine.domain)
        #expect(total.count == 3 && total.sum == 600)
        #expect(try store.changeSequence() == 5)
        #expect(try store.intervals(of: .stepCount).map(\.id) == [1, 2, 3])
        #expect(try store.intervalSummary(of: .stepCount).syncedSamples == 3)
        #expect(try store.rejectedCounts() == [.stepCount: 1])
        #expect(try store.rejectedSamples().first?.reason == "negative_value")
        #expect(try store.layerState(of: .stepCount)?.anchor == 5)

        // v6 filled the hourly rollup from the samples already there: whole hours read from it give their sums.
        let hour = LayeringEngine.floorMultiple(StoreTestData.origin, of: Milliseconds.hour)
        let byHour = try store.statistics(of: .stepCount, in: TimeRange(start: hour, end: hour + Milliseconds.day),
                                          bucketMs: Milliseconds.hour)
        #expect(byHour == [StatisticsBucket(start: hour, sum: 600, count: 3)])
        let rollup = try queue.read { db in try Row.fetchAll(db, sql: "SELECT hour, sum, count FROM sample_hour") }
        #expect(rollup.map { [$0[0] as Int64, Int64($0[1] as Double), $0[2] as Int64] } == [[hour / Milliseconds.hour, 600, 3]])

        // v5 marked the tombstone whose deletions interval was synced, with that interval's time, and only it.
        let acknowledged = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT uuid, acknowledged_at_ms FROM tombstone ORDER BY seq").map {
                ($0[0] as UUID, $0[1] as Int64?)
            }
        }
        try queue.close()
        #expect(acknowledged.map(\.0) == deleted)
        #expect(acknowledged.map(\.1) == [1_234, nil])

        // After reset, layering owes the sink the one deletion it never acknowledged, and every live sample.
        try store.deleteIntervals()
        let report = try store.layer()
        #expect(report.deletedSamples == 1 && report.deletionIntervals == 1)
        #expect(report.intervals.filter { $0.kind == .samples }.reduce(0) { $0 + $1.samples } == alive.count)
        let owed = try store.tombstones(of: .stepCount, seqAfter: 0, seqThrough: 5, limit: 10).map(\.uuid)
        #expect(owed == [deleted[1]])
    }
}
