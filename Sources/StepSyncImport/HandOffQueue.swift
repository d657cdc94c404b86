import Foundation

/// A bounded first-in-first-out hand-over between one producer thread and one consumer thread: at most ``capacity``
/// items wait, so memory stays bounded. Used by ``ImportPipeline`` (sample batches) and ``InflateAhead`` (chunks).
///
/// Either side can stop the other: the producer by putting an item that says so, the consumer by ``cancel()`` (after
/// which ``put(_:)`` returns false at once and ``isCancelled`` tells the producer to stop). The producer calls
/// ``producerFinished()`` as its very last action, and ``waitForProducer()`` waits for it, so nothing outlives the
/// work that started it.
final class HandOffQueue<Item>: @unchecked Sendable {
    /// Items that may wait.
    let capacity: Int

    private let condition = NSCondition()
    private var items: [Item] = []
    private var cancelled = false
    private var producerDone = false

    /// An empty queue holding at most `capacity` waiting items.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Hands `item` over, waiting while ``capacity`` items wait; false (and `item` dropped) once cancelled.
    @discardableResult
    func put(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity, !cancelled { condition.wait() }
        if cancelled { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// Takes the next item, waiting for one.
    func take() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty { condition.wait() }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    /// Whether the consumer stopped; the producer checks it between pieces of work.
    var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    /// Stops the producer (its next ``put(_:)`` returns at once) and drops what waits.
    func cancel() {
        condition.lock()
        cancelled = true
        items.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    /// Called by the producer as its very last action.
    func producerFinished() {
        condition.lock()
        producerDone = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the producer has called ``producerFinished()``.
    func waitForProducer() {
        condition.lock()
        while !producerDone { condition.wait() }
        condition.unlock()
    }
}
