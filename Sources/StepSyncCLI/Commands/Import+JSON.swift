import StepSyncCore
import StepSyncImport

extension StepSyncCommand.Import {
    /// `import --json` (`docs/json/import.schema.json`): `samples` counts the new samples (route and ECG parts
    /// included), `stepSamples` the new step samples, `steps` sums their steps, `recordsRead` counts the records
    /// read, `routes`, `routePoints` and `electrocardiograms` the new routes, their points and the new ECGs.
    struct JSONReport: Encodable {
        var file: String
        var entry: String?
        var samples, stepSamples, workouts, duplicates, previouslyDeleted, restored: Int
        var steps: Int64
        var recordsRead, nestedRecords: Int
        var types: [String: TypeCounts]
        var skipped, otherElements: [String: Int]
        var skippedRecords: [Skipped]
        var routes, routePoints, orphanRoutes, electrocardiograms: Int
        var bytes: Int64
        var seconds, recordsPerSecond: Double

        /// One type's records read and new samples.
        struct TypeCounts: Encodable {
            var recordsRead, samples: Int
        }

        /// One of the first records left out: where, what and why.
        struct Skipped: Encodable {
            var line: Int
            var element, reason, detail: String
            var type, file: String?
        }

        init(_ s: ImportSummary) {
            (file, entry, recordsRead, nestedRecords) = (s.file, s.entry, s.recordsRead, s.nestedRecords)
            (samples, stepSamples, workouts) = (s.inserted, s.insertedStepSamples, s.insertedWorkouts)
            (duplicates, previouslyDeleted, restored) = (s.duplicates, s.previouslyDeleted, s.restored)
            steps = Int64(s.insertedSteps.rounded())
            types = Dictionary(uniqueKeysWithValues: s.recordsByType.map { type, read in
                (type.rawValue, TypeCounts(recordsRead: read, samples: s.insertedByType[type] ?? 0))
            })
            skipped = Dictionary(uniqueKeysWithValues: s.skipped.map { ($0.key.key, $0.value) })
            skippedRecords = s.firstSkipped.map { skip in
                Skipped(line: skip.line, element: skip.element, reason: skip.reason.key, detail: skip.detail,
                        type: skip.type, file: skip.file)
            }
            otherElements = s.otherElements
            (routes, routePoints, orphanRoutes) = (s.routes, s.routePoints, s.orphanRoutes)
            electrocardiograms = s.electrocardiograms
            (bytes, seconds, recordsPerSecond) = (s.bytesRead, s.seconds, s.recordsPerSecond)
        }
    }
}
