import StepSyncCore
import StepSyncStore

extension StepSyncCommand.Status {
    /// `status --json` (`docs/json/status.schema.json`): the ledger's counts over every type, each type's counts,
    /// the rejected samples, and the last server and sink synced to (when there was one).
    struct JSONReport: Encodable {
        var overall: Counts
        var syncedShare: Double
        var types: [String: Counts]
        var rejected: Rejected
        var lastServer: String?
        var lastSink: String?

        func encode(to encoder: any Encoder) throws {
            try overall.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(syncedShare, forKey: .syncedShare)
            try container.encode(types, forKey: .types)
            try container.encode(rejected, forKey: .rejected)
            try container.encodeIfPresent(lastServer, forKey: .lastServer)
            try container.encodeIfPresent(lastSink, forKey: .lastSink)
        }

        private enum Key: String, CodingKey { case syncedShare, types, rejected, lastServer, lastSink }
    }

    /// A summary's counts by status; `steps` for step counts (and for the overall counts); `sum` for another
    /// cumulative type; `kind` for a type.
    struct Counts: Encodable {
        var intervals, pending, inFlight, synced, failed, oversize: Int
        var samples, syncedSamples, deletions, syncedDeletions, storeSamples, sinkSamples: Int
        var kind: String?
        var steps, syncedSteps, sum, syncedSum: Double?

        init(_ s: IntervalSummary, type: SampleType?) {
            (intervals, pending, inFlight, synced, failed, oversize) =
                (s.intervals, s.pending, s.inFlight, s.synced, s.failed, s.oversize)
            (samples, syncedSamples, deletions, syncedDeletions, storeSamples, sinkSamples) =
                (s.samples, s.syncedSamples, s.deletions, s.syncedDeletions, s.storeSamples, s.sinkSamples)
            if let type {
                kind = type.kind.rawValue
                if type == .stepCount {
                    (steps, syncedSteps) = (s.steps, s.syncedSteps)
                } else if type.kind == .cumulative {
                    (sum, syncedSum) = (s.sum, s.syncedSum)
                }
            } else {
                (steps, syncedSteps) = (s.steps, s.syncedSteps)
            }
        }
    }

    /// The rejected samples: `{"total": N, "types": {"T": {"total": n, "reasons": {"reason": k}}}}`.
    struct Rejected: Encodable {
        var total: Int
        var types: [String: TypeRejected]

        /// One type's rejected samples, by reason.
        struct TypeRejected: Encodable {
            var total: Int
            var reasons: [String: Int]
        }

        init(_ counts: [SampleType: [String: Int]]) {
            total = counts.values.reduce(0) { $0 + $1.values.reduce(0, +) }
            types = Dictionary(uniqueKeysWithValues: counts.map { type, reasons in
                (type.rawValue, TypeRejected(total: reasons.values.reduce(0, +), reasons: reasons))
            })
        }
    }
}
