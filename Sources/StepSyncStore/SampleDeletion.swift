import Foundation
import GRDB
import StepSyncCore

/// Deletes samples one uuid at a time inside a write transaction: each leaves a tombstone with the next change
/// sequence, and the hours it leaves are recomputed in the rollup by ``finish()``. Shared by
/// ``StepStore/deleteSamples(uuids:)`` and the route parts a deleted workout takes with it.
struct SampleDeletion {
    /// What was deleted (``DeleteSummary/missing`` is the caller's to count).
    var summary = DeleteSummary()
    private let db: Database
    private var seq: Int64
    private var types: [Int64: SampleType] = [:]
    private var touched: [Int64: Set<Int64>] = [:]  // type id → hours whose rollup must be recomputed
    private let find: Statement
    private let tombstone: Statement
    private let delete: Statement

    /// What one deletion removed.
    struct Deleted {
        var type: SampleType
        var startMs: Int64
        var endMs: Int64
    }

    init(_ db: Database) throws {
        self.db = db
        seq = try StepStore.currentSequence(db)
        find = try db.makeStatement(sql: "SELECT seq, type_id, start_ms, value, end_ms FROM sample WHERE uuid = ?")
        tombstone = try db.makeStatement(sql: "INSERT INTO tombstone (seq, uuid, type_id, start_ms) VALUES (?, ?, ?, ?)")
        delete = try db.makeStatement(sql: "DELETE FROM sample WHERE seq = ?")
    }

    /// Deletes the sample `uuid`, leaving its tombstone; `nil` when the store does not hold it.
    mutating func delete(_ uuid: UUID) throws -> Deleted? {
        guard let row = try Row.fetchOne(find, arguments: [uuid]) else { return nil }
        seq += 1
        let typeId: Int64 = row[1]
        let startMs: Int64 = row[2]
        try tombstone.execute(arguments: [seq, uuid, typeId, startMs])
        try delete.execute(arguments: [row[0] as Int64])
        if types[typeId] == nil {
            types[typeId] = try String.fetchOne(db, sql: "SELECT identifier FROM sample_type WHERE id = ?",
                                                arguments: [typeId]).map(SampleType.init(rawValue:))
        }
        let type = types[typeId] ?? SampleType("")
        summary.add(type, count: 1, value: row[3])
        touched[typeId, default: []].insert(StepStore.hour(of: startMs))
        return Deleted(type: type, startMs: startMs, endMs: row[4])
    }

    /// Recomputes the touched hours of the rollup and writes the advanced change sequence back.
    mutating func finish() throws -> DeleteSummary {
        for (typeId, hours) in touched {
            for hour in hours { try StepStore.recomputeRollup(db, typeId: typeId, hours: hour, through: hour) }
        }
        touched.removeAll()
        try db.execute(sql: "UPDATE store_state SET change_seq = ? WHERE id = 1", arguments: [seq])
        return summary
    }
}
