import StepSyncCore
import StepSyncStore

extension SyncEngine {
    /// Fills the run's part of the report from the machine's `tally`: what it synced, failed, put back and skipped,
    /// the rejected samples, the waits for the sink, giving up, and the endpoints the sink does not serve.
    func record(_ tally: SyncRunMachine.Tally, into report: inout SyncReport) {
        report.synced = tally.synced
        report.failedThisRun = tally.failed
        report.requeued = tally.requeued
        report.skipped = tally.skipped
        report.samples = tally.samples
        report.inserted = tally.inserted
        report.duplicates = tally.duplicates
        report.deletionsSent = tally.deletionsSent
        report.deleted = tally.deleted
        report.rejectedThisRun = tally.rejectedCount
        report.rejected = tally.rejected
        report.serverWaits = tally.serverWaits
        report.serverWaitSeconds = tally.serverWaitSeconds
        report.stopped = tally.stopped
        if let gaveUp = tally.gaveUp {
            report.gaveUp = gaveUp.failure.message(server: uploader.server)
            report.gaveUpAfterSeconds = gaveUp.afterSeconds
            report.gaveUpAtOnce = gaveUp.failure.isFatal
        }
        report.unsupported = tally.unsupported.map { unsupported in
            "the sink at \(uploader.server) does not take POST \(SinkEndpoint.of(unsupported.interval).path) "
                + "(\(unsupported.message)): the intervals of types other than step counts stay pending — update "
                + "the sink, or sync only step counts with --type \(SampleType.stepCount.rawValue)"
        }
    }

    /// The progress callback's view of the machine's `progress`.
    func syncProgress(_ progress: SyncRunMachine.Progress) -> SyncProgress {
        var result = SyncProgress(done: progress.done, total: progress.total, synced: progress.synced,
                                  failed: progress.failed, samplesSent: progress.samplesSent,
                                  elapsedSeconds: progress.elapsed.inSeconds)
        result.rejected = progress.rejected
        result.itemsDone = progress.itemsDone
        result.itemsTotal = progress.itemsTotal
        result.activeSeconds = progress.activeSeconds
        result.serverWait = progress.serverWait.map {
            .init(message: $0.failure.message(server: uploader.server), retryInSeconds: $0.delay.inSeconds)
        }
        return result
    }

    /// Fills the ledger's part of the report: counts by status over `types`, failures, rejected samples.
    func summarise(into report: inout SyncReport, types: [SampleType]) throws {
        for type in types {
            let summary = try store.intervalSummary(of: type)
            report.totalIntervals += summary.intervals
            report.totalSynced += summary.synced
            report.failed += summary.failed
            report.pending += summary.pending + summary.inFlight
            report.failures += try store.intervals(of: type, status: [.failed]).map {
                SyncFailure(intervalId: $0.id, type: type, range: $0.range, attempts: $0.attempts,
                            message: $0.lastError ?? "")
            }
        }
        let rejectedCounts = try store.rejectedCounts()
        report.rejectedTotal = types.reduce(0) { $0 + (rejectedCounts[$1] ?? 0) }
    }
}
