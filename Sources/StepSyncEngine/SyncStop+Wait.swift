import StepSyncCore

extension SyncStop {
    /// Waits `delay` on `time`'s clock unless stopped: returns `false` at once when a stop is (or was) requested or
    /// the task is cancelled, `true` when the wait ran its course. The engine's waits (a retry's backoff, the wait
    /// for the sink) are all this one.
    func wait(_ delay: Duration, on time: TimeSource) async -> Bool {
        guard requestCount == 0 else { return false }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do {
                    try await time.sleep(delay)
                    return true
                } catch {
                    return false
                }
            }
            group.addTask {
                await requested(count: 1)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first && !Task.isCancelled
        }
    }
}
