import Foundation
import GRDB
import StepSyncCore

extension StepStore {
    /// Runs `body` in one write transaction with a ``SampleInserter``: everything it inserts commits together, or,
    /// if `body` throws, nothing does. This is how an import stays all-or-nothing.
    ///
    /// - Parameter bulkLoad: when given and the store holds few samples, load without the sample table's indexes and
    ///   build them at the end (see ``BulkLoad``), through a rollback journal when no other connection has the store
    ///   open (see `BulkJournal`); the store left behind is the same either way.
    /// - Parameter deletedSamples: what to do with a sample deleted from the store earlier (``DeletedSamples``).
    public func insertSamples<T>(bulkLoad: BulkLoad? = nil, deletedSamples: DeletedSamples = .remember,
                                 _ body: (inout SampleInserter) throws -> T) throws -> (T, InsertSummary) {
        try dbWriter.writeWithoutTransaction { db in
            let journal = try bulkLoad.map { try BulkJournal.enter(db, policy: $0) } ?? nil
            defer { journal?.leave(db) }
            // A bulk load checks no foreign key row by row: the inserter binds only type ids it read or created in
            // `sample_type` in this very transaction (`typeInfo(of:)`), so the check cannot fail, and it cost a
            // cursor on `sample_type` and a seek per row (5 % of the writer's CPU in an import). It can only be
            // switched outside a transaction; it is on again before this returns.
            let checksForeignKeys = bulkLoad != nil ? try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false : false
            if checksForeignKeys { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
            defer { if checksForeignKeys { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
            var result: (T, InsertSummary)?
            // Through the rollback journal the transaction takes the file's exclusive lock at its start (held by
            // `locking_mode = EXCLUSIVE` to its end), so no spill or commit of the load waits on a reader.
            try db.inTransaction(journal != nil ? .exclusive : .immediate) {
                var inserter = try SampleInserter(db: db, bulkLoad: bulkLoad, rollbackJournal: journal != nil,
                                                  deletedSamples: deletedSamples)
                let value = try body(&inserter)
                result = (value, try inserter.finish())
                return .commit
            }
            return result!
        }
    }

    /// Inserts `samples` in one transaction, skipping those whose uuid is already stored.
    @discardableResult
    public func insert(_ samples: some Sequence<HealthSample>) throws -> InsertSummary {
        try insertSamples { inserter in
            for sample in samples { try inserter.insert(sample) }
        }.1
    }

    /// The id of a sample type, optionally creating it. `nil` when it is unknown and `create` is false.
    static func typeId(of type: SampleType, in db: Database, create: Bool) throws -> Int64? {
        let select = try db.cachedStatement(sql: "SELECT id FROM sample_type WHERE identifier = ?")
        if let id = try Int64.fetchOne(select, arguments: [type.rawValue]) {
            return id
        }
        guard create else { return nil }
        try db.execute(sql: "INSERT INTO sample_type (identifier) VALUES (?)", arguments: [type.rawValue])
        return db.lastInsertedRowID
    }
}
