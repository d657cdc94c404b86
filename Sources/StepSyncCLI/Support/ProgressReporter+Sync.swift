import StepSyncEngine

extension ProgressReporter {
    /// Reports a running sync: samples of the finished intervals of all, intervals done of total and samples per second
    /// (`sync`, `demo`); while
    /// the engine waits for the sink, the one line saying why and when it tries again — and no ETA. Without a
    /// terminal that line is written once per state (a new reason, the sink back), not once per attempt.
    ///
    /// Rates and the ETA are based on the time spent sending (``SyncProgress/activeSeconds``), so a long wait for the
    /// sink does not make the rest of the run look hours long.
    mutating func update(_ progress: SyncProgress) {
        if let wait = progress.serverWait {
            if isTerminal {
                note("\(wait.message) retrying in \(Self.seconds(wait.retryInSeconds))")
            } else if lastNote != wait.message {
                // Without a terminal, one line per change of state, not one per attempt.
                note("\(wait.message) retrying in \(Self.seconds(wait.retryInSeconds)), then with a growing backoff (said again only when this changes)")
                lastNote = wait.message
            }
            return
        }
        if lastNote != nil, !isTerminal { note("the sink answers again: sending") }
        lastNote = nil
        let active = progress.activeSeconds > 0 ? progress.activeSeconds : progress.elapsedSeconds
        let rate = active > 0 ? Double(progress.samplesSent) / active : 0
        var detail = "\(Format.number(progress.samplesSent)) samples, \(Format.number(rate.rounded())) samples/s"
        if progress.rejected > 0 { detail += ", \(Format.number(progress.rejected)) rejected" }
        // The bar counts samples (and deletions) of finished intervals, so 95 % means 95 % of the data; the intervals
        // go in the detail. A run of empty intervals falls back to counting intervals.
        let bySamples = progress.itemsTotal > 0
        let done = bySamples ? progress.itemsDone : progress.done
        let total = bySamples ? progress.itemsTotal : progress.total
        if bySamples {
            detail = "\(Format.number(progress.done))/\(Format.number(progress.total)) intervals, "
                + "\(Format.number(rate.rounded())) samples/s"
            if progress.rejected > 0 { detail += ", \(Format.number(progress.rejected)) rejected" }
        }
        var eta = ETA.none
        if done > 0, active > 0, total > done {
            eta = .seconds(active / Double(done) * Double(total - done))
        }
        update(done: Int64(done), total: Int64(total), detail: detail, force: progress.done == progress.total, eta: eta)
    }

    /// `8 s`, `0.2 s`, `30 s`: a wait for people.
    static func seconds(_ value: Double) -> String {
        if value >= 10 || value == value.rounded() { return "\(Int(value.rounded())) s" }
        return String(format: "%.1f s", value)
    }
}
