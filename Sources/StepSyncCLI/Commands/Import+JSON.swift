import StepSyncCore
import StepSyncImport

extension StepSyncCommand.Import {
    /// `import --json` (`docs/json/import.schema.json`): `samples` counts the new samples (route and ECG parts
    /// included), `stepSamples` the new step samples, `steps` sums their steps, `recordsRead` counts the records
    /// read, `routes`, `routePoints` and `electrocardiograms` the new routes, their points and the new ECGs.
    struct JSONReport: Encodable {
        var file: String
        var entry: String?
        var samples: Int
        var stepSamples: Int
        var steps: Int64
        var workouts: Int
        var duplicates: Int
        var previouslyDeleted: Int
        var restored: Int
        var recordsRead: Int
        var types: [String: TypeCounts]
        var skipped: [String: Int]
        var skippedRecords: [Skipped]
        var otherElements: [String: Int]
        var nestedRecords: Int
        var routes: Int
        var routePoints: Int
        var orphanRoutes: Int
        var electrocardiograms: Int
        var bytes: Int64
        var seconds: Double
        var recordsPerSecond: Double

        /// One type's records read and new samples.
        struct TypeCounts: Encodable {
            var recordsRead: Int
            var samples: Int
        }

        /// One of the first records left out: where, what and why.
        struct Skipped: Encodable {
            var line: Int
            var element: String
            var reason: String
            var detail: String
            var type: String?
            var file: String?
        }

        init(_ s: ImportSummary) {
            file = s.file
            entry = s.entry
            samples = s.inserted
            stepSamples = s.insertedStepSamples
            steps = Int64(s.insertedSteps.rounded())
            workouts = s.insertedWorkouts
            duplicates = s.duplicates
            previouslyDeleted = s.previouslyDeleted
            restored = s.restored
            recordsRead = s.recordsRead
            types = Dictionary(uniqueKeysWithValues: s.recordsByType.map { type, read in
                (type.rawValue, TypeCounts(recordsRead: read, samples: s.insertedByType[type] ?? 0))
            })
            skipped = Dictionary(uniqueKeysWithValues: s.skipped.map { ($0.key.key, $0.value) })
            skippedRecords = s.firstSkipped.map { skip in
                Skipped(line: skip.line, element: skip.element, reason: skip.reason.key, detail: skip.detail,
                        type: skip.type, file: skip.file)
            }
            otherElements = s.otherElements
            nestedRecords = s.nestedRecords
            routes = s.routes
            routePoints = s.routePoints
            orphanRoutes = s.orphanRoutes
            electrocardiograms = s.electrocardiograms
            bytes = s.bytesRead
            seconds = s.seconds
            recordsPerSecond = s.recordsPerSecond
        }
    }
}
