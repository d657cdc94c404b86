import StepSyncCore
import StepSyncEngine

extension StepSyncCommand.Demo {
    /// `stepsync demo --json` (`docs/json/demo.schema.json`): the stages' figures, and the sync's counters read from
    /// its ``SyncReport`` (the one copy of them).
    struct DemoReport: Encodable {
        var dataDir: String?
        var profile: String
        var years: Int
        var seed: UInt64
        var concurrency: Int
        var requestSamples: Int
        var samples: Int
        var steps: Int64
        var generateSeconds: Double
        var intervals: Int
        var lowerBound: Int
        var largestSteps: Double
        var queries: Int
        var layerSeconds: Double
        /// The sync's report: `synced`, `failed` (the ledger's), `inserted`, `duplicates`, `syncSeconds`,
        /// `samplesPerSecond`.
        var sync: SyncReport
        var syncCPUSeconds: Double
        var maxRSSMegabytes: Double
        var memory: [String: [String: Double]]
        var sinkIndexBytes: Int
        var sinkSlotBytes: Int
        var sinkSamples: Int
        var checkSeconds: Double
        var exact: Bool
        var types: [String: TypeEntry]

        /// One type's figures: `steps` for step counts only.
        struct TypeEntry: Encodable {
            var samples: Int
            var intervals: Int
            var sinkSamples: Int
            var exact: Bool
            var steps: Int64?

            init(_ figures: TypeFigures) {
                samples = figures.samples
                intervals = figures.intervals
                sinkSamples = figures.sink.count
                exact = figures.exact
                steps = figures.type == .stepCount ? Int64(figures.steps.rounded()) : nil
            }
        }

        private enum Key: String, CodingKey {
            case dataDir, profile, years, seed, concurrency, requestSamples, samples, steps, generateSeconds
            case intervals, lowerBound, largestSteps, queries, layerSeconds, synced, failed, inserted, duplicates
            case syncSeconds, samplesPerSecond, syncCPUSeconds, maxRSSMegabytes, memory, sinkIndexBytes
            case sinkSlotBytes, sinkSamples, checkSeconds, exact, types
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(dataDir, forKey: .dataDir)
            try c.encode(profile, forKey: .profile)
            try c.encode(years, forKey: .years)
            try c.encode(seed, forKey: .seed)
            try c.encode(concurrency, forKey: .concurrency)
            try c.encode(requestSamples, forKey: .requestSamples)
            try c.encode(samples, forKey: .samples)
            try c.encode(steps, forKey: .steps)
            try c.encode(generateSeconds, forKey: .generateSeconds)
            try c.encode(intervals, forKey: .intervals)
            try c.encode(lowerBound, forKey: .lowerBound)
            try c.encode(largestSteps, forKey: .largestSteps)
            try c.encode(queries, forKey: .queries)
            try c.encode(layerSeconds, forKey: .layerSeconds)
            try c.encode(sync.synced, forKey: .synced)
            try c.encode(sync.failed, forKey: .failed)
            try c.encode(sync.inserted, forKey: .inserted)
            try c.encode(sync.duplicates, forKey: .duplicates)
            try c.encode(sync.seconds, forKey: .syncSeconds)
            try c.encode(sync.samplesPerSecond.rounded(), forKey: .samplesPerSecond)
            try c.encode(syncCPUSeconds, forKey: .syncCPUSeconds)
            try c.encode(maxRSSMegabytes, forKey: .maxRSSMegabytes)
            try c.encode(memory, forKey: .memory)
            try c.encode(sinkIndexBytes, forKey: .sinkIndexBytes)
            try c.encode(sinkSlotBytes, forKey: .sinkSlotBytes)
            try c.encode(sinkSamples, forKey: .sinkSamples)
            try c.encode(checkSeconds, forKey: .checkSeconds)
            try c.encode(exact, forKey: .exact)
            try c.encode(types, forKey: .types)
        }
    }
}
