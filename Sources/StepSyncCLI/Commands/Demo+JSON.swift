import StepSyncCore
import StepSyncEngine

extension StepSyncCommand.Demo {
    /// `stepsync demo --json` (`docs/json/demo.schema.json`): one object of the stages' ``StageFigures`` and the sync's
    /// counters (``SyncFigures``).
    struct DemoReport: Encodable {
        var figures: StageFigures
        var sync: SyncFigures

        func encode(to encoder: any Encoder) throws {
            try figures.encode(to: encoder)
            try sync.encode(to: encoder)
        }
    }

    /// The stages' figures: the run's settings, what was generated and laid, memory, the sink's tables, the check.
    struct StageFigures: Encodable {
        var dataDir: JSONNullable<String>
        var profile: String
        var seed: UInt64
        var years, concurrency, requestSamples, samples, intervals, lowerBound, queries: Int
        var steps: Int64
        var generateSeconds, largestSteps, layerSeconds, syncCPUSeconds, maxRSSMegabytes, checkSeconds: Double
        var memory: [String: [String: Double]]
        var sinkIndexBytes, sinkSlotBytes, sinkSamples: Int
        var exact: Bool
        var types: [String: TypeEntry]
    }

    /// The sync's counters, read from its ``SyncReport`` (the one copy of them): `synced` and `failed` (the
    /// ledger's), `inserted`, `duplicates`, `syncSeconds`, `samplesPerSecond`.
    struct SyncFigures: Encodable {
        var synced, failed, inserted, duplicates: Int
        var syncSeconds, samplesPerSecond: Double

        init(_ report: SyncReport) {
            (synced, failed, inserted, duplicates) = (report.synced, report.failed, report.inserted, report.duplicates)
            (syncSeconds, samplesPerSecond) = (report.seconds, report.samplesPerSecond.rounded())
        }
    }

    /// One type's figures: `steps` for step counts only.
    struct TypeEntry: Encodable {
        var samples, intervals, sinkSamples: Int
        var exact: Bool
        var steps: Int64?

        init(_ figures: TypeFigures) {
            (samples, intervals, sinkSamples, exact) = (figures.samples, figures.intervals, figures.sink.count,
                                                        figures.exact)
            steps = figures.type == .stepCount ? Int64(figures.steps.rounded()) : nil
        }
    }
}
