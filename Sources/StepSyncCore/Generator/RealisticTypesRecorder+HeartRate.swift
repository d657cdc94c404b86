import Foundation

extension RealisticTypesRecorder {
    /// Heart-rate readings while the Watch is on the wrist: every 5–10 minutes awake, 10–15 asleep, every 20–40
    /// seconds during a workout (the first reading 1–8 s after its start). A reading is an instant (start = end) in
    /// whole beats a minute: asleep about the resting rate, up and about 4–20 above it, walking with the cadence,
    /// and in a workout what its activity settles at (a run warms up over its first five minutes).
    func heartRateSamples(_ c: DayContext) -> [HealthSample] {
        var rng = stream(Salt.heartRate, c.day.date)
        let rest = restingHeartRate
        let year = c.day.date.year
        var out: [HealthSample] = []
        out.reserveCapacity(400)
        var b = 0
        var w = 0
        for span in c.worn {
            var t = span.startMs + Int64(rng.int(0...300_000))
            while t < span.endMs {
                while b < c.bouts.count, c.bouts[b].endMs <= t { b += 1 }
                while w < c.workouts.count, c.workouts[w].endMs <= t { w += 1 }
                let workout = w < c.workouts.count && c.workouts[w].startMs <= t ? c.workouts[w] : nil
                let bpm: Double
                let step: Int
                if let workout {
                    let target = workout.activity.heartRate(cadence: workout.cadence)
                    let warm = workout.activity == .running ? min(1, Double(t - workout.startMs) / 300_000) : 1
                    bpm = 100 + (target - 100) * warm + rng.double(-6...6)
                    step = rng.int(20_000...40_000)
                } else if b < c.bouts.count, c.bouts[b].startMs <= t {
                    bpm = rest + 10 + 0.35 * c.bouts[b].cadence + rng.double(-5...5)
                    step = rng.int(300_000...600_000)
                } else if span.night, c.isAsleep(at: t) {
                    bpm = rest - 3 + rng.double(-4...4)
                    step = rng.int(600_000...900_000)
                } else {
                    bpm = rest + 12 + rng.double(-8...8)
                    step = rng.int(300_000...600_000)
                }
                out.append(planner.watch.sample(.heartRate, uuid: rng.uuid(), startMs: t, endMs: t,
                                                value: min(205, max(38, bpm.rounded())), year: year))
                var next = t + Int64(step)
                if workout == nil, w < c.workouts.count, c.workouts[w].startMs > t, c.workouts[w].startMs < next {
                    next = c.workouts[w].startMs + Int64(rng.int(1_000...8_000))
                }
                t = next
            }
        }
        return out
    }

    /// Two to five one-minute SDNN readings a day while the Watch is worn, at rest (never in a walk or workout),
    /// 60 % of them from the night when it is worn to bed. Each carries its beats as the importer stores an export's
    /// `InstantaneousBeatsPerMinute` list: `{"beats":[{"bpm":58,"time":"2024-03-02T03:14:07.310Z"},…]}`.
    func hrvSamples(_ c: DayContext) -> [HealthSample] {
        guard !c.worn.isEmpty else { return [] }
        var rng = stream(Salt.hrv, c.day.date)
        let nights = c.worn.filter(\.night)
        var times: [Int64] = []
        for _ in 0..<rng.int(2...5) {
            let pool = !nights.isEmpty && rng.chance(0.6) ? nights : c.worn
            let total = pool.reduce(0) { $0 + ($1.endMs - $1.startMs) }
            for _ in 0..<4 {
                var at = Int64(rng.int(0...Int(total - 1)))
                var t = pool[0].startMs
                for span in pool {
                    let length = span.endMs - span.startMs
                    if at < length { t = span.startMs + at; break }
                    at -= length
                }
                if !c.isMoving(at: t) {
                    times.append(t)
                    break
                }
            }
        }
        times.sort()
        var out: [HealthSample] = []
        for t in times {
            let asleep = c.isAsleep(at: t)
            // An approximately normal deviate: the sum of four uniforms, centred and scaled.
            let z = ((0..<4).reduce(0.0) { sum, _ in sum + rng.unit() } - 2) * 3.0.squareRoot()
            let sdnn = baseSDNN * (asleep ? 1.25 : 1) * exp(0.3 * z)
            let bpmBase = restingHeartRate + (asleep ? -3 : 8)
            var writer = DetailsWriter(capacity: 3_000)
            writer.openObject()
            writer.openArray("beats")
            var beat = t + Int64(rng.int(0...500))
            while beat < t + 59_000 {
                let bpm = (bpmBase + rng.double(-6...6)).rounded()
                if rng.chance(0.85) {
                    writer.openObject()
                    writer.member("bpm", bpm)
                    writer.member("time", instant: beat)
                    writer.closeObject()
                }
                beat += Int64(60_000 / bpm)
            }
            writer.closeArray()
            writer.closeObject()
            out.append(planner.watch.sample(.heartRateVariability, uuid: rng.uuid(), startMs: t, endMs: t + 60_000,
                                            value: Self.round(sdnn, 4), year: c.day.date.year, details: writer.text))
        }
        return out
    }
}
