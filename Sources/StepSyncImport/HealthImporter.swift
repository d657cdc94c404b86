import Foundation
import StepSyncCore
import StepSyncStore

/// Imports an Apple Health export (`export.zip` or `export.xml`) into the sample store, all or nothing.
///
/// The XML is streamed (inflated chunk by chunk from the zip, never extracted) through ``XMLChunkScanner`` and
/// ``HealthExportParser``, and every top-level record is inserted with a uuid derived from its content, so a
/// second import of the same export adds nothing and a newer export adds only what is new.
///
/// After the XML, the export's route files (`workout-routes/*.gpx`, each under the workout that names it) and ECG
/// files (`electrocardiograms/*.csv`) are read, one at a time, and stored as series parts in the same transaction
/// (``SeriesReader``, `Planning/series.md`).
///
/// A record that cannot be stored (a value missing on a quantity type or unreadable, a date that is not a date, a
/// sample ``SampleValidation`` refuses) is skipped and counted by ``SkipReason``; the rest of the file is imported.
/// With `strict`, such a record refuses the whole import instead.
///
/// The whole import is one store transaction (``StepStore/insertSamples(_:)``): if anything fails — the file is
/// not an export, the zip or the XML is truncated or damaged, or `strict` meets a record it would skip — the
/// transaction rolls back, the store is left exactly as it was, and the ``ImportError`` names the file and line.
public struct HealthImporter: Sendable {
    /// The store samples go to.
    public let store: StepStore

    /// How an import into an empty or small store loads (``BulkLoad``); `nil` inserts one row at a time against the
    /// store's indexes. Both leave the same store.
    public let bulkLoad: BulkLoad?

    /// The clock the import's elapsed time is measured on (``ImportSummary/seconds``).
    public let time: TimeSource

    /// Creates an importer into `store` that measures its time on `time`.
    public init(store: StepStore, bulkLoad: BulkLoad? = .standard, time: TimeSource) {
        self.store = store
        self.bulkLoad = bulkLoad
        self.time = time
    }

    /// Imports the export at `path`, calling `progress` after every chunk of XML.
    ///
    /// - Parameters:
    ///   - strict: refuse the whole import (``ImportError``, store unchanged) when any record would be skipped,
    ///     rather than skipping and counting it.
    ///   - deletedSamples: what to do with a record whose sample was deleted from the store earlier: leave it out
    ///     (``DeletedSamples/remember``, the default: a deletion stays deleted) or store it again.
    /// - Throws: ``ImportError`` (the store is unchanged), or a store error if the database itself fails.
    public func importExport(
        at path: String,
        strict: Bool = false,
        deletedSamples: DeletedSamples = .remember,
        progress: (ImportProgress) -> Void = { _ in }
    ) throws -> ImportSummary {
        let elapsedSoFar = time.stopwatch()
        let input = try ExportInput.open(path)
        let file = input.displayName(path)
        let totalBytes = input.totalBytes

        struct Counts {
            var parser = HealthExportParser()
            var insertedByType: [SampleType: Int] = [:]
            var bytesRead: Int64 = 0
            var routes = 0
            var routePoints = 0
            var orphanRoutes = 0
            var electrocardiograms = 0
        }
        // Two halves on two cores: a reader thread inflates, scans and decodes; this thread (the store's writer)
        // inserts. See `ImportPipeline`.
        let (counts, inserted) = try store.insertSamples(bulkLoad: bulkLoad, deletedSamples: deletedSamples) { inserter -> Counts in
            let pipeline = ImportPipeline()
            pipeline.startProducer(input: input, path: path, file: file, strict: strict)
            defer {
                pipeline.cancel()
                pipeline.waitForProducer()
            }
            var counts = Counts()
            while true {
                switch pipeline.take() {
                case .samples(let samples, let bytesRead, let recordsRead):
                    try inserter.insert(contentsOf: samples)
                    counts.bytesRead = bytesRead
                    progress(ImportProgress(bytesRead: bytesRead, totalBytes: totalBytes, records: recordsRead))
                case .series(let batch):
                    // A route or recording counts as new when any of its parts is.
                    var newParts = 0
                    var newPoints = 0
                    for sample in batch.samples {
                        guard try inserter.insert(sample) else { continue }
                        newParts += 1
                        newPoints += Int(sample.value)
                    }
                    if newParts > 0 {
                        switch batch.kind {
                        case .route, .orphanRoute:
                            counts.routes += 1
                            counts.routePoints += newPoints
                            if batch.kind == .orphanRoute { counts.orphanRoutes += 1 }
                        case .electrocardiogram:
                            counts.electrocardiograms += 1
                        }
                    }
                case .finished(let parser, let bytesRead):
                    counts.parser = parser
                    counts.insertedByType = inserter.insertedByType
                    counts.bytesRead = bytesRead
                    return counts
                case .failed(let error):
                    throw error
                }
            }
        }
        let elapsed = elapsedSoFar()
        return ImportSummary(
            file: path,
            entry: { if case .zip(_, let entry) = input { return entry.path } else { return nil } }(),
            bytesRead: counts.bytesRead,
            recordsRead: counts.parser.recordsRead,
            recordsByType: counts.parser.recordsByType,
            insertedByType: counts.insertedByType,
            inserted: inserted.inserted,
            duplicates: inserted.duplicates,
            previouslyDeleted: inserted.previouslyDeleted,
            restored: inserted.restored,
            insertedSteps: inserted.insertedSteps,
            skipped: counts.parser.skipped,
            firstSkipped: counts.parser.firstSkipped,
            otherElements: counts.parser.otherElements,
            nestedRecords: counts.parser.nestedRecords,
            routes: counts.routes,
            orphanRoutes: counts.orphanRoutes,
            routePoints: counts.routePoints,
            electrocardiograms: counts.electrocardiograms,
            seconds: elapsed.inSeconds)
    }
}
