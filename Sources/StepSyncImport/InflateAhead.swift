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

    private let condition = NSCondition()
    private var items: [Item] = []
    private var spare: [[UInt8]] = []
    private var cancelled = false
    private var finished = false

    init(capacity: Int = 8) {
        self.capacity = capacity
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
                    guard put(.chunk(buffer)) else { throw Cancelled() }
                }
                _ = put(.end)
            } catch is Cancelled {
            } catch {
                _ = put(.failed(error))
            }
            condition.lock()
            finished = true
            condition.broadcast()
            condition.unlock()
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
            waitForReader()
        }
        while true {
            switch take() {
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
        condition.lock()
        cancelled = true
        items.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    private func waitForReader() {
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }

    /// A buffer to fill (a spare one, or a new one while fewer than `capacity + 1` exist); nil once cancelled.
    private var buffers = 0
    private func takeSpare() -> [UInt8]? {
        condition.lock()
        defer { condition.unlock() }
        while spare.isEmpty, buffers > capacity, !cancelled { condition.wait() }
        if cancelled { return nil }
        if let buffer = spare.popLast() { return buffer }
        buffers += 1
        return []
    }

    private func giveBack(_ buffer: [UInt8]) {
        condition.lock()
        spare.append(buffer)
        condition.broadcast()
        condition.unlock()
    }

    /// Hands `item` over, waiting while `capacity` wait; false once cancelled.
    private func put(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity, !cancelled { condition.wait() }
        if cancelled { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    private func take() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty { condition.wait() }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    /// The input, handed to the reading thread (which alone uses it until it ends).
    private struct Box: @unchecked Sendable {
        let input: ExportInput
    }
}
