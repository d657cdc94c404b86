extension RealisticTypesRecorder {
    /// Active energy while the Watch is worn, from getting up to bed: each workout tiled exactly by chunks of 1–3
    /// minutes at its activity's rate, each walk (cadence ≥ 60) outside workouts by chunks of 1–5 minutes at a rate
    /// that grows with the cadence (4.5 kcal/min at 100 steps/min, 12 running at 165), and the time between by
    /// 10–25-minute chunks of light activity (0.15–0.6 kcal/min; pieces under a minute are left out). Values in kcal,
    /// three decimals.
    func energySamples(_ c: DayContext) -> [HealthSample] {
        guard let day = c.worn.first(where: { !$0.night }) else { return [] }
        var rng = stream(Salt.energy, c.day.date)
        let year = c.day.date.year

        struct Busy {
            var startMs: Int64
            var endMs: Int64
            var rate: ClosedRange<Double>
            var chunk: ClosedRange<Int>
        }
        var busy = c.workouts.map {
            Busy(startMs: $0.startMs, endMs: $0.endMs, rate: $0.activity.energyRate(cadence: $0.cadence), chunk: 60...180)
        }
        for bout in c.bouts where bout.cadence >= 60
            && !c.workouts.contains(where: { $0.startMs < bout.endMs && bout.startMs < $0.endMs })
        {
            let rate = Self.energyRate(cadence: bout.cadence)
            busy.append(Busy(startMs: bout.startMs, endMs: bout.endMs, rate: rate * 0.9...rate * 1.1, chunk: 60...300))
        }
        busy.sort { $0.startMs < $1.startMs }

        var out: [HealthSample] = []
        out.reserveCapacity(100)
        func tile(_ from: Int64, _ to: Int64, rate: ClosedRange<Double>, chunk: ClosedRange<Int>, keepShort: Bool) {
            var s = from
            while s < to {
                let length = min(Int64(rng.int(chunk)) * 1000, to - s)
                if !keepShort, length < 60_000 { break }
                let kcal = Self.round(rng.double(rate) * Double(length) / 60_000, 3)
                if kcal > 0 {
                    out.append(planner.watch.sample(.activeEnergy, uuid: rng.uuid(), startMs: s, endMs: s + length,
                                                    value: kcal, year: year))
                }
                s += length
            }
        }
        var t = day.startMs
        for b in busy {
            let from = max(b.startMs, t)
            let to = min(b.endMs, day.endMs)
            guard to > from else { continue }
            tile(t, from, rate: 0.15...0.6, chunk: 600...1_500, keepShort: false)
            tile(from, to, rate: b.rate, chunk: b.chunk, keepShort: true)
            t = to
        }
        tile(t, day.endMs, rate: 0.15...0.6, chunk: 600...1_500, keepShort: false)
        return out
    }
}
