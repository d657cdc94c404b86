import StepSyncEngine

extension ProgressReporter {
    /// Reports a running sync: intervals done of total, samples sent and samples per second (`sync`, `demo`).
    mutating func update(_ progress: SyncProgress) {
        let rate = progress.elapsedSeconds > 0 ? Double(progress.samplesSent) / progress.elapsedSeconds : 0
        update(done: Int64(progress.done), total: Int64(progress.total),
               detail: "\(Format.number(progress.samplesSent)) samples, \(Format.number(rate.rounded())) samples/s",
               force: progress.done == progress.total)
    }
}
