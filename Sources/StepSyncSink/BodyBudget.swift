import Synchronization

/// Bounds the bytes that all requests in flight hold as bodies (as received and inflated), so that many large or
/// highly compressed requests at once cannot exhaust memory. A request that would go over the budget is answered
/// 503 with `Retry-After` (the client backs off and resends) rather than queued, so requests never wait on each
/// other's memory.
final class BodyBudget: Sendable {
    /// The most bytes held at once.
    let capacity: Int
    private let held = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Takes `bytes` from the budget, or returns false (taking nothing) when that would exceed it.
    func reserve(_ bytes: Int) -> Bool {
        var current = held.load(ordering: .relaxed)
        while true {
            guard current + bytes <= capacity else { return false }
            let (exchanged, original) = held.compareExchange(expected: current, desired: current + bytes,
                                                             ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
    }

    /// Gives `bytes` back.
    func release(_ bytes: Int) {
        held.subtract(bytes, ordering: .acquiringAndReleasing)
    }

    /// The bytes held now.
    var inUse: Int { held.load(ordering: .relaxed) }
}
