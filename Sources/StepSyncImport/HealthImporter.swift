import Foundation
import StepSyncCore
import StepSyncStore

/// Imports an Apple Health export (`export.zip` or `export.xml`) into the sample store, all or nothing.
///
/// The XML is streamed (inflated chunk by chunk from the zip, never extracted) through ``XMLChunkScanner`` and
/// ``HealthExportParser``, and every top-level record is inserted with a uuid derived from its content, so a
/// second import of the same export adds nothing and a newer export adds only what is new.
///
/// The whole import is one store transaction (``StepStore/insertSamples(_:)``): if anything fails — the file is
/// not an export, the zip or the XML is truncated, a date or value cannot be read — the transaction rolls back,
/// the store is left exactly as it was, and the ``ImportError`` names the file and line.
public struct HealthImporter: Sendable {
    /// The store samples go to.
    public let store: StepStore

    /// Creates an importer into `store`.
    public init(store: StepStore) {
        self.store = store
    }

    /// Imports the export at `path`, calling `progress` after every chunk of XML.
    ///
    /// - Throws: ``ImportError`` (the store is unchanged), or a store error if the database itself fails.
    public func importExport(
        at path: String,
        progress: (ImportProgress) -> Void = { _ in }
    ) throws -> ImportSummary {
        let started = ContinuousClock.now
        let input = try ExportInput.open(path)
        let file = input.displayName(path)
        let totalBytes = input.totalBytes

        struct Counts {
            var parser = HealthExportParser()
            var insertedByType: [SampleType: Int] = [:]
            var bytesRead: Int64 = 0
        }
        let (counts, inserted) = try store.insertSamples { inserter -> Counts in
            var counts = Counts()
            var scanner = XMLChunkScanner()
            do {
                try input.stream(path) { chunk in
                    try scanner.feed(chunk, to: &counts.parser)
                    for sample in counts.parser.drain() where try inserter.insert(sample) {
                        counts.insertedByType[sample.type, default: 0] += 1
                    }
                    counts.bytesRead += Int64(chunk.count)
                    progress(ImportProgress(bytesRead: counts.bytesRead, totalBytes: totalBytes,
                                            records: counts.parser.recordsByType.values.reduce(0, +)))
                }
                try scanner.finish()
                try counts.parser.finish(line: scanner.line)
            } catch let problem as XMLProblem {
                throw problem.error(in: file)
            }
            return counts
        }
        let elapsed = ContinuousClock.now - started
        return ImportSummary(
            file: path,
            entry: { if case .zip(_, let entry) = input { return entry.path } else { return nil } }(),
            bytesRead: counts.bytesRead,
            recordsByType: counts.parser.recordsByType,
            insertedByType: counts.insertedByType,
            inserted: inserted.inserted,
            duplicates: inserted.duplicates,
            insertedSteps: inserted.insertedSteps,
            skippedElements: counts.parser.skippedElements,
            nestedRecords: counts.parser.nestedRecords,
            unknownCategoryValues: counts.parser.unknownCategoryValues,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}
