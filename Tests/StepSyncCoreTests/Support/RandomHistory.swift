import StepSyncCore

/// Seeded random step histories for the layering tests: (start ms, steps) pairs, unsorted.
enum RandomHistory {
    /// A history built to hit the engine's corners: clusters years apart, bursts in one millisecond, samples on grid
    /// lines and one millisecond before them, samples of zero steps and samples far over any limit.
    static func adversarial(seed: UInt64) -> [(start: Int64, value: Double)] {
        var rng = SplitMix64(seed: seed)
        var samples: [(start: Int64, value: Double)] = []
        let clusters = Int.random(in: 0...6, using: &rng)
        for _ in 0..<clusters {
            var t = Int64.random(in: -20 * 365 * Milliseconds.day...60 * 365 * Milliseconds.day, using: &rng)
            let count = Int.random(in: 1...400, using: &rng)
            let spacing = [Int64(0), 1, 1_000, Milliseconds.minute, Milliseconds.hour, Milliseconds.day].randomElement(using: &rng)!
            for _ in 0..<count {
                switch Int.random(in: 0..<10, using: &rng) {
                case 0: t = LayeringEngine.floorMultiple(t, of: LayeringEngine.layers.randomElement(using: &rng)!)  // on a line
                case 1: t = LayeringEngine.floorMultiple(t, of: Milliseconds.hour) - 1                               // just before
                default: t += Int64.random(in: 0...max(0, spacing), using: &rng)
                }
                let value: Double = switch Int.random(in: 0..<20, using: &rng) {
                case 0: Double(Int.random(in: 5_000...30_000, using: &rng))
                case 1: 0
                default: Double(Int.random(in: 1...400, using: &rng))
                }
                samples.append((t, value))
            }
        }
        return samples
    }

    /// A dense, realistic-looking decade of one person: a Watch (30–90 s samples) and an iPhone (1–10 min samples)
    /// recording the same walks, nights without steps, idle months, and occasional large manual entries.
    static func decade(seed: UInt64, years: Int = 10, end: Int64 = 1_767_225_600_000) -> [(start: Int64, value: Double)] {
        var rng = SplitMix64(seed: seed)
        var samples: [(start: Int64, value: Double)] = []
        let days = years * 365
        let firstDay = end / Milliseconds.day - Int64(days)
        var hasWatch = true
        for d in 0..<Int64(days) {
            if d % 30 == 0 { hasWatch = Int.random(in: 0..<6, using: &rng) != 0 }
            guard Int.random(in: 0..<20, using: &rng) != 0 else { continue }  // a day without the phone
            let dayStart = (firstDay + d) * Milliseconds.day
            let walks = Int.random(in: 2...8, using: &rng)
            for _ in 0..<walks {
                var t = dayStart + Int64.random(in: 6 * Milliseconds.hour...22 * Milliseconds.hour, using: &rng)
                let minutes = Int64.random(in: 3...60, using: &rng)
                let walkEnd = t + minutes * Milliseconds.minute
                var phone = t
                while t < walkEnd {
                    if hasWatch {
                        let length = Int64.random(in: 30_000...90_000, using: &rng)
                        samples.append((t, Double(Int64.random(in: 40...170, using: &rng) * length / 60_000)))
                        t += length
                    } else {
                        t = walkEnd
                    }
                    while phone < t {
                        let length = Int64.random(in: 60_000...600_000, using: &rng)
                        samples.append((phone, Double(Int64.random(in: 60...120, using: &rng) * length / 60_000)))
                        phone += length
                    }
                }
            }
            if Int.random(in: 0..<200, using: &rng) == 0 {
                samples.append((dayStart + 12 * Milliseconds.hour, Double(Int.random(in: 2_000...15_000, using: &rng))))
            }
        }
        return samples
    }
}
