/// A sample of positive length that the sweep of ``DailyStepTotals`` has passed the start of but not the end.
struct ActiveSample: Sendable {
    /// End (exclusive), UTC ms: the heap's key.
    var endMs: Int64
    /// Start, UTC ms.
    var startMs: Int64
    /// The step count.
    var value: Double
    /// The device's rank (0 is the highest).
    var rank: Int
    /// The rank's "top time" counter at `startMs`.
    var topTimeAtStart: Int64
    /// The index of the first requested day the sample overlaps.
    var firstDay: Int
}

/// A binary min-heap of ``ActiveSample`` by end: the samples the sweep line is inside, the one to end first on top.
struct ActiveSampleHeap: Sendable {
    private var items: [ActiveSample] = []

    /// The number of samples.
    var count: Int { items.count }

    /// The earliest end, or `nil` when empty.
    var minEndMs: Int64? { items.first?.endMs }

    /// Adds a sample. O(log n).
    mutating func push(_ sample: ActiveSample) {
        items.append(sample)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].endMs < items[parent].endMs else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the sample that ends first. O(log n).
    mutating func pop() -> ActiveSample? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count, items[left].endMs < items[smallest].endMs { smallest = left }
            if right < items.count, items[right].endMs < items[smallest].endMs { smallest = right }
            if smallest == parent { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
