import Foundation
import GRDB
import StepSyncCore

/// How many samples an insert added, and how many it skipped because their uuid was already stored.
public struct InsertSummary: Hashable, Sendable {
    /// Samples written.
    public var inserted: Int
    /// Samples skipped: their uuid was already in the store.
    public var duplicates: Int
    /// The sum of the values of the inserted step-count samples.
    public var insertedSteps: Double

    /// Creates a summary.
    public init(inserted: Int = 0, duplicates: Int = 0, insertedSteps: Double = 0) {
        self.inserted = inserted
        self.duplicates = duplicates
        self.insertedSteps = insertedSteps
    }
}

/// Inserts samples one at a time inside a single write transaction (see ``StepStore/insertSamples(_:)``).
///
/// It holds one prepared statement and a cache of type ids, and assigns each new sample the next change sequence.
/// A sample whose uuid is already stored is skipped and counted as a duplicate.
public struct SampleInserter {
    private let db: Database
    private let statement: Statement
    private var typeIds: [SampleType: (id: Int64, kind: SampleKind)] = [:]
    private var seq: Int64
    /// What this inserter has done so far.
    public private(set) var summary = InsertSummary()

    init(db: Database) throws {
        self.db = db
        self.seq = try StepStore.currentSequence(db)
        self.statement = try db.makeStatement(sql: """
            INSERT OR IGNORE INTO sample (seq, uuid, type_id, start_ms, end_ms, utc_offset, value, unit,
                source_name, source_bundle_id, source_version, device_name, device_model, details)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
    }

    /// Inserts `sample` unless its uuid is already stored. Returns whether it was inserted.
    ///
    /// - Throws: ``StoreError/invalidSample(_:)`` naming the sample and its ``SampleProblem`` when it fails
    ///   ``SampleValidation`` (the store never holds a sample the sink would refuse).
    @discardableResult
    public mutating func insert(_ sample: HealthSample) throws -> Bool {
        let (typeId, kind) = try typeInfo(of: sample.type)
        if let problem = SampleValidation.problem(of: sample, kind: kind) {
            throw StoreError.invalidSample("uuid \(sample.uuid) (\(sample.type.shortName)): \(problem)")
        }
        seq += 1
        statement.setUncheckedArguments([
            seq, sample.uuid, typeId, sample.startMs, sample.endMs, sample.utcOffsetSeconds.map { Int64($0) },
            sample.value, sample.unit, sample.sourceName, sample.sourceBundleId, sample.sourceVersion,
            sample.deviceName, sample.deviceModel, sample.details,
        ])
        try statement.execute()
        if db.changesCount == 1 {
            summary.inserted += 1
            if sample.type == .stepCount { summary.insertedSteps += sample.value }
            return true
        } else {
            seq -= 1
            summary.duplicates += 1
            return false
        }
    }

    /// The type's id (created on first use) and kind, cached for the transaction.
    private mutating func typeInfo(of type: SampleType) throws -> (id: Int64, kind: SampleKind) {
        if let info = typeIds[type] { return info }
        if let problem = SampleValidation.typeProblem(type) {
            throw StoreError.invalidSample("type: \(problem)")
        }
        let info = (try StepStore.typeId(of: type, in: db, create: true)!, type.kind)
        typeIds[type] = info
        return info
    }

    /// Writes the advanced change sequence back; called once at the end of the transaction.
    func finish() throws -> InsertSummary {
        try db.execute(sql: "UPDATE store_state SET change_seq = ? WHERE id = 1", arguments: [seq])
        return summary
    }
}

extension StepStore {
    /// Runs `body` in one write transaction with a ``SampleInserter``: everything it inserts commits together, or,
    /// if `body` throws, nothing does. This is how an import stays all-or-nothing.
    public func insertSamples<T>(_ body: (inout SampleInserter) throws -> T) throws -> (T, InsertSummary) {
        try dbWriter.writeWithoutTransaction { db in
            var result: (T, InsertSummary)?
            try db.inTransaction(.immediate) {
                var inserter = try SampleInserter(db: db)
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
