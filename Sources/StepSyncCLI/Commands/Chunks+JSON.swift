import StepSyncCore

extension StepSyncCommand.Chunks {
    /// One interval in `chunks --json` (`docs/json/chunks.schema.json`): `steps` for step counts, `sum` for other
    /// cumulative types, neither otherwise; `lastError` is `null` until an attempt failed.
    struct IntervalReport: Encodable {
        var id: Int64
        var type, kind, start, end, status: String
        var samples, attempts: Int
        var oversize: Bool
        var lastError: JSONNullable<String>
        var steps, sum: Double?

        init(_ interval: SyncInterval) {
            (id, type, kind) = (interval.id, interval.type.rawValue, StepSyncCommand.Chunks.kindName(interval))
            (start, end) = (ISO8601Millis.format(interval.range.start), ISO8601Millis.format(interval.range.end))
            (samples, status, oversize) = (interval.samples, interval.status.rawValue, interval.oversize)
            (attempts, lastError) = (interval.attempts, JSONNullable(interval.lastError))
            if interval.kind == .samples {
                if interval.type == .stepCount {
                    steps = interval.steps
                } else if interval.type.kind == .cumulative {
                    sum = interval.steps
                }
            }
        }
    }
}
