import Foundation
import GRDB
import StepSyncCore

/// What one `stepsync layer` run did: its plan, type by type, with the new intervals as stored (with their ids).
public struct LayeringReport: Hashable, Sendable {
    /// The run's plan; after a commit its intervals carry their ledger ids.
    public var plan: LayeringPlan

    /// The new intervals of every type (backfill, deltas, deletions, type after type).
    public var intervals: [SyncInterval] { plan.intervals }
    /// New backfill intervals (samples after the previous run's end).
    public var appended: Int { plan.appended }
    /// New delta intervals (samples added inside already-layered ranges).
    public var deltas: Int { plan.deltas }
    /// New deletion intervals.
    public var deletionIntervals: Int { plan.deletionIntervals }
    /// Tombstones the deletion intervals carry.
    public var deletedSamples: Int { plan.deletedSamples }
    /// Statistics queries issued.
    public var queries: Int { plan.queries }
    /// The store's change sequence the run covered up to.
    public var anchor: Int64 { plan.anchor }
    /// Whether no type had changed since its previous run (nothing was written).
    public var upToDate: Bool { plan.upToDate }
    /// The plans of the types layered, by identifier.
    public var types: [TypeLayeringPlan] { plan.types }
}

extension StepStore {
    /// The `layered_end_ms` of a type that has no backfill interval yet (only deletions were layered).
    static let noBackfillEnd = Int64.min

    // MARK: - Layering runs

    /// Layers what changed since the previous run of each type and commits it in one transaction.
    ///
    /// The plan (``LayeringPlanner``) is made inside one read transaction, so every type is seen at the same anchor;
    /// the commit then refuses the run if another run committed meanwhile. With nothing changed, nothing is written.
    ///
    /// - Parameters:
    ///   - types: the types to layer; `nil` for every type the store has held.
    ///   - limits: the interval limits of each kind of type.
    @discardableResult
    public func layer(types: Set<SampleType>? = nil, limits: LayeringLimits = LayeringLimits()) throws -> LayeringReport {
        var plan = try planLayering(types: types, limits: limits)
        if plan.needsCommit { plan = try commit(plan) }
        return LayeringReport(plan: plan)
    }

    /// Layers one type with `engine`'s limits (its step limit is the type's sum limit) and commits it.
    @discardableResult
    public func layer(type: SampleType = .stepCount, engine: LayeringEngine) throws -> LayeringReport {
        var limits = LayeringLimits(maxSteps: type == .stepCount ? engine.maxSteps : 10_000, maxSamples: engine.maxSamples)
        if type != .stepCount, engine.maxSteps.isFinite {
            limits = LayeringLimits(maxSteps: limits.maxSteps, maxSamples: engine.maxSamples, maxSums: [type: engine.maxSteps])
        }
        return try layer(types: [type], limits: limits)
    }

    /// Plans a layering run without writing anything: what ``layer(types:limits:)`` would commit.
    public func planLayering(types: Set<SampleType>? = nil, limits: LayeringLimits = LayeringLimits()) throws -> LayeringPlan {
        try dbWriter.read { db in
            let snapshot = try StoreLayeringSnapshot(db: db)
            return try LayeringPlanner(limits: limits).plan(
                types: types.map { Array($0) } ?? snapshot.types, previous: try Self.layerStates(db), in: snapshot)
        }
    }

    /// Commits a plan in one transaction: each type's intervals (backfill continuing the ledger, deltas, deletions)
    /// and its new state. If any type's state is no longer the one the plan was made against (another run committed
    /// meanwhile), nothing is written.
    ///
    /// - Returns: the plan, its intervals with their ledger ids.
    /// - Throws: ``StoreError`` when the ledger moved, or the intervals would not continue it.
    @discardableResult
    public func commit(_ plan: LayeringPlan) throws -> LayeringPlan {
        try dbWriter.write { db in
            var committed = plan
            let states = try Self.layerStates(db)
            for index in committed.types.indices where committed.types[index].needsCommit {
                let typePlan = committed.types[index]
                guard states[typePlan.type] == typePlan.previous else {
                    throw StoreError.intervalsNotContiguous(
                        "another layering run committed meanwhile; run `stepsync layer` again")
                }
                let typeId = try Self.typeId(of: typePlan.type, in: db, create: true)!
                let backfillEnd = try Int64.fetchOne(db, sql: """
                    SELECT MAX(end_ms) FROM sync_interval WHERE type_id = ? AND seq_after = 0 AND kind = 'samples'
                    """, arguments: [typeId])
                committed.types[index].intervals = try Self.insertIntervals(typePlan.intervals, typeId: typeId,
                                                                            continuing: backfillEnd, in: db)
                if let state = typePlan.state {
                    try db.execute(sql: """
                        INSERT INTO layer_state (type_id, anchor, layered_end_ms) VALUES (?, ?, ?)
                        ON CONFLICT(type_id) DO UPDATE SET anchor = excluded.anchor, layered_end_ms = excluded.layered_end_ms
                        """, arguments: [typeId, state.anchor, state.layeredEndMs ?? Self.noBackfillEnd])
                }
            }
            return committed
        }
    }

    /// Commits one type's intervals and state, as a plan of its own (see ``commit(_:)``).
    @discardableResult
    public func commitLayering(
        type: SampleType, intervals: [SyncInterval], state: LayerState, expectedPrevious: LayerState?
    ) throws -> [SyncInterval] {
        let plan = LayeringPlan(anchor: state.anchor, types: [
            TypeLayeringPlan(type: type, previous: expectedPrevious, state: state, intervals: intervals),
        ])
        return try commit(plan).intervals
    }

    // MARK: - Layering state

    /// What the layering runs of `type` have covered, or `nil` before the first run (and after a reset).
    public func layerState(of type: SampleType = .stepCount) throws -> LayerState? {
        try dbWriter.read { db in try Self.layerStates(db)[type] }
    }

    static func layerStates(_ db: Database) throws -> [SampleType: LayerState] {
        var states: [SampleType: LayerState] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT t.identifier, s.anchor, s.layered_end_ms FROM layer_state s JOIN sample_type t ON t.id = s.type_id
            """) {
            let end: Int64 = row[2]
            states[SampleType(row[0] as String)] = LayerState(anchor: row[1], layeredEndMs: end == noBackfillEnd ? nil : end)
        }
        return states
    }
}
