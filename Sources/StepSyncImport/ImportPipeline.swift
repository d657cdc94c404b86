import Foundation
import StepSyncCore

/// A bounded hand-over of sample batches from the thread that inflates, scans and decodes an export to the thread
/// that inserts them (the store's writer): the two halves of an import run on two cores, and at most ``capacity``
/// batches (of ≈ ``ImportPipeline/batchSize`` samples) wait in between, so memory stays bounded.
///
/// Either side can stop the other: the producer by putting `.failed`, the consumer by ``cancel()`` (after which
/// `put` returns at once and ``isCancelled`` tells the producer to stop reading).
final class ImportPipeline: @unchecked Sendable {
    /// What the producer hands over.
    enum Item {
        /// Decoded samples, with the bytes of XML and the records read so far.
        case samples([HealthSample], bytesRead: Int64, recordsRead: Int)
        /// The parts of one route or ECG file (read after the XML).
        case series(SeriesBatch)
        /// The end of the export: the parser with its counts (the route and ECG files' skips included).
        case finished(HealthExportParser, bytesRead: Int64)
        /// The producer failed (structural damage, `--strict`, an unreadable file).
        case failed(any Error)
    }

    /// Samples per batch: large enough that hand-overs cost nothing, small enough to keep memory flat.
    static let batchSize = 4096
    /// Batches that may wait.
    let capacity: Int

    private let queue: HandOffQueue<Item>

    init(capacity: Int = 4) {
        self.capacity = capacity
        queue = HandOffQueue(capacity: capacity)
    }

    /// Hands `item` over, waiting while ``capacity`` items wait; returns at once after ``cancel()``.
    func put(_ item: Item) { queue.put(item) }

    /// Takes the next item, waiting for one.
    func take() -> Item { queue.take() }

    /// Whether the consumer stopped; the producer checks it between chunks.
    var isCancelled: Bool { queue.isCancelled }

    /// Stops the producer (its next `put` returns at once) and drops what waits.
    func cancel() { queue.cancel() }

    /// Waits until the producer has returned (so nothing outlives the import).
    func waitForProducer() { queue.waitForProducer() }

    /// Runs the producer half on a thread of its own: reads `input`, scans and decodes it, and puts batches; then
    /// reads the export's route and ECG files (``SeriesReader``) and puts their parts.
    func startProducer(input: ExportInput, path: String, file: String, strict: Bool) {
        let box = InputBox(input: input)
        let thread = Thread { [self] in
            defer { queue.producerFinished() }
            var parser = HealthExportParser()
            parser.strict = strict
            var scanner = XMLChunkScanner()
            var bytesRead: Int64 = 0
            struct Cancelled: Error {}
            do {
                func feed(_ chunk: UnsafeRawBufferPointer) throws {
                    if isCancelled { throw Cancelled() }
                    try scanner.feed(chunk, to: &parser)
                    bytesRead += Int64(chunk.count)
                    if parser.pending >= Self.batchSize {
                        put(.samples(Self.groupedByType(parser.drain()), bytesRead: bytesRead, recordsRead: parser.recordsRead))
                    }
                }
                // Inflated on a thread of its own (see `InflateAhead`).
                let ahead = InflateAhead()
                ahead.start(input: box.input, path: path)
                try ahead.forEachChunk(feed)
                try scanner.finish()
                try parser.finish(line: scanner.line)
                put(.samples(Self.groupedByType(parser.drain()), bytesRead: bytesRead, recordsRead: parser.recordsRead))
                // Then the routes and ECGs, a file at a time, in the same transaction (see `SeriesReader`).
                let reader = SeriesReader(attachments: ExportAttachments(input: box.input, path: path), exportName: file)
                try reader.run(routed: parser.takeRoutedWorkouts(), parser: &parser, cancelled: { isCancelled }) { batch in
                    put(.series(batch))
                }
                if isCancelled { return }
                put(.finished(parser, bytesRead: bytesRead))
            } catch is Cancelled {
                return
            } catch let problem as XMLProblem {
                put(.failed(problem.error(in: file)))
            } catch {
                put(.failed(error))
            }
        }
        thread.name = "stepsync-import-reader"
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// `samples` regrouped by type, types in the order they first appear, each type's samples in their order.
    ///
    /// An export interleaves its types record by record (steps, distance, heart rate, … in time order). Handed to
    /// the store's writer grouped, a run of one type appends to one place of the `(type, start)` index, binds its
    /// type, unit, source and device strings once per run instead of once per record, and keeps its hourly rollup
    /// in one slot; both cores are busy while the XML is read, and the writer's work also fills the end (index
    /// builds, commit), so a cost moved off it shortens the import. Only the
    /// `seq` order of the samples of one batch changes (a transaction's samples carry no order a reader could see
    /// before it commits), and so does nothing else: a uuid's first copy still comes first.
    ///
    /// The samples are moved, not copied: a stable counting sort computes each sample's place, and the permutation
    /// is applied in place by swaps (no retain or release of the samples' strings, no second array).
    static func groupedByType(_ samples: consuming [HealthSample]) -> [HealthSample] {
        var types: [SampleType] = []
        var sizes: [Int] = []
        var group = [Int32](repeating: 0, count: samples.count)
        var last = -1
        for index in samples.indices {
            let type = samples[index].type
            if last < 0 || types[last] != type {
                if let found = types.firstIndex(of: type) {
                    last = found
                } else {
                    types.append(type)
                    sizes.append(0)
                    last = types.count - 1
                }
            }
            group[index] = Int32(last)
            sizes[last] += 1
        }
        if types.count <= 1 { return samples }
        // Where each group starts, then each sample's place: its group's next free slot.
        var next = [Int](repeating: 0, count: sizes.count)
        for g in 1..<sizes.count { next[g] = next[g - 1] + sizes[g - 1] }
        var place = [Int](repeating: 0, count: samples.count)
        for index in samples.indices {
            let g = Int(group[index])
            place[index] = next[g]
            next[g] += 1
        }
        // Follow each cycle of the permutation: the sample at `index` goes to `place[index]`. Swapped through the
        // buffer, whose `swapAt` moves the two values; `Array.swapAt` copied one (a retain of each of its strings)
        // and destroyed it again.
        samples.withUnsafeMutableBufferPointer { samples in
            for index in samples.indices {
                while place[index] != index {
                    let target = place[index]
                    samples.swapAt(index, target)
                    place.swapAt(index, target)
                }
            }
        }
        return samples
    }

    /// The export input, handed to the producer thread (which alone uses it from then on).
    private struct InputBox: @unchecked Sendable {
        let input: ExportInput
    }
}
