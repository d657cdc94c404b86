import StepSyncCore
import StepSyncStore

extension StepSyncCommand.Layer {
    /// `layer --json` (`docs/json/layer.schema.json`): the run's intervals and figures, and each type's part.
    struct JSONReport: Encodable {
        var intervals: Int
        var totalIntervals: Int
        var appended: Int
        var deltas: Int
        var deletionIntervals: Int
        var deletedSamples: Int
        var steps: Double
        var samples: Int
        var oversize: Int
        var queries: Int
        var seconds: Double
        var maxSteps: Int
        var maxSamples: Int
        var lowerBound: Int
        var anchor: Int64
        var upToDate: Bool
        var types: [String: TypeReport]
        /// The largest step interval's steps, when there are step intervals.
        var largestSteps: Double?
        /// The first start and the last end of the sample intervals laid, when there are any.
        var start: String?
        var end: String?
    }

    /// One type's part of ``JSONReport``: counts, and the sum where the type's values add up (`steps` for step
    /// counts, `sum` for the other cumulative types).
    struct TypeReport: Encodable {
        var kind: String
        var intervals: Int
        var appended: Int
        var deltas: Int
        var deletionIntervals: Int
        var deletedSamples: Int
        var samples: Int
        var oversize: Int
        var queries: Int
        var upToDate: Bool
        var steps: Double?
        var sum: Double?

        init(_ plan: TypeLayeringPlan) {
            let intervals = plan.sampleIntervals
            kind = plan.type.kind.rawValue
            self.intervals = plan.intervals.count
            appended = plan.appended
            deltas = plan.deltas
            deletionIntervals = plan.deletionIntervals
            deletedSamples = plan.deletedSamples
            samples = intervals.reduce(0) { $0 + $1.samples }
            oversize = intervals.filter(\.oversize).count
            queries = plan.queries
            upToDate = plan.upToDate
            let total = intervals.reduce(0.0) { $0 + $1.steps }
            if plan.type == .stepCount { steps = total } else if plan.type.kind == .cumulative { sum = total }
        }
    }
}
