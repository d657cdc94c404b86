import StepSyncCore
import StepSyncStore

extension SyncReport {
    /// Fills the ledger's part of the report from `store`: counts by status over `types`, failures, rejected samples.
    mutating func readLedger(of store: StepStore, types: [SampleType]) throws {
        for type in types {
            let summary = try store.intervalSummary(of: type)
            totalIntervals += summary.intervals
            totalSynced += summary.synced
            failed += summary.failed
            pending += summary.pending + summary.inFlight
            failures += try store.intervals(of: type, status: [.failed]).map {
                SyncFailure(intervalId: $0.id, type: type, range: $0.range, attempts: $0.attempts,
                            message: $0.lastError ?? "")
            }
        }
        let rejectedCounts = try store.rejectedCounts()
        rejectedTotal = types.reduce(0) { $0 + (rejectedCounts[$1] ?? 0) }
    }
}
