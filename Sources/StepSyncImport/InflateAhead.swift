import Foundation

/// Reads (for a zip: inflates) an export's XML on a thread of its own, at most ``capacity`` chunks ahead of the
/// thread that scans and decodes it, so an import keeps three stages busy on two cores: inflating, scanning and
/// decoding, inserting. Chunks are copied into buffers that go round (at most ``capacity`` + 1 of them), so memory
/// stays bounded and nothing is allocated per chunk.
///
/// What the consumer sees is what ``ExportInput/stream(_:_:)`` would have given it on its own thread: the same chunks
/// in the same order, then the input's error (a damaged zip, a checksum that does not match) if there is one, after
/// the chunks that came before it. An error of the consumer stops the reading thread (``cancel()``), and
/// ``forEachChunk(_:)`` returns only once that thread has ended, so nothing outlives it.
final class InflateAhead: @unchecked Sendable {
    /// Chunks that may wait.
    let capacity: Int

    private enum Item {
        case chunk([UInt8])
        case end
        case failed(any Error)
    }

    private let queue: HandOffQueue<Item>
    /// Guards ``spare``, ``buffers`` and ``spareCancelled``.
    private let spareCondition = NSCondition()
    private var spare: [[UInt8]] = []
    private var buffers = 0
    private var spareCancelled = false

    init(capacity: Int = 8) {
        self.capacity = capacity
        queue = HandOffQueue(capacity: capacity)
    }

    /// Starts the reading thread over `input`.
    func start(input: ExportInput, path: String) {
        let box = Box(input: input)
        let thread = Thread { [self] in
            struct Cancelled: Error {}
            do {
                try box.input.stream(path) { bytes in
                    guard var buffer = takeSpare() else { throw Cancelled() }
                    buffer.removeAll(keepingCapacity: true)
                    buffer.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
                    guard queue.put(.chunk(buffer)) else { throw Cancelled() }
                }
                queue.put(.end)
            } catch is Cancelled {
            } catch {
                queue.put(.failed(error))
            }
            queue.producerFinished()
        }
        thread.name = "stepsync-import-inflate"
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Calls `body` with each chunk in order, on the calling thread; rethrows the input's error after the chunks
    /// before it, or `body`'s (after stopping the reading thread). Returns once the reading thread has ended.
    func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        defer {
            cancel()
            queue.waitForProducer()
        }
        while true {
            switch queue.take() {
            case .chunk(let chunk):
                try chunk.withUnsafeBytes(body)
                giveBack(chunk)
            case .end:
                return
            case .failed(let error):
                throw error
            }
        }
    }

    /// Stops the reading thread: its next chunk is not read.
    func cancel() {
        queue.cancel()
        spareCondition.lock()
        spareCancelled = true
        spareCondition.broadcast()
        spareCondition.unlock()
    }

    /// A buffer to fill (a spare one, or a new one while fewer than `capacity + 1` exist); nil once cancelled.
    private func takeSpare() -> [UInt8]? {
        spareCondition.lock()
        defer { spareCondition.unlock() }
        while spare.isEmpty, buffers > capacity, !spareCancelled { spareCondition.wait() }
        if spareCancelled { return nil }
        if let buffer = spare.popLast() { return buffer }
        buffers += 1
        return []
    }

    private func giveBack(_ buffer: [UInt8]) {
        spareCondition.lock()
        spare.append(buffer)
        spareCondition.broadcast()
        spareCondition.unlock()
    }

    /// The input, handed to the reading thread (which alone uses it until it ends).
    private struct Box: @unchecked Sendable {
        let input: ExportInput
    }
}
