import StepSyncCore
import StepSyncStore

extension StepSyncCommand.Layer {
    /// `layer --json` (`docs/json/layer.schema.json`): the run's intervals and figures, and each type's part.
    struct JSONReport: Encodable {
        var intervals, totalIntervals, appended, deltas, deletionIntervals, deletedSamples: Int
        var samples, oversize, queries, maxSteps, maxSamples, lowerBound: Int
        var steps, seconds: Double
        var anchor: Int64
        var upToDate: Bool
        var types: [String: TypeReport]
        /// The largest step interval's steps, when there are step intervals.
        var largestSteps: Double?
        /// The first start and the last end of the sample intervals laid, when there are any.
        var start, end: String?
    }

    /// One type's part of ``JSONReport``: counts, and the sum where the type's values add up (`steps` for step
    /// counts, `sum` for the other cumulative types).
    struct TypeReport: Encodable {
        var kind: String
        var intervals, appended, deltas, deletionIntervals, deletedSamples, samples, oversize, queries: Int
        var upToDate: Bool
        var steps, sum: Double?

        init(_ plan: TypeLayeringPlan) {
            let intervals = plan.sampleIntervals
            kind = plan.type.kind.rawValue
            self.intervals = plan.intervals.count
            (appended, deltas) = (plan.appended, plan.deltas)
            (deletionIntervals, deletedSamples) = (plan.deletionIntervals, plan.deletedSamples)
            samples = intervals.reduce(0) { $0 + $1.samples }
            oversize = intervals.filter(\.oversize).count
            (queries, upToDate) = (plan.queries, plan.upToDate)
            let total = intervals.reduce(0.0) { $0 + $1.steps }
            if plan.type == .stepCount { steps = total } else if plan.type.kind == .cumulative { sum = total }
        }
    }
}
