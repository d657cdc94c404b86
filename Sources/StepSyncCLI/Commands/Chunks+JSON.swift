import StepSyncCore

extension StepSyncCommand.Chunks {
    /// One interval in `chunks --json` (`docs/json/chunks.schema.json`): `steps` for step counts, `sum` for other
    /// cumulative types, neither otherwise; `lastError` is `null` until an attempt failed.
    struct IntervalReport: Encodable {
        var id: Int64
        var type: String
        var kind: String
        var start: String
        var end: String
        var samples: Int
        var status: String
        var oversize: Bool
        var attempts: Int
        var lastError: JSONNullable<String>
        var steps: Double?
        var sum: Double?

        init(_ interval: SyncInterval) {
            id = interval.id
            type = interval.type.rawValue
            kind = StepSyncCommand.Chunks.kindName(interval)
            start = ISO8601Millis.format(interval.range.start)
            end = ISO8601Millis.format(interval.range.end)
            samples = interval.samples
            status = interval.status.rawValue
            oversize = interval.oversize
            attempts = interval.attempts
            lastError = JSONNullable(interval.lastError)
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
