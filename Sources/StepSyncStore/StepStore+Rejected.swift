import Foundation
import GRDB
import StepSyncCore

extension StepStore {
    // MARK: - Schema

    /// Registers `v3: rejected samples`: the samples the sync left out because they are not valid (found by the
    /// engine's ``SampleValidation`` or named by the sink), one row per uuid.
    static func registerRejectedSamplesMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3: rejected samples") { db in
            // No foreign key to sync_interval: `reset` deletes intervals, and the record of what was left out stays.
            try db.execute(sql: """
                CREATE TABLE rejected_sample (
                    uuid BLOB PRIMARY KEY,
                    type_id INTEGER NOT NULL REFERENCES sample_type(id),
                    reason TEXT NOT NULL,
                    field TEXT,
                    detail TEXT NOT NULL,
                    interval_id INTEGER,
                    found_by TEXT NOT NULL CHECK (found_by IN ('engine', 'sink')),
                    rejected_at_ms INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX rejected_sample_time ON rejected_sample(rejected_at_ms);
                """)
        }
    }

    // MARK: - Rejected samples

    /// Records samples the sync left out (one transaction). A uuid recorded before is replaced by its newer record,
    /// so resending an interval never counts a sample twice.
    public func recordRejected(_ samples: [RejectedSample]) throws {
        guard !samples.isEmpty else { return }
        try dbWriter.write { db in
            let statement = try db.makeStatement(sql: """
                INSERT OR REPLACE INTO rejected_sample
                    (uuid, type_id, reason, field, detail, interval_id, found_by, rejected_at_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            var typeIds: [SampleType: Int64] = [:]
            for sample in samples {
                let typeId: Int64
                if let known = typeIds[sample.type] {
                    typeId = known
                } else {
                    typeId = try Self.typeId(of: sample.type, in: db, create: true)!
                    typeIds[sample.type] = typeId
                }
                try statement.execute(arguments: [
                    sample.uuid, typeId, sample.reason, sample.field, sample.detail, sample.intervalId,
                    sample.foundBy.rawValue, sample.atMs,
                ])
            }
        }
    }

    /// The rejected samples, newest first, of `type` (every type when `nil`), at most `limit`.
    public func rejectedSamples(of type: SampleType? = nil, limit: Int = 100) throws -> [RejectedSample] {
        try dbWriter.read { db in
            var sql = """
                SELECT r.uuid, t.identifier, r.reason, r.field, r.detail, r.interval_id, r.found_by, r.rejected_at_ms
                FROM rejected_sample r JOIN sample_type t ON t.id = r.type_id
                """
            var arguments: StatementArguments = []
            if let type {
                sql += " WHERE t.identifier = ?"
                arguments += [type.rawValue]
            }
            sql += " ORDER BY r.rejected_at_ms DESC, r.uuid LIMIT ?"
            arguments += [max(0, limit)]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                RejectedSample(
                    uuid: row[0], type: SampleType(row[1] as String), reason: row[2], field: row[3], detail: row[4],
                    intervalId: row[5], foundBy: RejectedSample.Finder(rawValue: row[6]) ?? .engine, atMs: row[7])
            }
        }
    }

    /// How many samples are recorded as rejected, per type (types with none are absent).
    public func rejectedCounts() throws -> [SampleType: Int] {
        try rejectedCountsByReason().mapValues { $0.values.reduce(0, +) }
    }

    /// How many samples are recorded as rejected, per type and reason key (`negative_value`, `end_before_start`, …):
    /// what `stepsync status` shows. Types with none are absent.
    public func rejectedCountsByReason() throws -> [SampleType: [String: Int]] {
        try dbWriter.read { db in
            var counts: [SampleType: [String: Int]] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT t.identifier, r.reason, COUNT(*) FROM rejected_sample r JOIN sample_type t ON t.id = r.type_id
                GROUP BY r.type_id, r.reason
                """) {
                counts[SampleType(row[0] as String), default: [:]][row[1] as String] = row[2]
            }
            return counts
        }
    }
}
