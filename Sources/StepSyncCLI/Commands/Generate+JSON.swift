extension StepSyncCommand.Generate {
    /// `generate --json` (`docs/json/generate.schema.json`): what was generated, over which days, how fast, and per
    /// type; `requestedDays` only for `--append-days`.
    struct JSONReport: Encodable {
        var samples: Int
        var steps: Int64
        var duplicates: Int
        var days: Int
        var firstDay: String
        var lastDay: String
        var profile: String
        var seed: UInt64
        var seconds: Double
        var samplesPerSecond: Int
        var types: [String: TypeCount]
        var requestedDays: Int?

        /// One type's samples inserted and duplicates, and the steps of step counts.
        struct TypeCount: Encodable {
            var samples: Int
            var duplicates: Int
            var steps: Int64?
        }
    }
}
