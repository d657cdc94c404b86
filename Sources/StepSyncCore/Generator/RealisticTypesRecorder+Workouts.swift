import Foundation

extension RealisticTypesRecorder {
    // MARK: - Planning

    /// The day's workouts, in time order, none overlapping, only on days the Watch is worn: every run (a bout at 150
    /// steps a minute or more), 15 % of the walks of 20 minutes or more at 85 or more, each started 5–40 s before
    /// its bout and stopped 5–50 s after it; and now and then one without a walk, in a stretch free of walks and at
    /// least 30 minutes before bed (workdays: strength training 10 %, cycling 6 %, yoga 4 % in the evening; weekends:
    /// cycling 15 %, strength 5 %, yoga 5 % during the day; vacations: cycling 10 %, yoga 5 %).
    func planWorkouts(_ day: RealisticDay, bouts: [BoutSpan], bedMs: Int64) -> [PlannedWorkout] {
        guard day.wearsWatch else { return [] }
        var rng = stream(Salt.workouts, day.date)
        var workouts: [PlannedWorkout] = []
        for bout in bouts {
            let activity: PlannedWorkout.Activity
            if bout.cadence >= 150 {
                activity = .running
            } else if bout.endMs - bout.startMs >= 20 * 60_000, bout.cadence >= 85, rng.chance(0.15) {
                activity = .walking
            } else {
                continue
            }
            var start = bout.startMs - Int64(rng.int(5_000...40_000))
            let end = bout.endMs + Int64(rng.int(5_000...50_000))
            if let last = workouts.last { start = max(start, last.endMs + 1_000) }
            workouts.append(PlannedWorkout(activity: activity, startMs: start, endMs: end, cadence: bout.cadence))
        }

        guard let choice = Self.workoutWithoutWalk(on: day.kind, draw: rng.unit()) else { return workouts }
        let duration = Int64(rng.int(choice.minutes)) * 60_000
        let offset = Int64(rng.int(0...1_800)) * 1000
        // Free stretches: between walks and workouts, with two minutes either side, inside the window.
        var taken = bouts.filter { $0.cadence >= 60 }.map { ($0.startMs, $0.endMs) } + workouts.map { ($0.startMs, $0.endMs) }
        taken.append((bouts.first?.startMs ?? 0, bouts.first?.endMs ?? 0))
        taken.append((bedMs - 30 * 60_000, bedMs))
        taken.sort { $0.0 < $1.0 }
        let window = day.utcMs(wall: choice.fromWall)..<day.utcMs(wall: choice.toWall)
        var free = window.lowerBound
        for (start, end) in taken {
            let gapEnd = min(start - 120_000, window.upperBound)
            if gapEnd - free >= duration + 1_000 {
                let begin = free + min(offset, gapEnd - free - duration) + Int64(rng.int(0...999))
                workouts.append(PlannedWorkout(activity: choice.activity, startMs: begin, endMs: begin + duration + Int64(rng.int(0...59_999)),
                                               cadence: 0))
                workouts.sort { $0.startMs < $1.startMs }
                return workouts
            }
            free = max(free, end + 120_000)
        }
        return workouts
    }

    /// A workout without a walk: what, how long, and between which wall-clock seconds.
    struct ExtraWorkout {
        var activity: PlannedWorkout.Activity
        var minutes: ClosedRange<Int>
        var fromWall: Int
        var toWall: Int
    }

    /// The workout without a walk a day of `kind` gets for a uniform `draw` in [0, 1), if any.
    static func workoutWithoutWalk(on kind: RealisticDayPlanner.Kind, draw u: Double) -> ExtraWorkout? {
        let h = 3600
        switch kind {
        case .workday:
            if u < 0.10 { return ExtraWorkout(activity: .strength, minutes: 45...70, fromWall: 18 * h, toWall: 22 * h) }
            if u < 0.16 { return ExtraWorkout(activity: .cycling, minutes: 40...90, fromWall: 17 * h + h / 2, toWall: 21 * h) }
            if u < 0.20 { return ExtraWorkout(activity: .yoga, minutes: 30...60, fromWall: 19 * h, toWall: 22 * h + h / 2) }
        case .weekend:
            if u < 0.15 { return ExtraWorkout(activity: .cycling, minutes: 60...150, fromWall: 10 * h, toWall: 18 * h) }
            if u < 0.20 { return ExtraWorkout(activity: .strength, minutes: 45...70, fromWall: 10 * h, toWall: 19 * h) }
            if u < 0.25 { return ExtraWorkout(activity: .yoga, minutes: 30...60, fromWall: 9 * h, toWall: 21 * h) }
        case .vacation:
            if u < 0.10 { return ExtraWorkout(activity: .cycling, minutes: 60...180, fromWall: 9 * h, toWall: 18 * h) }
            if u < 0.15 { return ExtraWorkout(activity: .yoga, minutes: 30...60, fromWall: 8 * h, toWall: 21 * h) }
        case .sick:
            break
        }
        return nil
    }

    // MARK: - Samples

    /// One `HKWorkoutTypeIdentifier` sample per planned workout, from the Watch: value = duration in seconds, unit
    /// `s`, and `details` in the importer's layout (`StepSyncImport/WorkoutDecoder`): activity type, duration, total
    /// distance and energy with units, statistics (active energy, distance, heart rate, steps — each computed from the
    /// samples of that type inside the workout), per-kilometre segment events, and metadata.
    func workoutSamples(_ c: DayContext, steps: [HealthSample], distance: [HealthSample], energy: [HealthSample],
                        heartRate: [HealthSample]) -> [HealthSample] {
        guard !c.workouts.isEmpty else { return [] }
        var rng = stream(Salt.workoutDetails, c.day.date)
        let watch = planner.watch.sourceName
        return c.workouts.map { w in
            func inside(_ samples: [HealthSample]) -> [HealthSample] {
                samples.filter { $0.sourceName == watch && w.contains(startMs: $0.startMs, endMs: $0.endMs) }
            }
            let seconds = Double(w.endMs - w.startMs) / 1000
            let kcal = Self.round(inside(energy).reduce(0) { $0 + $1.value }, 3)
            let beats = inside(heartRate).map(\.value)
            let walked = inside(distance).sorted { $0.startMs < $1.startMs }
            let km: Double?
            switch w.activity {
            case .running, .walking: km = Self.round(walked.reduce(0) { $0 + $1.value }, 5)
            case .cycling: km = Self.round(rng.double(18...26) * seconds / 3600, 5)
            case .strength, .yoga: km = nil
            }
            let stepCount = w.activity.distanceType == GeneratedType.distance.sampleType.rawValue
                ? inside(steps).reduce(0) { $0 + $1.value } : nil

            var json = DetailsWriter(capacity: 1_024)
            json.openObject()
            json.member("activityType", w.activity.identifier)
            json.member("duration", seconds)
            if let km {
                json.member("totalDistance", km)
                json.member("totalDistanceUnit", "km")
            }
            json.member("totalEnergyBurned", kcal)
            json.member("totalEnergyBurnedUnit", "kcal")
            json.openArray("statistics")
            func statistic(_ type: String, _ body: (inout DetailsWriter) -> Void) {
                json.openObject()
                json.member("type", type)
                json.member("startDate", instant: w.startMs)
                json.member("endDate", instant: w.endMs)
                body(&json)
                json.closeObject()
            }
            statistic(GeneratedType.activeEnergy.sampleType.rawValue) { $0.member("sum", kcal); $0.member("unit", "kcal") }
            if let km, let type = w.activity.distanceType {
                statistic(type) { $0.member("sum", km); $0.member("unit", "km") }
            }
            if let low = beats.min(), let high = beats.max() {
                statistic(GeneratedType.heartRate.sampleType.rawValue) {
                    $0.member("average", Self.round(beats.reduce(0, +) / Double(beats.count), 3))
                    $0.member("minimum", low)
                    $0.member("maximum", high)
                    $0.member("unit", "count/min")
                }
            }
            if let stepCount {
                statistic(GeneratedType.steps.sampleType.rawValue) { $0.member("sum", stepCount); $0.member("unit", "count") }
            }
            json.closeArray()
            let segments = Self.kilometreSegments(walked, from: w.startMs)
            if !segments.isEmpty {
                json.openArray("events")
                for segment in segments {
                    json.openObject()
                    json.member("type", "HKWorkoutEventTypeSegment")
                    json.member("date", instant: segment.startMs)
                    json.member("duration", Double(segment.lengthMs) / 1000)
                    json.closeObject()
                }
                json.closeArray()
            }
            json.openArray("metadata")
            json.openArray(); json.element("HKIndoorWorkout"); json.element(w.activity.indoor ? "1" : "0"); json.closeArray()
            json.openArray(); json.element("HKTimeZone"); json.element("Europe/Berlin"); json.closeArray()
            json.closeArray()
            json.closeObject()
            return planner.watch.sample(.workouts, uuid: rng.uuid(), startMs: w.startMs, endMs: w.endMs, value: seconds,
                                        year: c.day.date.year, details: json.text)
        }
    }

    /// The full kilometres of a walk or run: where each starts and how long it took, from the distance samples in
    /// time order (a kilometre ends part-way through the sample that completes it, in proportion).
    static func kilometreSegments(_ distance: [HealthSample], from startMs: Int64) -> [(startMs: Int64, lengthMs: Int64)] {
        var segments: [(startMs: Int64, lengthMs: Int64)] = []
        var covered = 0.0
        var segmentStart = startMs
        for sample in distance {
            let before = covered
            covered += sample.value
            while Double(segments.count + 1) <= covered {
                let fraction = (Double(segments.count + 1) - before) / sample.value
                let at = sample.startMs + Int64((Double(sample.endMs - sample.startMs) * fraction).rounded())
                segments.append((segmentStart, at - segmentStart))
                segmentStart = at
            }
        }
        return segments
    }
}
