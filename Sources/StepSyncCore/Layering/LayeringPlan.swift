/// What one layering run will add to the ledger of one sample type, and the state to record with it.
public struct TypeLayeringPlan: Hashable, Sendable {
    /// The sample type.
    public var type: SampleType
    /// The state the plan was made against (`nil` before the type's first run); a commit refuses the plan when the
    /// ledger's state no longer matches it.
    public var previous: LayerState?
    /// The state to record, or `nil` to record nothing (a type with nothing to layer on its first run).
    public var state: LayerState?
    /// The new intervals, in this order: backfill (continuing the ledger), deltas, deletions.
    public var intervals: [SyncInterval]
    /// New backfill intervals (the whole history on a first run, else samples after the ledger's end).
    public var appended: Int
    /// New delta intervals (samples added inside already-layered ranges).
    public var deltas: Int
    /// New deletion intervals.
    public var deletionIntervals: Int
    /// Tombstones the deletion intervals carry.
    public var deletedSamples: Int
    /// Statistics queries issued.
    public var queries: Int
    /// Whether nothing changed for this type since its previous run (nothing was even queried).
    public var upToDate: Bool

    /// Creates a plan.
    public init(type: SampleType, previous: LayerState?, state: LayerState?, intervals: [SyncInterval] = [],
                appended: Int = 0, deltas: Int = 0, deletionIntervals: Int = 0, deletedSamples: Int = 0,
                queries: Int = 0, upToDate: Bool = false) {
        self.type = type
        self.previous = previous
        self.state = state
        self.intervals = intervals
        self.appended = appended
        self.deltas = deltas
        self.deletionIntervals = deletionIntervals
        self.deletedSamples = deletedSamples
        self.queries = queries
        self.upToDate = upToDate
    }

    /// Whether committing the plan writes anything (new intervals, or a state that moved).
    public var needsCommit: Bool { !intervals.isEmpty || (state != nil && state != previous) }

    /// The new intervals that send samples (backfill and deltas).
    public var sampleIntervals: [SyncInterval] { intervals.filter { $0.kind == .samples } }
}

/// What one layering run will add to the ledger, type by type, at one anchor.
public struct LayeringPlan: Hashable, Sendable {
    /// The store's change sequence the run covers.
    public var anchor: Int64
    /// One plan per type layered, ordered by type identifier.
    public var types: [TypeLayeringPlan]

    /// Creates a plan.
    public init(anchor: Int64, types: [TypeLayeringPlan]) {
        self.anchor = anchor
        self.types = types
    }

    /// Every new interval, type after type.
    public var intervals: [SyncInterval] { types.flatMap(\.intervals) }
    /// New backfill intervals of every type.
    public var appended: Int { types.reduce(0) { $0 + $1.appended } }
    /// New delta intervals of every type.
    public var deltas: Int { types.reduce(0) { $0 + $1.deltas } }
    /// New deletion intervals of every type.
    public var deletionIntervals: Int { types.reduce(0) { $0 + $1.deletionIntervals } }
    /// Tombstones the new deletion intervals carry.
    public var deletedSamples: Int { types.reduce(0) { $0 + $1.deletedSamples } }
    /// Statistics queries issued for every type.
    public var queries: Int { types.reduce(0) { $0 + $1.queries } }
    /// Whether no type changed since its previous run.
    public var upToDate: Bool { types.allSatisfy(\.upToDate) }
    /// Whether committing the plan writes anything.
    public var needsCommit: Bool { types.contains(where: \.needsCommit) }

    /// The plan of `type`, if it was layered.
    public subscript(type: SampleType) -> TypeLayeringPlan? { types.first { $0.type == type } }
}
